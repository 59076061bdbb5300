"""Meter scanning for the rule-based form detector.

Public API (see docs/meter.md for the method and measured accuracy):

- ``scan_line(line, foot=None, feet=None) -> LineScan``: best scansion of one line, optionally
  constrained to a foot type and/or number of feet. ``LineScan.pattern`` is the ``w``/``s``
  string, one letter per syllable, ``LineScan.fit`` a 0-1 score.
- ``line_fit(line, foot, feet=None) -> float``: how well a line fits a meter (cached).
- ``beat_count(line) -> int``: estimated number of strong beats.
- ``scan_poem(lines) -> PoemMeter``: dominant meter (foot + typical feet) and per-line fits.
- ``parse_meter(text) -> MeterSpec | None`` (defined in :mod:`poemetric.form.meter_spec`): the
  dataset's meter strings (``Iambic pentameter``, ``Trochaic``, ``Common meter``, ``Limerick``).
- ``meter_score(lines, requested) -> (score, explanations)``: share of lines fitting a MeterSpec.

Lines are matched against foot templates (iambic, trochaic, anapestic, dactylic, amphibrachic,
1-8 feet): :mod:`poemetric.form.meter_words` gives each word's syllabification options,
:mod:`poemetric.form.meter_templates` every realisation of every meter and
:mod:`poemetric.form.meter_search` scores all of them at once per line.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from poemetric.form import meter_search
from poemetric.form.meter_search import LineAnalysis, Reading, analyse_lines
from poemetric.form.meter_spec import FEET_BY_NAME as FEET_BY_NAME
from poemetric.form.meter_spec import FEET_NAMES as FEET_NAMES
from poemetric.form.meter_spec import MeterSpec as MeterSpec
from poemetric.form.meter_spec import parse_meter as parse_meter
from poemetric.form.meter_templates import FOOT_PRIORS, FOOT_TYPES, GRAMMARS, MAX_FEET

# Scale turning cost per foot into a 0-1 fit: fit = exp(-cost / (FIT_SCALE * feet)).
FIT_SCALE = 0.6
# A line "fits" a requested meter when its fit is at least this (calibrated in docs/meter.md).
FIT_CUTOFF = 0.5
# In a poem, a line is read with the poem's typical number of feet when that costs at most this
# much more than its own best reading (poets keep line length; mixed-length stanzas still win).
TYPICAL_LENGTH_MARGIN = 0.6
# In a poem, a line leaves the dominant foot for another when that is cheaper by this much
# (poems that mix meters, e.g. anapestic and iambic stanzas).
FOOT_SWITCH_MARGIN = 1.5
# Line analyses kept in memory (a dict cleared when full; analyses are cheap to redo, and
# distinct poems rarely share lines: a large cache only grew the memory of long batches).
ANALYSIS_CACHE_SIZE = 4_096
_ANALYSES: dict[str, LineAnalysis] = {}


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
    stresses: str  # lexical stress class per syllable (see meter_words module docstring)
    template: MeterTemplate | None
    fit: float  # 0-1
    cost: float
    variations: tuple[str, ...] = ()

    @property
    def beats(self) -> int:
        return self.pattern.count("s")


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


def analyse(lines: Iterable[str]) -> list[LineAnalysis]:
    """Analyses of `lines` (cached per line); new lines are analysed together in one batch."""
    wanted = list(lines)
    missing = list(dict.fromkeys(line for line in wanted if line not in _ANALYSES))
    if missing:
        if len(_ANALYSES) + len(missing) > ANALYSIS_CACHE_SIZE:
            _ANALYSES.clear()  # then every wanted line is missing, not only the new ones
            missing = list(dict.fromkeys(wanted))
        _ANALYSES.update(zip(missing, analyse_lines(missing), strict=True))
    return [_ANALYSES[line] for line in wanted]


def clear_caches() -> None:
    """Forget cached line analyses, scans and per-class-string costs (word pronunciations stay
    cached)."""
    meter_search.clear_caches()
    _ANALYSES.clear()
    scan_line.cache_clear()
    syllable_count.cache_clear()


def _check_arguments(foot: str | None, feet: int | None) -> None:
    if foot is not None and foot not in GRAMMARS:
        raise ValueError(f"unknown foot {foot!r}; expected one of {', '.join(FOOT_TYPES)}")
    if feet is not None and not 1 <= feet <= MAX_FEET:
        raise ValueError(f"number of feet must be 1..{MAX_FEET}, got {feet}")


def _free_choice(analysis: LineAnalysis, feet: int | None) -> tuple[str, int | None]:
    """Foot (and feet) of the cheapest unconstrained reading, with the per-foot priors."""
    costs = analysis.best + FOOT_PRIORS[:, None]
    if feet is not None:
        foot_index = int(costs[:, feet].argmin())
        return FOOT_TYPES[foot_index], feet
    foot_index, best_feet = divmod(int(costs.argmin()), costs.shape[1])
    return FOOT_TYPES[foot_index], best_feet


@lru_cache(maxsize=4096)
def scan_line(line: str, foot: str | None = None, feet: int | None = None) -> LineScan:
    """Best scansion of `line`, optionally restricted to one foot type and/or number of feet."""
    _check_arguments(foot, feet)
    (analysis,) = analyse([line])
    if not analysis.words:
        return LineScan(line, (), 0, "", "", None, 0.0, math.inf)
    if foot is None:
        foot, feet = _free_choice(analysis, feet)
    reading = analysis.reading(foot, feet)
    if reading is None:
        return LineScan(line, analysis.words, analysis.plain_syllables, "", "", None, 0.0, math.inf)
    return _line_scan(line, analysis, reading)


@lru_cache(maxsize=8192)
def syllable_count(line: str) -> int:
    """`scan_line(line).syllables` without building the scan (form rules ask it of every line)."""
    (analysis,) = analyse([line])
    if not analysis.words:
        return 0
    foot, feet = _free_choice(analysis, None)
    length = analysis.reading_length(foot, feet) if feet is not None else None
    return analysis.plain_syllables if length is None else length


def _line_scan(line: str, analysis: LineAnalysis, reading: Reading) -> LineScan:
    notes = tuple(o.note for o in reading.choices if o.note and o.note not in ("elided",))
    return LineScan(
        line=line,
        words=analysis.words,
        syllables=len(reading.labels),
        pattern=reading.labels,
        stresses=reading.classes,
        template=MeterTemplate(reading.foot, reading.feet),
        fit=_fit(reading.cost, reading.feet),
        cost=reading.cost,
        variations=tuple(dict.fromkeys(reading.variations + notes + _stress_variations(reading))),
    )


def _stress_variations(reading: Reading) -> tuple[str, ...]:
    found = []
    for label, cls in zip(reading.labels, reading.classes, strict=True):
        if label == "w" and cls in "SM":
            found.append("stressed syllable in weak position")
        elif label == "s" and cls in "UF":
            found.append("promoted weak syllable")
    return tuple(found)


#: A syllable's stress cost (`meter_search.STRESS_COSTS`) from which `strained_words` names its
#: word: above a promoted function word (0.35), which every regular line has.
STRAIN_NAMED_FROM = 0.4


def strained_words(
    line: str, foot: str, feet: int | None = None, most: int = 3
) -> tuple[tuple[str, str], ...]:
    """Words whose syllables cost most in the best reading of `line` in `foot` (and `feet`):
    (word, "stressed in a weak position" or "unstressed in a strong position"), costliest first,
    at most `most`; () when the line has no such reading or none costs `STRAIN_NAMED_FROM`."""
    _check_arguments(foot, feet)
    (analysis,) = analyse([line])
    reading = analysis.reading(foot, feet) if analysis.words else None
    if reading is None:
        return ()
    strained: list[tuple[float, int, str, str]] = []
    position = 0
    last = len(reading.labels) - 1
    for index, (word, choice) in enumerate(zip(analysis.words, reading.choices, strict=True)):
        worst, kind = 0.0, ""
        for offset, cls in enumerate(choice.classes):
            at = position + offset
            costs = meter_search.FINAL_STRESS_COSTS if at == last else meter_search.STRESS_COSTS
            strong = reading.labels[at] == "s"
            cost = costs[cls][1 if strong else 0]
            if cost > worst:
                worst = cost
                kind = (
                    "unstressed in a strong position" if strong else "stressed in a weak position"
                )
        position += len(choice.classes)
        if worst >= STRAIN_NAMED_FROM:
            strained.append((-worst, index, word, kind))
    return tuple((word, kind) for _, _, word, kind in sorted(strained)[:most])


def line_fit(line: str, foot: str, feet: int | None = None) -> float:
    """0-1 fit of `line` to `foot` (and `feet` when given); 0 when the line cannot be scanned."""
    _check_arguments(foot, feet)
    (analysis,) = analyse([line])
    if feet is None:
        feet = analysis.best_feet(foot)
        if feet is None:
            return 0.0
    cost = analysis.cost(foot, feet)
    return _fit(cost, feet) if math.isfinite(cost) else 0.0


def beat_count(line: str, foot: str | None = None) -> int:
    """Estimated number of strong beats (s positions) in the best scansion of `line`."""
    return scan_line(line, foot).beats


def beat_pattern_fit(line: str, beats: int, foot: str | None = None) -> float:
    """Fit of `line` read with exactly `beats` strong beats (any foot unless `foot` is given)."""
    feet_options = [foot] if foot else ["iambic", "anapestic", "amphibrachic", "trochaic"]
    best = 0.0
    for name in feet_options:
        if line_fit(line, name, beats) <= best:
            continue
        scan = scan_line(line, name, beats)
        # catalectic/headless forms keep the beat count equal to the number of feet
        if scan.beats == beats:
            best = max(best, scan.fit)
    return best


def _nonblank(lines: Iterable[str]) -> list[str]:
    return [line for line in lines if line.strip()]


def scan_poem(lines: Sequence[str]) -> PoemMeter:
    """Dominant meter of a poem: the majority foot (ties: lower total cost), then typical feet.

    Each line is then read in that foot, preferring the poem's typical number of feet when
    that costs at most TYPICAL_LENGTH_MARGIN more (poets keep their line length). Distinct
    lines are analysed once, together, against all meters.
    """
    text_lines = _nonblank(lines)
    if not text_lines:
        return PoemMeter(None, None, (), ())
    analyses = analyse(text_lines)
    votes: Counter[str] = Counter()
    totals: dict[str, float] = dict.fromkeys(FOOT_TYPES, 0.0)
    for analysis in analyses:
        per_foot = analysis.best.min(axis=1)
        first = int(per_foot.argmin())
        if math.isfinite(per_foot[first]):
            votes[FOOT_TYPES[first]] += 1
        for index, name in enumerate(FOOT_TYPES):
            totals[name] += min(float(per_foot[index]), 50.0)
    if not votes:
        return PoemMeter(None, None, (), tuple(0.0 for _ in text_lines))
    foot = min(FOOT_TYPES, key=lambda name: (-votes[name], totals[name]))
    own_feet = [a.best_feet(foot) for a in analyses]
    feet_counts = Counter(f for f in own_feet if f is not None)
    feet = feet_counts.most_common(1)[0][0] if feet_counts else None
    scans = []
    for line, analysis, own in zip(text_lines, analyses, own_feet, strict=True):
        other = FOOT_TYPES[int(analysis.best.min(axis=1).argmin())]
        if other != foot and analysis.cost(other) + FOOT_SWITCH_MARGIN < analysis.cost(foot):
            scans.append(scan_line(line, other))
            continue
        chosen = own
        if (
            feet is not None
            and own is not None
            and analysis.cost(foot, feet) <= analysis.cost(foot, own) + TYPICAL_LENGTH_MARGIN
        ):
            chosen = feet
        scans.append(scan_line(line, foot, chosen))
    fits = tuple(
        _fit(a.cost(foot, feet), feet)
        if feet is not None and math.isfinite(a.cost(foot, feet))
        else 0.0
        for a in analyses
    )
    return PoemMeter(foot, feet, tuple(scans), fits, dict(votes))


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
    analyse(text_lines)  # new lines analysed together, in one batch
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
        lengths = spec.feet_choices or (spec.feet,)  # several: the line's best of them counts
        scan = max((scan_line(line, spec.foot, n) for n in lengths), key=lambda s: s.fit)
        verdicts.append(
            LineVerdict(
                line, scan.fit >= cutoff, scan.fit, spec.name, scan.pattern, scan.variations
            )
        )
    return sum(v.fits for v in verdicts) / len(verdicts), verdicts
