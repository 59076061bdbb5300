"""Meter scanning for the rule-based form detector.

Public API (see docs/meter.md for the method and measured accuracy):

- ``scan_line(line, foot=None, feet=None) -> LineScan``: best scansion of one line, optionally
  constrained to a foot type and/or number of feet. ``LineScan.pattern`` is the ``w``/``s``
  string, one letter per syllable, ``LineScan.fit`` a 0-1 score.
- ``line_fit(line, foot, feet=None) -> float``: how well a line fits a meter (cached).
- ``beat_count(line) -> int``: estimated number of strong beats.
- ``scan_poem(lines) -> PoemMeter``: dominant meter (foot + typical feet) and per-line fits.
- ``parse_meter(text) -> MeterSpec | None``: the dataset's meter strings (``Iambic pentameter``,
  ``Trochaic``, ``Common meter``, ``Ballad meter``, ``Limerick`` ...).
- ``meter_score(lines, requested) -> (score, explanations)``: share of lines fitting a MeterSpec.

Lines are matched against foot templates (iambic, trochaic, anapestic, dactylic, amphibrachic,
1-8 feet) by a lattice search in :mod:`poemetric.form.scansion`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from poemetric.form.scansion import (
    FOOT_PATTERNS,
    GRAMMARS,
    MAX_FEET,
    Decoding,
    automaton,
    decode,
    line_options,
)

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
FOOT_TYPES: tuple[str, ...] = tuple(FOOT_PATTERNS)
# Scale turning cost per foot into a 0-1 fit: fit = exp(-cost / (FIT_SCALE * feet)).
FIT_SCALE = 0.6
# A line "fits" a requested meter when its fit is at least this (calibrated in docs/meter.md).
FIT_CUTOFF = 0.5
# In a poem, a line is read with the poem's typical number of feet when that costs at most this
# much more than its own best reading (poets keep line length; mixed-length stanzas still win).
TYPICAL_LENGTH_MARGIN = 0.6
# Weight of the per-foot prior when lines vote for a poem's foot (many lines make it less needed).
POEM_PRIOR_WEIGHT = 0.0


@dataclass(frozen=True)
class MeterTemplate:
    foot: str  # one of FOOT_TYPES
    feet: int

    @property
    def name(self) -> str:
        return f"{self.foot} {FEET_NAMES.get(self.feet, f'{self.feet}-foot')}"


@dataclass(frozen=True)
class LineScan:
    line: str
    words: tuple[str, ...]
    syllables: int
    pattern: str  # metrical positions, "w"/"s" per syllable
    stresses: str  # lexical stress class per syllable (see scansion module docstring)
    template: MeterTemplate | None
    fit: float  # 0-1
    cost: float
    variations: tuple[str, ...] = ()

    @property
    def beats(self) -> int:
        return self.pattern.count("s")


@dataclass(frozen=True)
class MeterSpec:
    """A requested meter: a foot and/or a number of feet, or a cyclic beat pattern."""

    name: str
    foot: str | None = None
    feet: int | None = None
    beat_pattern: tuple[int, ...] | None = None  # e.g. (4, 3) for common meter
    fallback_pattern: tuple[int, ...] | None = None  # accepted with a lower score (long meter)


@dataclass(frozen=True)
class PoemMeter:
    foot: str | None
    feet: int | None
    line_scans: tuple[LineScan, ...]  # each line scanned in the dominant foot
    fits: tuple[float, ...]  # fit of each line to (foot, feet)
    foot_votes: dict[str, int] = field(default_factory=dict)

    @property
    def template(self) -> MeterTemplate | None:
        if self.foot is None or self.feet is None:
            return None
        return MeterTemplate(self.foot, self.feet)


def _fit(cost: float, feet: int) -> float:
    return math.exp(-cost / (FIT_SCALE * max(1, feet)))


def _feet_range(options: tuple[tuple[object, ...], ...], line: str) -> tuple[int, int]:
    _, per_word = line_options(line)
    low = sum(min((len(o.classes) for o in opts), default=0) for opts in per_word)
    high = sum(max((len(o.classes) for o in opts), default=0) for opts in per_word)
    return max(1, (low - 2) // 3), max(1, min(MAX_FEET, (high + 1) // 2 + 1))


@lru_cache(maxsize=65536)
def _decode_line(line: str, foot: str, min_feet: int, max_feet: int) -> Decoding | None:
    _, per_word = line_options(line)
    return decode(per_word, automaton(foot, min_feet, max_feet))


@lru_cache(maxsize=65536)
def scan_line(line: str, foot: str | None = None, feet: int | None = None) -> LineScan:
    """Best scansion of `line`, optionally restricted to one foot type and/or number of feet."""
    if foot is not None and foot not in GRAMMARS:
        raise ValueError(f"unknown foot {foot!r}; expected one of {', '.join(FOOT_TYPES)}")
    if feet is not None and not 1 <= feet <= MAX_FEET:
        raise ValueError(f"number of feet must be 1..{MAX_FEET}, got {feet}")
    words, per_word = line_options(line)
    if not words:
        return LineScan(line, (), 0, "", "", None, 0.0, math.inf)
    low, high = (feet, feet) if feet is not None else _feet_range(per_word, line)
    best: tuple[float, str, Decoding] | None = None
    for name in (foot,) if foot is not None else FOOT_TYPES:
        decoding = _decode_line(line, name, low, high)
        if decoding is None:
            continue
        ranked = decoding.cost + (GRAMMARS[name].prior if foot is None else 0.0)
        if best is None or ranked < best[0]:
            best = (ranked, name, decoding)
    if best is None:
        syllables = sum(len(o[0].classes) for o in per_word if o)
        return LineScan(line, words, syllables, "", "", None, 0.0, math.inf)
    _, name, dec = best
    return LineScan(
        line=line,
        words=words,
        syllables=len(dec.labels),
        pattern=dec.labels,
        stresses=dec.classes,
        template=MeterTemplate(name, dec.feet),
        fit=_fit(dec.cost, dec.feet),
        cost=dec.cost,
        variations=dec.variations + _stress_variations(dec),
    )


def _stress_variations(dec: Decoding) -> tuple[str, ...]:
    found = []
    for label, cls in zip(dec.labels, dec.classes, strict=True):
        if label == "w" and cls in "SM":
            found.append("stressed syllable in weak position")
        elif label == "s" and cls in "UF":
            found.append("promoted weak syllable")
    return tuple(dict.fromkeys(found))


def line_fit(line: str, foot: str, feet: int | None = None) -> float:
    """0-1 fit of `line` to `foot` (and `feet` when given); 0 when the line cannot be scanned."""
    return scan_line(line, foot, feet).fit


def beat_count(line: str, foot: str | None = None) -> int:
    """Estimated number of strong beats (s positions) in the best scansion of `line`."""
    return scan_line(line, foot).beats


def beat_pattern_fit(line: str, beats: int, foot: str | None = None) -> float:
    """Fit of `line` read with exactly `beats` strong beats (any foot unless `foot` is given)."""
    feet_options = [foot] if foot else ["iambic", "anapestic", "amphibrachic", "trochaic"]
    best = 0.0
    for name in feet_options:
        scan = scan_line(line, name, beats)
        # catalectic/headless forms keep the beat count equal to the number of feet
        if scan.beats == beats:
            best = max(best, scan.fit)
    return best


def _prefer_typical_length(scan: LineScan, foot: str, feet: int | None) -> LineScan:
    """Re-read a line with the poem's typical number of feet unless that costs clearly more."""
    if feet is None or scan.template is None or scan.template.feet == feet:
        return scan
    typical = scan_line(scan.line, foot, feet)
    return typical if typical.cost <= scan.cost + TYPICAL_LENGTH_MARGIN else scan


