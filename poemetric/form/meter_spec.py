"""Requested meters: the dataset's meter strings parsed into a `MeterSpec`.

``parse_meter("Iambic pentameter")`` gives a foot and a number of feet; stanza meters (common,
ballad, long and short meter, the limerick's 3-3-2-2-3) give a cyclic beat pattern, with a
fallback pattern where one is accepted at a lower score. Scoring lines against a spec is
:func:`poemetric.form.meter.meter_score`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FEET_NAMES: dict[int, str] = {
    1: "monometer",
    2: "dimeter",
    3: "trimeter",
    4: "tetrameter",
    5: "pentameter",
    6: "hexameter",
    7: "heptameter",
    8: "octameter",
}
FEET_BY_NAME: dict[str, int] = {name: n for n, name in FEET_NAMES.items()}
FEET_BY_NAME.update({"alexandrine": 6, "fourteener": 7, "septenary": 7})


@dataclass(frozen=True)
class MeterSpec:
    """A requested meter: a foot and/or a number of feet, or a cyclic beat pattern."""

    name: str
    foot: str | None = None
    feet: int | None = None
    beat_pattern: tuple[int, ...] | None = None  # e.g. (4, 3) for common meter
    fallback_pattern: tuple[int, ...] | None = None  # accepted with a lower score (long meter)


_NAMED_METERS: dict[str, MeterSpec] = {
    "common meter": MeterSpec("common meter", "iambic", None, (4, 3), (4, 4)),
    "common measure": MeterSpec("common meter", "iambic", None, (4, 3), (4, 4)),
    "ballad meter": MeterSpec("ballad meter", None, None, (4, 3), (4, 4)),
    "ballad measure": MeterSpec("ballad meter", None, None, (4, 3), (4, 4)),
    "ballad stanza": MeterSpec("ballad meter", None, None, (4, 3), (4, 4)),
    "long meter": MeterSpec("long meter", "iambic", 4, (4,)),
    "long measure": MeterSpec("long meter", "iambic", 4, (4,)),
    "short meter": MeterSpec("short meter", "iambic", None, (3, 3, 4, 3)),
    "short measure": MeterSpec("short meter", "iambic", None, (3, 3, 4, 3)),
    "limerick": MeterSpec("limerick meter", "anapestic", None, (3, 3, 2, 2, 3)),
    "limerick meter": MeterSpec("limerick meter", "anapestic", None, (3, 3, 2, 2, 3)),
    "blank verse": MeterSpec("iambic pentameter", "iambic", 5),
    "heroic couplet": MeterSpec("iambic pentameter", "iambic", 5),
    "heroic couplets": MeterSpec("iambic pentameter", "iambic", 5),
}
_FOOT_WORDS: dict[str, str] = {
    "iambic": "iambic",
    "iamb": "iambic",
    "iambs": "iambic",
    "trochaic": "trochaic",
    "trochee": "trochaic",
    "trochees": "trochaic",
    "anapestic": "anapestic",
    "anapaestic": "anapestic",
    "anapest": "anapestic",
    "dactylic": "dactylic",
    "dactyl": "dactylic",
    "amphibrachic": "amphibrachic",
    "amphibrach": "amphibrachic",
}
_NO_METER = {"", "none", "nan", "n/a", "na", "free verse", "-", "unknown"}


def parse_meter(text: str | None) -> MeterSpec | None:
    """Parse a meter description such as ``Iambic pentameter``, ``Trochaic`` or ``Common meter``.

    Empty / None / "free verse" give None; a string naming no known foot, line length or
    stanza meter raises ValueError.
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise ValueError(f"meter must be a string, got {type(text).__name__}")
    norm = " ".join(re.sub(r"[^a-z ]+", " ", text.lower()).split())
    if norm in _NO_METER:
        return None
    if norm in _NAMED_METERS:
        return _NAMED_METERS[norm]
    words = norm.split()
    feet_words = [FEET_BY_NAME[w] for w in words if w in FEET_BY_NAME]
    foot_words = [_FOOT_WORDS[w] for w in words if w in _FOOT_WORDS]
    unknown = [w for w in words if w not in FEET_BY_NAME and w not in _FOOT_WORDS]
    if unknown or len(feet_words) > 1 or len(set(foot_words)) > 1 or not (feet_words or foot_words):
        raise ValueError(
            f"unrecognised meter {text!r}: expected e.g. 'iambic pentameter', 'trochaic', "
            f"'anapestic trimeter', 'common meter', 'ballad meter' or 'limerick'"
        )
    foot = foot_words[0] if foot_words else None
    feet = feet_words[0] if feet_words else None
    if foot is None and feet in (5, 6):
        foot = "iambic"  # "pentameter" alone conventionally means iambic
    name = " ".join(x for x in (foot, FEET_NAMES.get(feet or 0)) if x)
    return MeterSpec(name, foot, feet)
