"""Scores shared by the form rules: rhyme schemes, metre, and repeated lines (refrains).

Every scorer returns a score in [0, 1] together with `Finding`s that say which lines failed and
why; the form rules in `forms.py` combine them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

from poemetric.form import adapters
from poemetric.form.adapters import RHYME_CREDIT, MeterSpec, Rhyme
from poemetric.form.parsing import ParsedPoem, end_word, minimal_period

#: A line whose rhyme credit or metre fit is below this is reported as a failure.
REPORT_BELOW = 0.5
#: Weight of an unexpected perfect rhyme (a new letter that rhymes with an earlier one).
UNEXPECTED_WEIGHT = 0.5
#: Rhyme credits for folk forms (ballads): assonance and consonance rhymes (dwellin'/Allen,
#: keep/speak) are the norm of oral balladry, so they earn what a slant rhyme earns.
FOLK_CREDIT: dict[Rhyme, float] = {**RHYME_CREDIT, Rhyme.NEAR: RHYME_CREDIT[Rhyme.SLANT]}
#: Findings of one kind listed individually before they are summarised.
MAX_FINDINGS_PER_KIND = 8


@dataclass(frozen=True)
class Finding:
    """One failed (or weak) constraint: what, on which 1-based lines, and why."""

    constraint: str
    lines: tuple[int, ...]
    detail: str


@dataclass(frozen=True)
class Scored:
    score: float | None
    findings: tuple[Finding, ...] = ()
    note: str = ""


def _cap(findings: list[Finding], constraint: str) -> list[Finding]:
    if len(findings) <= MAX_FINDINGS_PER_KIND:
        return findings
    extra = findings[MAX_FINDINGS_PER_KIND:]
    lines = tuple(sorted({n for f in extra for n in f.lines}))
    return [
        *findings[:MAX_FINDINGS_PER_KIND],
        Finding(constraint, lines, f"{len(extra)} more failures of this kind"),
    ]


# -- rhyme ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemeUnit:
    """Consecutive-or-not poem lines (0-based) checked against pattern letters, one per line."""

    lines: tuple[int, ...]
    letters: str
    #: Rhymes the full pattern asks for that this (truncated) unit cannot hold: counted as failed.
    missing: int = 0


def required_rhymes(letters: str) -> int:
    """Number of lines that repeat an earlier letter (each must rhyme)."""
    return len(letters) - len(set(letters))


def score_scheme(
    words: tuple[str, ...],
    units: list[SchemeUnit],
    *,
    pattern_name: str = "",
    parts: tuple[range, ...] = (),
    lines: tuple[str, ...] | None = None,
    incidental_ok: bool = False,
    credits: dict[Rhyme, float] = RHYME_CREDIT,
) -> Scored:
    """Score lines against rhyme letters; letters are local to each unit.

    A line with an already-used letter must rhyme with an earlier line of that letter (its best
    rhyme credit counts); a line opening a new letter should *not* rhyme perfectly with an earlier
    line of another letter (an unexpected rhyme costs half a required rhyme). With `lines`, a line
    that repeats an earlier line word for word earns no rhyme credit from it: a copied line is a
    repetition, not a rhyme (refrains are credited by the refrain rules). With `parts` (octave and
    sestet), each part is also scored on its own and the score is the mean of the pooled score
    and the weaker part's, so a poem with the right octave and a different sestet does not pass
    on the octave's strength. With `incidental_ok` (stanzaic forms, three or more units),
    unexpected rhymes in fewer than half of the units are chance and forgiven.
    """
    credit_sum = 0.0
    required = 0
    unexpected = 0
    findings: list[Finding] = []
    surprises: list[Finding] = []
    # Per part (e.g. octave and sestet): [credit, required, unexpected].
    part_totals = [[0.0, 0, 0] for _ in parts]

    def tally(index: int, credit: float, is_required: bool) -> None:
        for k, part in enumerate(parts):
            if index in part:
                part_totals[k][0] += credit
                part_totals[k][1 if is_required else 2] += 1

    for unit in units:
        if unit.missing:
            required += unit.missing
            findings.append(
                Finding(
                    "rhyme",
                    tuple(i + 1 for i in unit.lines),
                    f"stanza at line {unit.lines[0] + 1 if unit.lines else '?'} is too short for "
                    f"the pattern: {unit.missing} rhyme(s) missing",
                )
            )
        seen: dict[str, list[int]] = {}
        for index, letter in zip(unit.lines, unit.letters, strict=False):
            word = words[index]
            earlier = seen.setdefault(letter, [])
            if earlier:
                required += 1
                best_credit, best_kind, best_j = 0.0, Rhyme.NONE, earlier[-1]
                copied_from = -1
                for j in earlier:
                    if lines is not None and same_words(lines[j], lines[index]):
                        copied_from = j
                        continue
                    kind = adapters.rhyme_kind(words[j], word)
                    if credits[kind] > best_credit:
                        best_credit, best_kind, best_j = credits[kind], kind, j
                credit_sum += best_credit
                tally(index, best_credit, True)
                if best_credit < REPORT_BELOW:
                    findings.append(
                        Finding(
                            "rhyme",
                            (best_j + 1, index + 1),
                            f"line {index + 1} repeats line {copied_from + 1} word for word; a "
                            f"repeated line is not a rhyme ({letter})"
                            if copied_from >= 0 and best_credit == 0.0
                            else f"lines {best_j + 1} and {index + 1} should rhyme ({letter}) but "
                            f"{words[best_j] or '-'!r} / {word or '-'!r} is {best_kind.value}",
                        )
                    )
            else:
                for other_letter, members in seen.items():
                    if other_letter == letter:
                        continue
                    hit = next(
                        (
                            j
                            for j in members
                            if adapters.rhyme_kind(words[j], word) is Rhyme.PERFECT
                        ),
                        None,
                    )
                    if hit is not None:
                        unexpected += 1
                        tally(index, 0.0, False)
                        surprises.append(
                            Finding(
                                "rhyme",
                                (hit + 1, index + 1),
                                f"line {index + 1} ({letter}) rhymes with line {hit + 1} "
                                f"({other_letter}): {words[hit]!r} / {word!r}, but the pattern "
                                "asks for a new rhyme",
                            )
                        )
                        break
            earlier.append(index)
    if incidental_ok and len(units) >= 3 and unexpected < len(units) / 2:
        # Extra rhymes in a minority of stanzas are chance (forgiven); in most, they are a
        # different pattern (ABAB written for ABCB) and count.
        unexpected, surprises = 0, []
        for k in range(len(part_totals)):
            part_totals[k][2] = 0
    denominator = required + UNEXPECTED_WEIGHT * unexpected
    if denominator == 0:
        return Scored(None, (), f"pattern {pattern_name} asks for no rhymes")
    score = credit_sum / denominator
    part_scores = [
        credit / (req + UNEXPECTED_WEIGHT * unexp)
        for credit, req, unexp in part_totals
        if req + UNEXPECTED_WEIGHT * unexp > 0
    ]
    if part_scores:
        score = 0.5 * score + 0.5 * min(part_scores)
    note = f"{pattern_name}: {credit_sum:.1f} of {required} required rhymes" + (
        f", {unexpected} unexpected" if unexpected else ""
    )
    return Scored(score, tuple(_cap(findings, "rhyme") + _cap(surprises, "rhyme")), note)


def stanzaic_units(poem: ParsedPoem, letters: str) -> list[list[SchemeUnit]]:
    """Candidate ways to lay a stanza pattern over the poem (stanza-aligned, continuous)."""
    period = minimal_period(letters)
    size = len(period)
    n = len(poem.lines)
    layouts: list[list[SchemeUnit]] = []
    full = required_rhymes(period)

    def unit(lines: tuple[int, ...], truncated: bool) -> SchemeUnit:
        letters = period[: len(lines)]
        return SchemeUnit(lines, letters, full - required_rhymes(letters) if truncated else 0)

    continuous = [
        unit(tuple(range(i, min(i + size, n))), n - i < size and n > size)
        for i in range(0, n, size)
    ]
    layouts.append(continuous)
    if poem.has_stanza_breaks:
        aligned: list[SchemeUnit] = []
        for stanza in poem.stanzas:
            for start in range(0, len(stanza), size):
                chunk = stanza[start : start + size]
                aligned.append(unit(tuple(chunk), len(chunk) < size))
        if aligned != continuous:
            layouts.append(aligned)
    return layouts


def best_scheme(
    words: tuple[str, ...],
    candidates: list[tuple[str, list[SchemeUnit]]],
    *,
    parts: tuple[range, ...] = (),
    lines: tuple[str, ...] | None = None,
    incidental_ok: bool = False,
    credits: dict[Rhyme, float] = RHYME_CREDIT,
) -> tuple[str, Scored]:
    """The best-scoring (name, layout) candidate; ties keep the earlier one."""
    best_name, best = candidates[0][0], Scored(None)
    best_value = -1.0
    for name, units in candidates:
        result = score_scheme(
            words,
            units,
            pattern_name=name,
            parts=parts,
            lines=lines,
            incidental_ok=incidental_ok,
            credits=credits,
        )
        value = -0.5 if result.score is None else result.score
        if value > best_value + 1e-9:
            best_name, best, best_value = name, result, value
    return best_name, best


def end_words(lines: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(end_word(line) for line in lines)


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


def score_meter(
    lines: tuple[str, ...], spec: MeterSpec, *, beat_cycle_starts: tuple[int, ...] = ()
) -> Scored:
    """Share of lines fitting a foot metre, or a beat pattern cycled from each stanza start."""
    if not lines:
        return Scored(None)
    findings: list[Finding] = []
    if spec.beats:
        starts = set(beat_cycle_starts) or {0}
        verdicts = _beat_credits(lines, spec.beats, spec.foot, starts)
        if spec.fallback_beats:
            fallback = _beat_credits(lines, spec.fallback_beats, spec.foot, starts)
            if 0.5 * sum(c for c, _ in fallback) > sum(c for c, _ in verdicts):
                verdicts = [(0.5 * c, b) for c, b in fallback]
        credits = [c for c, _ in verdicts]
        for i, (credit, expected) in enumerate(verdicts):
            if credit < REPORT_BELOW:
                findings.append(
                    Finding(
                        "meter",
                        (i + 1,),
                        f"line {i + 1} does not read with {expected} beats "
                        f"(about {adapters.beats(lines[i])})",
                    )
                )
    else:
        credits = []
        for i, line in enumerate(lines):
            fit = adapters.meter_fit(line, spec.foot, spec.feet)
            credit = _credit(fit)
            credits.append(credit)
            if credit < 1.0:
                findings.append(
                    Finding(
                        "meter",
                        (i + 1,),
                        f"line {i + 1} does not scan as {spec.name} "
                        f"({adapters.syllables(line)} syllables, {adapters.scansion(line) or '-'}, "
                        f"fit {fit:.2f})",
                    )
                )
    score = sum(credits) / len(credits)
    good = sum(1 for c in credits if c >= 1.0)
    return Scored(
        score, tuple(_cap(findings, "meter")), f"{good} of {len(credits)} lines fit {spec.name}"
    )


# -- repeated lines ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9']+")


@lru_cache(maxsize=65536)
def _tokens(line: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(line.lower().replace("’", "'")))


@lru_cache(maxsize=65536)
def same_words(line_a: str, line_b: str) -> bool:
    """Whether two lines have the same words (case and punctuation ignored)."""
    a = _tokens(line_a)
    return bool(a) and a == _tokens(line_b)


@lru_cache(maxsize=65536)
def repeat_similarity(line_a: str, line_b: str) -> float:
    """1.0 for the same words (case and punctuation ignored), less for near-repeats, 0 otherwise.

    A near-repeat (a refrain with a word or two changed) earns at most 0.85.
    """
    a, b = _tokens(line_a), _tokens(line_b)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    ratio = SequenceMatcher(None, a, b, autojunk=False).ratio()
    if ratio < 0.5:
        return 0.0
    return round(min(0.85, ratio), 3)


def score_repeats(
    lines: tuple[str, ...], pairs: list[tuple[int, int, str]], constraint: str
) -> Scored:
    """Mean repeat similarity of (source, copy, label) 0-based line pairs."""
    if not pairs:
        return Scored(None)
    findings: list[Finding] = []
    total = 0.0
    for source, copy, label in pairs:
        if source >= len(lines) or copy >= len(lines):
            findings.append(
                Finding(constraint, (source + 1,), f"{label}: line {copy + 1} is missing")
            )
            continue
        similarity = repeat_similarity(lines[source], lines[copy])
        total += similarity
        if similarity < 1.0:
            kind = "only a near-repeat of" if similarity > 0 else "does not repeat"
            findings.append(
                Finding(
                    constraint,
                    (source + 1, copy + 1),
                    f"{label}: line {copy + 1} {kind} line {source + 1}",
                )
            )
    return Scored(total / len(pairs), tuple(_cap(findings, constraint)))


# -- shared pieces of form rules ---------------------------------------------------------------


@dataclass(frozen=True)
class FormRequest:
    """What the poem was asked to be: a form, optionally a metre and a rhyme pattern."""

    form: str
    meter: MeterSpec | None = None
    rhyme: str | None = None  # normalised letters, e.g. 'ABABCDCDEFEFGG'


@dataclass
class FormOutcome:
    form_score: float | None = None
    rhyme_score: float | None = None
    meter_score: float | None = None
    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)

    def add(self, scored: Scored) -> None:
        self.findings.extend(scored.findings)


def line_count_score(n: int, expected: int) -> float:
    if n == expected:
        return 1.0
    return 0.5 if abs(n - expected) == 1 else 0.0


def count_finding(n: int, expected: int, form: str) -> list[Finding]:
    if n == expected:
        return []
    return [Finding("lines", (), f"a {form} has {expected} lines; this poem has {n}")]


def requested_meter(poem: ParsedPoem, request: FormRequest, outcome: FormOutcome) -> None:
    if request.meter is None:
        return
    starts = tuple(s[0] for s in poem.stanzas) if poem.has_stanza_breaks else ()
    scored = score_meter(poem.lines, request.meter, beat_cycle_starts=starts)
    outcome.meter_score = scored.score
    outcome.facts["meter"] = scored.note
    outcome.add(scored)


def global_rhyme(
    poem: ParsedPoem,
    letters: str,
    outcome: FormOutcome,
    name: str,
    *,
    parts: tuple[range, ...] = (),
) -> None:
    """Score the whole poem against one pattern (extra lines are ignored, missing ones fail)."""
    words = end_words(poem.lines)
    n = min(len(words), len(letters))
    missing = required_rhymes(letters) - required_rhymes(letters[:n])
    unit = SchemeUnit(tuple(range(n)), letters[:n], missing)
    scored = score_scheme(words, [unit], pattern_name=name, parts=parts, lines=poem.lines)
    outcome.rhyme_score = scored.score
    outcome.facts["rhyme"] = scored.note
    outcome.add(scored)
