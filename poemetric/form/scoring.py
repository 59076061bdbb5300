"""Metre scoring and the pieces shared by the form rules (request, outcome, whole-poem rhyme).

Every scorer returns a score in [0, 1] together with `Finding`s that say which lines failed and
why; the form rules in `forms.py` combine them. Rhyme schemes are scored in `rhyme_scoring.py`
and repeated lines in `repeats.py`; their names are re-exported here for the form rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from poemetric.form import adapters
from poemetric.form.adapters import MeterSpec
from poemetric.form.findings import (
    MAX_FINDINGS_PER_KIND,
    REPORT_BELOW,
    Finding,
    Scored,
    cap_findings,
)
from poemetric.form.parsing import ParsedPoem
from poemetric.form.relayout import LineOrigins
from poemetric.form.repeats import repeat_similarity, same_words, score_repeats
from poemetric.form.rhyme_scoring import (
    FOLK_CREDIT,
    UNEXPECTED_WEIGHT,
    SchemeUnit,
    best_scheme,
    end_words,
    required_rhymes,
    rhyme_words,
    score_scheme,
    stanzaic_units,
)

__all__ = [
    "FOLK_CREDIT",
    "REPORT_BELOW",
    "UNEXPECTED_WEIGHT",
    "Finding",
    "FormOutcome",
    "FormRequest",
    "SchemeUnit",
    "Scored",
    "best_scheme",
    "count_finding",
    "end_words",
    "global_rhyme",
    "line_count_score",
    "repeat_similarity",
    "requested_meter",
    "required_rhymes",
    "rhyme_words",
    "same_words",
    "score_meter",
    "score_repeats",
    "score_scheme",
    "stanzaic_units",
]


# -- metre ----------------------------------------------------------------------------------------


def _credit(fit: float) -> float:
    """Credit of a line's metre fit: full above the cut-off, half for a near miss."""
    if fit >= adapters.FIT_CUTOFF:
        return 1.0
    if fit >= 0.8 * adapters.FIT_CUTOFF:
        return 0.75
    return 0.5 if fit >= 0.5 * adapters.FIT_CUTOFF else 0.0


def _beat_credits(
    lines: tuple[str, ...], pattern: tuple[int, ...], foot: str | None, starts: set[int]
) -> list[tuple[float, int]]:
    out: list[tuple[float, int]] = []
    position = 0
    for i, line in enumerate(lines):
        if i in starts:
            position = 0
        expected = pattern[position % len(pattern)]
        position += 1
        credit = _credit(adapters.beat_fit(line, expected, foot))
        if credit < 1.0:
            near = max(
                adapters.beat_fit(line, b, foot) for b in (expected - 1, expected + 1) if b > 0
            )
            credit = max(credit, 0.5 * _credit(near))
        out.append((credit, expected))
    return out


def _beat_miss(index: int, line: str, expected: int, spec: MeterSpec) -> str:
    """Why a line fails its beat count: its beats are about another number, or it has that
    many only in a strained reading (the fit and scansion of its best such reading)."""
    estimated = adapters.beats(line)
    if estimated != expected:
        return f"line {index + 1} does not read with {expected} beats (about {estimated})"
    fit = adapters.beat_fit(line, expected, spec.foot)
    feet = "" if spec.foot is None else f" in {spec.foot} feet"
    return (
        f"line {index + 1} has about {expected} beats, but not{feet} (free reading "
        f"{adapters.scansion(line) or '-'}; best {expected}-beat fit {fit:.2f})"
    )


def _foot_miss(index: int, line: str, spec: MeterSpec, fit: float) -> str:
    """Why a line misses a foot metre: what it reads as instead, and which words strain the
    requested reading (those whose syllables cost most in it)."""
    free = adapters.free_scan(line)
    parts = [f"{free.syllables} syllables, fit {fit:.2f}"]
    feet = adapters.spec_fit(line, spec)[1]
    if free.template is not None:
        lengths = spec.feet_choices or (free.template.feet if spec.feet is None else spec.feet,)
        wanted = free.template.feet if free.template.feet in lengths else lengths[0]
        if (free.template.foot, free.template.feet) != (spec.foot, wanted):
            parts.append(f"reads best as {free.template.name}, {free.pattern}")
    if spec.foot is not None:
        strained = adapters.strained_words(line, spec.foot, feet)
        if strained:
            parts.append("strained: " + ", ".join(f"'{word}' {kind}" for word, kind in strained))
    return f"line {index + 1} does not scan as {spec.name} ({'; '.join(parts)})"


