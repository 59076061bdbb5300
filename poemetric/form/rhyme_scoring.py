"""Rhyme-scheme scoring: poem lines laid out in units of pattern letters, each scored by the
rhyme class of its end words (see `score_scheme`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, partial

from poemetric.form import adapters
from poemetric.form.adapters import RHYME_CREDIT, Rhyme
from poemetric.form.findings import REPORT_BELOW, Finding, Scored, cap_findings
from poemetric.form.parsing import ParsedPoem, end_word, minimal_period, words_of
from poemetric.form.phonetics import is_function_word
from poemetric.form.repeats import same_words
from poemetric.text.plural import counted

#: Weight of an unexpected perfect rhyme (a new letter that rhymes with an earlier one).
UNEXPECTED_WEIGHT = 0.5
#: Rhyme credits for folk forms (ballads): assonance and consonance rhymes (dwellin'/Allen,
#: keep/speak) are the norm of oral balladry, so they earn what a slant rhyme earns; the looser
#: slant rhymes of Dickinson's common measure (room/storm, day/eternity) earn partial credit.
FOLK_CREDIT: dict[Rhyme, float] = {
    **RHYME_CREDIT,
    Rhyme.NEAR: RHYME_CREDIT[Rhyme.SLANT],
    Rhyme.LOOSE: 0.5,
}


@dataclass(frozen=True)
class SchemeUnit:
    """Consecutive-or-not poem lines (0-based) checked against pattern letters, one per line."""

    lines: tuple[int, ...]
    letters: str
    #: Rhymes the full pattern asks for that this (truncated) unit cannot hold: counted as failed.
    missing: int = 0
    #: The letters findings name, one per line: the requested pattern's own (``DEFE`` for the
    #: second stanza of ``ABCB DEFE GHIH``, scored as ``ABCB``); empty: `letters`. Messages only.
    labels: str = field(default="", compare=False)
    #: The full pattern's length when this unit is a whole poem cut short (`global_rhyme`): its
    #: `missing` rhymes fall on lines of the form the poem lacks, and the finding says so.
    form_lines: int = 0

    def named(self, letter: str) -> str:
        """The letter a finding shows for `letter` of this unit."""
        return dict(zip(self.letters, self.labels, strict=False)).get(letter, letter)


def required_rhymes(letters: str) -> int:
    """Number of lines that repeat an earlier letter (each must rhyme)."""
    return len(letters) - len(set(letters))


def _shortfall(unit: SchemeUnit, pattern_name: str) -> Finding:
    """The finding for a unit too short to hold its pattern's `missing` rhymes."""
    rhymes = counted(unit.missing, "rhyme")
    if unit.form_lines:
        # A whole poem: no stanza of it is short, the poem is (a 13-line villanelle was told
        # its "stanza at line 1" was, and pointed at all 13 lines).
        n = len(unit.lines)
        place = f"line {n + 1}" if n + 1 == unit.form_lines else f"lines {n + 1}-{unit.form_lines}"
        return Finding(
            "rhyme",
            (),
            f"the poem has {counted(n, 'line')}, fewer than the "
            f"{unit.form_lines} of the rhyme pattern {pattern_name}: the {rhymes} it asks for "
            f"on {place} of the form {'is' if unit.missing == 1 else 'are'} missing",
        )
    start = unit.lines[0] + 1 if unit.lines else "?"
    return Finding(
        "rhyme",
        tuple(i + 1 for i in unit.lines),
        f"stanza at line {start} is too short for the pattern: {rhymes} missing",
    )