def _nonblank(lines: Iterable[str]) -> list[str]:
    return [line for line in lines if line.strip()]


def scan_poem(lines: Sequence[str]) -> PoemMeter:
    """Dominant meter of a poem: the majority foot (ties: lower total cost), then typical feet.

    Each line is then read in that foot, preferring the poem's typical number of feet when
    that costs at most TYPICAL_LENGTH_MARGIN more (poets keep their line length).
    """
    text_lines = _nonblank(lines)
    if not text_lines:
        return PoemMeter(None, None, (), ())
    votes: Counter[str] = Counter()
    totals: dict[str, float] = dict.fromkeys(FOOT_TYPES, 0.0)
    for line in text_lines:
        costs = {
            name: scan_line(line, name).cost + POEM_PRIOR_WEIGHT * GRAMMARS[name].prior
            for name in FOOT_TYPES
        }
        best = min(FOOT_TYPES, key=lambda name: costs[name])
        if math.isfinite(costs[best]):
            votes[best] += 1
        for name in FOOT_TYPES:
            totals[name] += min(costs[name], 50.0)
    if not votes:
        return PoemMeter(None, None, (), tuple(0.0 for _ in text_lines))
    foot = min(FOOT_TYPES, key=lambda name: (-votes[name], totals[name]))
    free_scans = [scan_line(line, foot) for line in text_lines]
    feet_counts = Counter(s.template.feet for s in free_scans if s.template is not None)
    feet = feet_counts.most_common(1)[0][0] if feet_counts else None
    scans = tuple(_prefer_typical_length(scan, foot, feet) for scan in free_scans)
    fits = tuple(line_fit(line, foot, feet) for line in text_lines)
    return PoemMeter(foot, feet, scans, fits, dict(votes))


