"""The rhyme pairs that earn part of a required rhyme's credit, named in the explanation.

`score_scheme` lists a pair only when it earns under half credit (`REPORT_BELOW`): a limerick
rhyming *Dundee* / *tree* / *knee-deep* scored rhyme 0.85 ("2.5 of 3") and no line was pointed
to. This module names the weakest pairs of half credit or more in one finding, read from the
letters the rule scored (the requested pattern, or the form's or the named scheme) with the
same rhyme classes and credits. It is explanation only: no score, verdict or other finding
depends on it. Forms whose letters are not end-word rhymes (sestinas, the ghazal's qafia before
its radif), the ballade, Lear's four-line limerick and ballads read at the caesura are left
alone.
"""

from __future__ import annotations

from poemetric.form import adapters
from poemetric.form.adapters import RHYME_CREDIT, Rhyme
from poemetric.form.findings import REPORT_BELOW, Finding
from poemetric.form.forms import SONNET_SCHEMES, VILLANELLE_SCHEME
from poemetric.form.parsing import ParsedPoem
from poemetric.form.repeats import same_words
from poemetric.form.rhyme_scoring import FOLK_CREDIT, SchemeUnit, rhyme_words, stanzaic_units
from poemetric.form.scoring import FormOutcome, FormRequest

#: Pairs named in the finding, weakest first; the rest are counted.
MAX_NAMED = 3
#: Opens the finding's detail (the summary quotes it after the rhyme count).
PREFIX = "partial rhymes"
_STANZAIC = {"ballad", "pantoum"}
_DEFAULT_LETTERS = {"limerick": "AABBA", "villanelle": VILLANELLE_SCHEME}
_KIND_NAMES = {Rhyme.IDENTICAL: "the same word"}


def scored_letters(request: FormRequest, outcome: FormOutcome) -> str | None:
    """The letters the form rule scored the rhyme against, when this module can tell them."""
    if request.form in {"sestina", "double sestina", "ghazal", "ballade"}:
        return None
    if "variant" in outcome.facts or "layout" in outcome.facts:
        return None  # Lear's 4 lines; long ballad lines split at the caesura
    if request.rhyme:
        return request.rhyme
    if request.form in _DEFAULT_LETTERS:
        return _DEFAULT_LETTERS[request.form]
    scheme = outcome.facts.get("scheme", "")
    if request.form == "ballad" and scheme.isalpha() and scheme.isupper():
        return scheme
    if request.form == "sonnet":
        if scheme.startswith("free sonnet "):
            return scheme.split()[2]
        for name, letters in SONNET_SCHEMES.items():
            if scheme == f"{name} {letters}":
                return letters
    return None


def _pairs(
    words: tuple[str, ...],
    lines: tuple[str, ...],
    units: list[SchemeUnit],
    credits: dict[Rhyme, float],
) -> list[tuple[float, int, int, Rhyme]]:
    """(credit, earlier line, line, class) of each required rhyme, as `score_scheme` credits
    it: the best credit over the earlier lines of its letter, a copied line earning none."""
    found: list[tuple[float, int, int, Rhyme]] = []
    for unit in units:
        seen: dict[str, list[int]] = {}
        for index, letter in zip(unit.lines, unit.letters, strict=False):
            earlier = seen.setdefault(letter, [])
            if earlier:
                best = (0.0, earlier[-1], index, Rhyme.NONE)
                for j in earlier:
                    if same_words(lines[j], lines[index]):
                        continue
                    kind = adapters.rhyme_kind(words[j], words[index])
                    if credits[kind] > best[0]:
                        best = (credits[kind], j, index, kind)
                found.append(best)
            earlier.append(index)
    return found


def partial_rhyme_finding(
    poem: ParsedPoem, request: FormRequest, outcome: FormOutcome
) -> Finding | None:
    """One `rhyme` finding naming the weakest required rhymes that earn half credit or more
    but not full credit, when the rhyme score is below 1; None when there are none."""
    if outcome.rhyme_score is None or outcome.rhyme_score >= 1.0:
        return None
    letters = scored_letters(request, outcome)
    if not letters:
        return None
    words = rhyme_words(poem.lines)
    credits = FOLK_CREDIT if request.form == "ballad" else RHYME_CREDIT
    n = len(poem.lines)
    layouts = (
        stanzaic_units(poem, letters)
        if request.form in _STANZAIC
        else [[SchemeUnit(tuple(range(min(n, len(letters)))), letters[:n])]]
    )
    # Of several layouts, the one whose rhymes earn most (as the rule keeps the best).
    scored = [_pairs(words, poem.lines, units, credits) for units in layouts]
    pairs = max(scored, key=lambda found: sum(credit for credit, *_ in found) / max(1, len(found)))
    partial = sorted(
        (pair for pair in pairs if REPORT_BELOW <= pair[0] < 1.0), key=lambda p: (p[0], p[2])
    )
    if not partial:
        return None
    named = [
        f"lines {j + 1} and {i + 1}, {words[j]!r} / {words[i]!r} ({_KIND_NAMES.get(kind, kind.value + ' rhyme')}, "
        f"{credit:.2f})"
        for credit, j, i, kind in partial[:MAX_NAMED]
    ]
    more = len(partial) - MAX_NAMED
    detail = f"{PREFIX} (part of a rhyme's credit), weakest first: " + "; ".join(named)
    if more > 0:
        detail += f"; {more} more"
    lines = tuple(sorted({n for _, j, i, _ in partial[:MAX_NAMED] for n in (j + 1, i + 1)}))
    return Finding("rhyme", lines, detail)
