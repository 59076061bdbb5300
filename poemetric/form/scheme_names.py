"""The rhyme scheme a form rule reports in `facts["scheme"]`, or that none fits.

With no pattern requested, the sonnet and ballad rules score a poem against each of their
canonical schemes and keep the best. That scheme is named only when it fits: below
`MIN_NAMED_SCHEME_FIT` the poem is said to have "no sustained rhyme scheme" (fewer than half of
its lines rhyme with another within six lines: free verse, prose, blank verse) or, when its
lines do rhyme, "no <form> rhyme scheme fits" (rhymed couplets read as a sonnet). The closest
scheme is then named as such in `facts["rhyme"]` and in a first rhyme finding, which the
summary quotes. Scores and verdicts do not depend on the name.

`heard_scheme` is the poem's own scheme as the free-sonnet reading infers it, with perfect and
slant rhymes (and identical words) sharing a letter; an eye rhyme does not, as in the letters of
`poemetric form scan` (`poemetric.form.scan_letters`).
"""

from __future__ import annotations

from collections.abc import Sequence

from poemetric.form.findings import Finding, Scored
from poemetric.form.rhyme import infer_scheme
from poemetric.form.scoring import FormOutcome
from poemetric.text.plural import plural

#: Below this rhyme score the closest canonical scheme is not named as the poem's scheme. In
#: bench/data free verse, prose and blank verse reach at most 0.33 with their closest sonnet
#: scheme and 0.43 with their closest ballad scheme, rhymed couplets 0.43 as sonnets; every
#: sonnet a canonical scheme names there scores over 0.73, every ballad 0.5 or more (one
#: hold-out Dickinson poem exactly 0.5).
MIN_NAMED_SCHEME_FIT = 0.5
#: Lines looked back for a rhyme when a poem's own scheme is inferred.
SCHEME_WINDOW = 6


def heard_scheme(words: Sequence[str]) -> str:
    """One letter per end word: the letter of its strongest perfect or slant rhyme (or the
    same word) among the previous `SCHEME_WINDOW` lines, else a new one."""
    return infer_scheme(words, window=SCHEME_WINDOW, allow_eye=False)


def rhymed_share(words: Sequence[str]) -> float:
    """Share of the end words that rhyme with another within six lines (`heard_scheme`): under
    half, a poem has no sustained rhyme."""
    letters = heard_scheme(words)
    return sum(letters.count(letter) > 1 for letter in letters) / max(1, len(letters))


def name_scheme(
    outcome: FormOutcome, words: Sequence[str], label: str, scored: Scored, *, form: str
) -> None:
    """Record the best canonical scheme's score and findings in `outcome`, naming it `label`
    in `facts["scheme"]` when it fits (see the module docstring) and saying so otherwise."""
    outcome.rhyme_score = scored.score
    if (scored.score or 0.0) >= MIN_NAMED_SCHEME_FIT:
        outcome.facts["scheme"] = label
        outcome.facts["rhyme"] = scored.note
    else:
        # The closest scheme is not the poem's: free verse was called "Spenserian-like".
        unnamed = (
            f"no {form} rhyme scheme fits"
            if rhymed_share(words) >= 0.5
            else "no sustained rhyme scheme"
        )
        # A pattern cut to the poem's few lines may ask for no rhyme ("pattern X asks for no
        # rhymes", no "name: ..." count): the clause said "has " and stopped there.
        counted = scored.note.partition(": ")[2]
        closest = f"the closest {form} scheme, {label}, " + (
            f"has {counted}"
            if counted
            else f"asks for no rhyme in {len(words)} {plural(len(words), 'line')}"
        )
        outcome.facts["scheme"] = unnamed
        outcome.facts["rhyme"] = f"{unnamed} ({closest})"
        outcome.findings.append(Finding("rhyme", (), f"{unnamed}: {closest}"))
    outcome.add(scored)