def score_meter(
    lines: tuple[str, ...],
    spec: MeterSpec,
    *,
    beat_cycle_starts: tuple[int, ...] = (),
    origins: LineOrigins | None = None,
) -> Scored:
    """Share of lines fitting a foot metre, or a beat pattern cycled from each stanza start.

    `origins`: `lines` are a re-laid-out poem's (Lear's limerick read as five lines); the note
    then counts the poem's own lines, one fitting when every part of it fits."""
    if not lines:
        return Scored(None)
    findings: list[Finding] = []
    full = 1.0  # a line's credit when it fits (half that in the fallback metre)
    fitted = spec.name
    if spec.beats:
        starts = set(beat_cycle_starts) or {0}
        verdicts = _beat_credits(lines, spec.beats, spec.foot, starts)
        if spec.fallback_beats:
            fallback = _beat_credits(lines, spec.fallback_beats, spec.foot, starts)
            if 0.5 * sum(c for c, _ in fallback) > sum(c for c, _ in verdicts):
                verdicts = [(0.5 * c, b) for c, b in fallback]
                full = 0.5
                beats = "-".join(map(str, spec.fallback_beats))
                fitted = f"{beats} beats, the fallback of {spec.name} (half credit)"
        credits = [c for c, _ in verdicts]
        # Every line that does not fit is named, near misses too, as for a foot metre: "22 of
        # 24 lines fit common meter" named none of the two when both earned part credit.
        missed = [(i, expected) for i, (credit, expected) in enumerate(verdicts) if credit < full]
        findings = [
            Finding(
                "meter",
                (i + 1,),
                _beat_miss(i, lines[i], expected, spec) if k < MAX_FINDINGS_PER_KIND else "",
            )
            for k, (i, expected) in enumerate(missed)
        ]
        worst = _worst_beat_finding(lines, verdicts, findings, spec)
    else:
        worst = None
        fits = [adapters.spec_fit(line, spec)[0] for line in lines]
        credits = [_credit(fit) for fit in fits]
        failing = [i for i, credit in enumerate(credits) if credit < 1.0]
        # Only the findings that `cap_findings` keeps are worth describing (a reading each).
        findings = [
            Finding(
                "meter",
                (i + 1,),
                _foot_miss(i, lines[i], spec, fits[i]) if k < MAX_FINDINGS_PER_KIND else "",
            )
            for k, i in enumerate(failing)
        ]
    score = sum(credits) / len(credits)
    return Scored(
        score,
        tuple(cap_findings(findings, "meter")),
        f"{_fitting_lines(credits, origins, full)} lines fit {fitted}",
        worst,
    )


def _fitting_lines(credits: list[float], origins: LineOrigins | None, full: float = 1.0) -> str:
    """ "k of n": the lines with full credit (`full`: 0.5 in a beat metre's fallback), counted
    as the poem's lines when `origins` says which of them holds each scanned line (a split line
    fits when all its parts do)."""
    if origins is None or len(origins.origins) != len(credits):
        return f"{sum(1 for c in credits if c >= full)} of {len(credits)}"
    poem_lines = sorted(set(origins.origins))
    good = sum(
        1
        for line in poem_lines
        if all(c >= full for c, o in zip(credits, origins.origins, strict=True) if o == line)
    )
    return f"{good} of {len(poem_lines)}"