# --------------------------------------------------------------------------------------------
# Requested meters
# --------------------------------------------------------------------------------------------

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


@dataclass(frozen=True)
class LineVerdict:
    """Why one line does or does not count as fitting a requested meter."""

    line: str
    fits: bool
    fit: float
    expected: str
    scansion: str  # w/s pattern of the scan used for the verdict
    variations: tuple[str, ...]


def _stanzas(lines: Sequence[str]) -> list[list[str]]:
    stanzas: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            stanzas[-1].append(line)
        elif stanzas[-1]:
            stanzas.append([])
    return [s for s in stanzas if s]


def _pattern_verdicts(
    lines: Sequence[str], spec: MeterSpec, pattern: tuple[int, ...], cutoff: float
) -> list[LineVerdict]:
    verdicts = []
    for stanza in _stanzas(lines):
        for position, line in enumerate(stanza):
            beats = pattern[position % len(pattern)]
            if spec.foot is not None:
                scan = scan_line(line, spec.foot, beats)
                fit = scan.fit
            else:
                fit = beat_pattern_fit(line, beats)
                scan = scan_line(line, None, beats) if fit else scan_line(line)
            expected = f"{beats} beats" + (f" ({spec.foot})" if spec.foot else "")
            verdicts.append(
                LineVerdict(line, fit >= cutoff, fit, expected, scan.pattern, scan.variations)
            )
    return verdicts


def meter_score(
    lines: Sequence[str], requested: MeterSpec | str | None, cutoff: float = FIT_CUTOFF
) -> tuple[float, list[LineVerdict]]:
    """Share of (non-blank) lines that fit the requested meter, with a verdict per line.

    Blank lines separate stanzas; beat patterns (common meter 4-3-4-3, limerick 3-3-2-2-3)
    restart at each stanza. For a beat-pattern meter with a fallback (long meter 4-4-4-4 for
    ballads), the fallback reading counts at half weight when it explains more lines.
    A spec with no foot and no pattern (None) scores 1.0: nothing was requested.
    """
    spec = parse_meter(requested) if isinstance(requested, str) or requested is None else requested
    text_lines = _nonblank(lines)
    if spec is None or not text_lines:
        return 1.0, []
    if spec.beat_pattern is not None:
        verdicts = _pattern_verdicts(lines, spec, spec.beat_pattern, cutoff)
        score = sum(v.fits for v in verdicts) / len(verdicts)
        if spec.fallback_pattern is not None:
            fallback = _pattern_verdicts(lines, spec, spec.fallback_pattern, cutoff)
            fallback_score = 0.5 * sum(v.fits for v in fallback) / len(fallback)
            if fallback_score > score:
                return fallback_score, fallback
        return score, verdicts
    verdicts = []
    for line in text_lines:
        scan = scan_line(line, spec.foot, spec.feet)
        verdicts.append(
            LineVerdict(
                line, scan.fit >= cutoff, scan.fit, spec.name, scan.pattern, scan.variations
            )
        )
    return sum(v.fits for v in verdicts) / len(verdicts), verdicts
