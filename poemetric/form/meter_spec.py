"""Requested meters: the dataset's meter strings parsed into a `MeterSpec`.

``parse_meter("Iambic pentameter")`` gives a foot and a number of feet; stanza meters (common,
ballad, long and short meter, the limerick's 3-3-2-2-3) give a cyclic beat pattern, with a
fallback pattern where one is accepted at a lower score. Scoring lines against a spec is
:func:`poemetric.form.meter.meter_score`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from poemetric.form.parsing import repeated_group

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
    #: Line lengths any of which a line may have (`feet` is None): an annotation naming several
    #: ("trimeter / dimeter", `poemetric.form.meter_reading`); each line takes its best.
    feet_choices: tuple[int, ...] | None = None


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
#: Hymnals' abbreviations of the stanza meters (C.M., L.M.D., ...).
_ABBREVIATIONS = {
    "cm": "common meter",
    "cmd": "common meter",
    "lm": "long meter",
    "lmd": "long meter",
    "sm": "short meter",
    "smd": "short meter",
}
_NUMBER_GROUP = re.compile(r"\d+(?:\s*[-.,/ ]\s*\d+)*")
#: Numbers alone, with hymnals' trailing D for a doubled stanza (8.6.8.6.D: the same lines twice).
_NUMBERS = re.compile(r"^\s*\d+(?:\s*[-.,/ ]\s*\d+)*(?:\s*[-.,/ ]?\s*d)?\s*\.?\s*$", re.IGNORECASE)


def _numbered_meter(text: str) -> MeterSpec:
    """A meter written as numbers: syllables per line as hymnals write them (``8.6.8.6``,
    ``86 86``, ``8.8.8.8``: common and long meter; ``10.10.10.10``: pentameter), read as iambic
    lines of half as many beats, or beats per line (``4-3-4-3``, the limerick's ``3-3-2-2-3``).
    Odd syllable counts (``7.7.7.7``, trochaic lines) and other numbers raise ValueError."""
    tokens = re.findall(r"\d+", text)
    if any(len(t) > 2 or int(t) > 16 for t in tokens):
        tokens = [digit for token in tokens for digit in token]  # 8686, 86 86
    numbers = tuple(int(t) for t in tokens)
    syllables = max(numbers) >= 6
    if syllables and any(n % 2 or n < 4 or n > 16 for n in numbers):
        raise ValueError(
            f"unrecognised meter {text!r}: numbers of 6 or more are syllables per line, read as "
            "iambic lines (8.6.8.6 is common meter); for other lines (7.7.7.7) name the meter "
            "in words, e.g. 'trochaic tetrameter'"
        )
    if not syllables and min(numbers) < 1:
        raise ValueError(f"unrecognised meter {text!r}: a line has at least one beat")
    beats = tuple(n // 2 for n in numbers) if syllables else numbers
    cycle = repeated_group(beats, smallest=1) or beats  # (4, 3, 4, 3) -> (4, 3)
    for spec in (_NAMED_METERS["common meter"], _NAMED_METERS["long meter"],
                 _NAMED_METERS["short meter"], _NAMED_METERS["limerick"]):  # fmt: skip
        if (spec.beat_pattern == cycle or (spec.feet,) == cycle) and (
            syllables == (spec.foot == "iambic")
        ):
            return spec
    foot = "iambic" if syllables or cycle == (5,) else None  # as 'pentameter' alone
    if len(cycle) == 1:
        return MeterSpec(" ".join(x for x in (foot, FEET_NAMES.get(cycle[0])) if x), foot, cycle[0])
    return MeterSpec(f"{'-'.join(map(str, cycle))} beats", foot, None, cycle)


def parse_meter(text: str | None) -> MeterSpec | None:
    """Parse a meter description such as ``Iambic pentameter``, ``Trochaic`` or ``Common meter``.

    Empty / None / "free verse" give None; a string naming no known foot, line length or
    stanza meter raises ValueError.
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise ValueError(f"meter must be a string, got {type(text).__name__}")
    if _NUMBERS.match(text):
        return _numbered_meter(text)
    norm = " ".join(re.sub(r"[^a-z ]+", " ", text.lower()).split())
    if norm in _NO_METER and not re.search(r"\d", text):
        return None
    norm = _ABBREVIATIONS.get(norm.replace(" ", ""), norm)
    if norm in _NAMED_METERS:
        return _NAMED_METERS[norm]
    numbers = _NUMBER_GROUP.search(text)
    if numbers is not None:  # "iambic 8.6.8.6": the numbers give the line lengths of the foot
        spec = _worded_meter(text, " ".join(w for w in norm.split() if w != "d"))
        if spec.feet is None and spec.beat_pattern is None:
            return _foot_with_numbers(text, spec.foot, _numbered_meter(numbers.group()))
        return spec
    return _worded_meter(text, norm)


def _foot_with_numbers(text: str, foot: str | None, counted: MeterSpec) -> MeterSpec:
    """A named foot with line lengths as numbers: beats take any foot (``trochaic 4-4-4-4``);
    syllable counts are iambic lines, so another foot with them (``dactylic 6``) is an error."""
    if foot and counted.foot and foot != counted.foot:
        raise ValueError(
            f"unrecognised meter {text!r}: its numbers read as {counted.name}, {counted.foot} "
            f"lines, not {foot}; name the length of {foot} lines in words, e.g. '{foot} "
            "tetrameter'"
        )
    name = counted.name if counted.foot else " ".join(x for x in (foot, counted.name) if x)
    return MeterSpec(name, foot or counted.foot, counted.feet, counted.beat_pattern,
                     counted.fallback_pattern)  # fmt: skip


def _worded_meter(text: str, norm: str) -> MeterSpec:
    """A meter named in words: a foot, a line length or both (`norm`: lower case, letters)."""
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