def _worst_beat_finding(
    lines: tuple[str, ...],
    verdicts: list[tuple[float, int]],
    findings: list[Finding],
    spec: MeterSpec,
) -> Finding | None:
    """The missed line a failing summary names (`findings`: one per missed line, in line
    order): the lowest credit, then the beat count furthest from the expected one, then the
    first. The first in line order named a near miss ("line 1 ... (about 4)") before a line that
    reads with 5 beats for 3."""
    if not findings:
        return None
    lowest = min(verdicts[f.lines[0] - 1][0] for f in findings)
    tied = [f for f in findings if verdicts[f.lines[0] - 1][0] == lowest]
    if len(tied) > 1:
        tied.sort(
            key=lambda f: -abs(adapters.beats(lines[f.lines[0] - 1]) - verdicts[f.lines[0] - 1][1])
        )  # a stable sort: the first of the furthest
    worst = tied[0]
    if worst.detail:
        return worst
    index = worst.lines[0] - 1  # past the findings described (MAX_FINDINGS_PER_KIND)
    return Finding("meter", worst.lines, _beat_miss(index, lines[index], verdicts[index][1], spec))


# -- shared pieces of form rules ---------------------------------------------------------------


@dataclass(frozen=True)
class FormRequest:
    """What the poem was asked to be: a form, optionally a metre and a rhyme pattern."""

    form: str
    meter: MeterSpec | None = None
    rhyme: str | None = None  # normalised letters, e.g. 'ABABCDCDEFEFGG'
    #: A metre was requested that names nothing the checker scans ('Accentual'): no metre is
    #: scored, not even the one a sonnet or limerick scans when none is requested.
    meter_unscored: bool = False


@dataclass
class FormOutcome:
    form_score: float | None = None
    rhyme_score: float | None = None
    meter_score: float | None = None
    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    #: Constraint -> the finding a failing summary names, where not its first (`Scored.lead`).
    leads: dict[str, Finding] = field(default_factory=dict)

    def add(self, scored: Scored) -> None:
        self.findings.extend(scored.findings)
        if scored.lead is not None:
            self.leads[scored.lead.constraint] = scored.lead


def line_count_score(n: int, expected: int) -> float:
    if n == expected:
        return 1.0
    return 0.5 if abs(n - expected) == 1 else 0.0


def count_finding(n: int, expected: int, form: str) -> list[Finding]:
    if n == expected:
        return []
    return [Finding("lines", (), f"a {form} has {expected} lines; this poem has {n}")]


def requested_meter(
    poem: ParsedPoem,
    request: FormRequest,
    outcome: FormOutcome,
    *,
    origins: LineOrigins | None = None,
) -> None:
    """Score the requested metre; `origins`: `poem` is a re-laid-out text (a ballad's long lines
    split at the caesura), and `facts["meter"]` counts the poem's own lines."""
    if request.meter is None:
        return
    starts = tuple(s[0] for s in poem.stanzas) if poem.has_stanza_breaks else ()
    scored = score_meter(poem.lines, request.meter, beat_cycle_starts=starts, origins=origins)
    outcome.meter_score = scored.score
    outcome.facts["meter"] = scored.note
    outcome.add(scored)


#: Credits against a pattern whose letters name end words: the word again is the form's rule.
_END_WORD_CREDITS = {**adapters.RHYME_CREDIT, adapters.Rhyme.IDENTICAL: 1.0}


def global_rhyme(
    poem: ParsedPoem,
    letters: str,
    outcome: FormOutcome,
    name: str,
    *,
    parts: tuple[range, ...] = (),
    end_words: bool = False,
) -> None:
    """Score the whole poem against one pattern (extra lines are ignored, missing ones fail).

    `end_words`: the letters name end words, not rhymes (a sestina's ABCDEF FAEBDC ...): a line
    ending on its letter's word again earns full credit, and two end words that happen to rhyme
    (light / night) cost nothing."""
    words = rhyme_words(poem.lines)
    n = min(len(words), len(letters))
    missing = required_rhymes(letters) - required_rhymes(letters[:n])
    unit = SchemeUnit(tuple(range(n)), letters[:n], missing, form_lines=len(letters))
    scored = score_scheme(
        words,
        [unit],
        pattern_name=name,
        parts=parts,
        lines=poem.lines,
        extra_rhymes_ok=end_words,
        credits=_END_WORD_CREDITS if end_words else adapters.RHYME_CREDIT,
    )
    outcome.rhyme_score = scored.score
    outcome.facts["rhyme"] = scored.note
    outcome.add(scored)