def score_scheme(
    words: tuple[str, ...],
    units: list[SchemeUnit],
    *,
    pattern_name: str = "",
    parts: tuple[range, ...] = (),
    lines: tuple[str, ...] | None = None,
    incidental_ok: bool = False,
    credits: dict[Rhyme, float] = RHYME_CREDIT,
    extra_rhymes_ok: bool = False,
    explain: bool = True,
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
    unexpected rhymes in fewer than half of the units are chance and forgiven; with
    `extra_rhymes_ok` (a stanza pattern chosen by the checker, none requested) they never cost:
    a ballad that rhymes more than ABCB asks is still a ballad. With `explain=False` the score
    and note are the same but no findings are written (`best_scheme` explains only the winner).
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
            if explain:
                findings.append(_shortfall(unit, pattern_name))
        seen: dict[str, list[int]] = {}
        shown = unit.named
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
                if explain and best_credit < REPORT_BELOW:
                    findings.append(
                        Finding(
                            "rhyme",
                            (best_j + 1, index + 1),
                            f"line {index + 1} repeats line {copied_from + 1} word for word; a "
                            f"repeated line is not a rhyme ({shown(letter)})"
                            if copied_from >= 0 and best_credit == 0.0
                            else f"lines {best_j + 1} and {index + 1} should rhyme "
                            f"({shown(letter)}) but {words[best_j] or '-'!r} / {word or '-'!r} "
                            + _fails_as(best_kind),
                        )
                    )
            else:
                for other_letter, members in seen.items():
                    if other_letter == letter:
                        continue
                    hit = next((j for j in members if adapters.perfect_rhyme(words[j], word)), None)
                    if hit is not None:
                        unexpected += 1
                        tally(index, 0.0, False)
                        if explain:
                            surprises.append(
                                Finding(
                                    "rhyme",
                                    (hit + 1, index + 1),
                                    f"line {index + 1} ({shown(letter)}) rhymes with line "
                                    f"{hit + 1} ({shown(other_letter)}): {words[hit]!r} / "
                                    f"{word!r}, but the "
                                    "pattern asks for a new rhyme",
                                )
                            )
                        break
            earlier.append(index)
    if extra_rhymes_ok or (incidental_ok and len(units) >= 3 and unexpected < len(units) / 2):
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
    return Scored(
        score, tuple(cap_findings(findings, "rhyme") + cap_findings(surprises, "rhyme")), note
    )


def stanzaic_units(poem: ParsedPoem, letters: str) -> list[list[SchemeUnit]]:
    """Candidate ways to lay a stanza pattern over the poem (stanza-aligned, continuous).

    Each unit is scored against the pattern's period (``ABCB`` for ``ABCB DEFE GHIH``); its
    findings name the letters of the pattern's own group in that place (``DEFE`` for the second
    unit), or the period's past the pattern's end."""
    period = minimal_period(letters)
    size = len(period)
    n = len(poem.lines)
    layouts: list[list[SchemeUnit]] = []
    full = required_rhymes(period)
    groups = [letters[i : i + size] for i in range(0, len(letters), size)]

    def unit(lines: tuple[int, ...], truncated: bool, place: int) -> SchemeUnit:
        letters = period[: len(lines)]
        labels = (groups[place] if place < len(groups) else period)[: len(lines)]
        missing = full - required_rhymes(letters) if truncated else 0
        return SchemeUnit(lines, letters, missing, labels)

    continuous = [
        unit(tuple(range(i, min(i + size, n))), n - i < size and n > size, i // size)
        for i in range(0, n, size)
    ]
    layouts.append(continuous)
    if poem.has_stanza_breaks:
        aligned: list[SchemeUnit] = []
        for stanza in poem.stanzas:
            for start in range(0, len(stanza), size):
                chunk = stanza[start : start + size]
                aligned.append(unit(tuple(chunk), len(chunk) < size, len(aligned)))
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
    extra_rhymes_ok: bool = False,
) -> tuple[str, Scored]:
    """The best-scoring (name, layout) candidate; ties keep the earlier one. Candidates are
    scored without findings and only the winner is scored again with them."""
    score = partial(
        score_scheme,
        words,
        parts=parts,
        lines=lines,
        incidental_ok=incidental_ok,
        credits=credits,
        extra_rhymes_ok=extra_rhymes_ok,
    )
    best_index, best = 0, Scored(None)
    best_value = -1.0
    for index, (name, units) in enumerate(candidates):
        result = score(units, pattern_name=name, explain=len(candidates) == 1)
        value = -0.5 if result.score is None else result.score
        if value > best_value + 1e-9:
            best_index, best, best_value = index, result, value
    name, units = candidates[best_index]
    if len(candidates) > 1 and best.score is not None:
        best = score(units, pattern_name=name)
    return name, best


def end_words(lines: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(end_word(line) for line in lines)


@lru_cache(maxsize=16384)
def rhyme_unit(line: str) -> str:
    """The end word of a line, or its last two words when it ends in an unstressed pronoun after
    a content word (``"hush her"``): a mosaic rhyme unit, scored both ways by `rhyme_kind`."""
    last = end_word(line)
    if last not in adapters.CLITIC_WEAK_FORMS:
        return last
    words = words_of(line)
    if len(words) < 2 or is_function_word(words[-2]):
        return last
    before = end_word(words[-2])
    return f"{before} {last}" if before else last


def rhyme_words(lines: tuple[str, ...]) -> tuple[str, ...]:
    """Rhyme units of the lines (end words, or mosaic units; see `rhyme_unit`)."""
    return tuple(rhyme_unit(line) for line in lines)


def _fails_as(kind: Rhyme) -> str:
    """How a required rhyme failed, in a poet's words: "do not" (rhyme), or "is only a loose
    rhyme" (a class that earns too little here); it read "'street' / 'bread' is none"."""
    return "do not" if kind is Rhyme.NONE else f"is only a {kind.value} rhyme"
