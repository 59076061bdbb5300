"""The ballad rule: rhyme over each quatrain, stanza sizes, line-length regularity.

Ballad stanzas printed as long lines (fourteeners) are also read split at the caesura, and the
better-rhymed reading is kept (`split_fourteeners`).
"""

from __future__ import annotations

import re
import statistics

from poemetric.form.parsing import ParsedPoem, minimal_period, repeated_group
from poemetric.form.relayout import LineOrigins
from poemetric.form.scheme_names import name_scheme
from poemetric.form.scoring import (
    FOLK_CREDIT,
    Finding,
    FormOutcome,
    FormRequest,
    best_scheme,
    requested_meter,
    rhyme_words,
    stanzaic_units,
)
from poemetric.text.plural import counted, plural

BALLAD_SCHEMES = ("ABCB", "ABAB", "AABB")

#: A ballad line this long (in syllables) is a fourteener: two ballad lines printed as one.
FOURTEENER_SYLLABLES = 12
_CAESURA = re.compile(r"[,;:!?.—–-]\s+")


def caesura_split(line: str) -> tuple[str, str] | None:
    """Split a long line at the punctuation nearest its middle (else the middle word gap)."""
    middle = len(line) / 2
    cuts = [m.end() for m in _CAESURA.finditer(line) if 0.25 < m.end() / len(line) < 0.75]
    if not cuts:
        cuts = [m.end() for m in re.finditer(r"\s+", line)]
    if not cuts:
        return None
    cut = min(cuts, key=lambda c: abs(c - middle))
    left, right = line[:cut].strip(), line[cut:].strip()
    return (left, right) if left and right else None


def split_fourteeners(poem: ParsedPoem) -> tuple[ParsedPoem, list[int]] | None:
    """The poem with its long lines split at the caesura, and each new line's 1-based source.

    Ballad stanzas are often printed as long lines (fourteeners, or 4+3-beat pairs with an
    internal rhyme); the rhyme pattern then belongs to the half-lines. None when the poem's
    lines are not mostly long.
    """
    from poemetric.form.adapters import syllables

    counts = [syllables(line) for line in poem.lines]
    if not counts or statistics.median(counts) < FOURTEENER_SYLLABLES:
        return None
    lines: list[str] = []
    origin: list[int] = []
    stanzas: list[tuple[int, ...]] = []
    for stanza in poem.stanzas:
        indices: list[int] = []
        for i in stanza:
            halves = caesura_split(poem.lines[i]) if counts[i] >= FOURTEENER_SYLLABLES else None
            for part in halves or (poem.lines[i],):
                indices.append(len(lines))
                lines.append(part)
                origin.append(i + 1)
        stanzas.append(tuple(indices))
    split = ParsedPoem(tuple(lines), tuple(stanzas), poem.has_stanza_breaks, poem.notes)
    return split, origin


def ballad_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = _ballad_reading(poem, request)
    split = split_fourteeners(poem)
    if split is not None:
        halves, origin = split
        origins = LineOrigins(tuple(origin))
        # The metre fact counts the poem's lines, a long line fitting when both its halves
        # do (it counted the half-lines: "8 of 16 lines fit" for 8 lines).
        other = _ballad_reading(halves, request, origins=origins)
        if (other.rhyme_score or 0.0) > (outcome.rhyme_score or 0.0) + 1e-9:
            # Findings, their texts and the summary's lead name the poem's lines: the texts
            # and the lead named the half-lines ("line 16" in an 8-line poem).
            other.findings, other.leads = origins.renamed(other.findings, other.leads)
            other.facts["layout"] = "long lines read as two ballad lines (split at the caesura)"
            if "meter" in other.facts:
                other.facts["meter"] += " (a long line fits when both its halves do)"
            return other
    return outcome


def _ballad_reading(
    poem: ParsedPoem, request: FormRequest, *, origins: LineOrigins | None = None
) -> FormOutcome:
    outcome = FormOutcome()
    words = rhyme_words(poem.lines)
    schemes = (request.rhyme,) if request.rhyme else BALLAD_SCHEMES
    candidates = [(scheme, layout) for scheme in schemes for layout in stanzaic_units(poem, scheme)]
    name, scored = best_scheme(
        words,
        candidates,
        lines=poem.lines,
        incidental_ok=True,
        credits=FOLK_CREDIT,
        extra_rhymes_ok=request.rhyme is None and len(poem.lines) >= 8,
    )
    if request.rhyme:
        outcome.rhyme_score = scored.score
        outcome.facts["rhyme"] = scored.note
        outcome.facts["scheme"] = name
        outcome.add(scored)
        _note_repeated_letters(outcome, poem, words, request.rhyme)
    else:  # the best of BALLAD_SCHEMES is named only when it fits
        name_scheme(outcome, words, name, scored, form="ballad")
    period = len(minimal_period(name))
    n = len(poem.lines)
    if n < 4:
        outcome.form_score = 0.0
        outcome.findings.append(Finding("stanzas", (), f"a ballad needs quatrains; only {n} lines"))
    else:
        structure, odd_finding = stanza_discipline(poem, (period, 4), "ballad")
        if odd_finding:
            outcome.findings.append(odd_finding)
        regularity, irregular = _length_regularity(poem)
        if irregular:
            outcome.findings.append(
                Finding(
                    "line length",
                    tuple(irregular[:8]),
                    f"{counted(len(irregular), 'line')} {plural(len(irregular), 'is', 'are')} much "
                    f"longer or shorter than {plural(len(irregular), 'its', 'their')} neighbours",
                )
            )
        outcome.form_score = STRUCTURE_WEIGHT * structure + (1 - STRUCTURE_WEIGHT) * regularity
    requested_meter(poem, request, outcome, origins=origins)
    return outcome


def _note_repeated_letters(
    outcome: FormOutcome, poem: ParsedPoem, words: tuple[str, ...], letters: str
) -> None:
    """A requested `ABCB ABCB ABCB` asks every stanza for the same rhymes (a letter is one rhyme
    wherever it stands), which a ballad seldom means: when fresh rhymes in each stanza score
    better, say so and how to ask for them. The score stays the one asked for."""
    group = repeated_group(letters)
    if group is None or outcome.rhyme_score is None:
        return
    layouts = [(group, layout) for layout in stanzaic_units(poem, group)]
    _name, fresh = best_scheme(
        words, layouts, lines=poem.lines, incidental_ok=True, credits=FOLK_CREDIT
    )
    if fresh.score is not None and fresh.score > outcome.rhyme_score + 0.05:
        outcome.findings.insert(
            0,  # first: a failing rhyme score is summed up by its first finding
            Finding(
                "rhyme",
                (),
                f"the pattern repeats {group} with the same letters, so every stanza must rhyme "
                f"with the first (rhyme {outcome.rhyme_score:.2f}); with new rhymes in each "
                f"stanza it scores {fresh.score:.2f}: to ask for that, write {group} (one "
                f"stanza's pattern) or {fresh_letters(group, len(letters) // len(group))}",
            ),
        )


def fresh_letters(group: str, stanzas: int) -> str:
    """`ABCB` as new letters in each of `stanzas` stanzas: `ABCB DEFE GHIH ...` (three shown).
    A bare `write ABCB` read as the pattern just refused; the spelled-out form says how."""
    distinct = sorted(set(group))
    shown = []
    for stanza in range(min(stanzas, 3)):
        shift = stanza * len(distinct)
        if ord(distinct[-1]) + shift > ord("Z"):
            break
        shown.append("".join(chr(ord(letter) + shift) for letter in group))
    return " ".join(shown) + (" ..." if stanzas > len(shown) else "")


#: Share of a ballad's form score that comes from its stanza sizes (the rest: line lengths).
STRUCTURE_WEIGHT = 0.7


def stanza_discipline(
    poem: ParsedPoem, units: tuple[int, ...], form: str
) -> tuple[float, Finding | None]:
    """Score stanza sizes against the form's stanza units (e.g. quatrains for a ballad).

    A stanza is regular when its size is a multiple of one of `units` (an eight-line stanza is
    two quatrains). A poem without blank lines is read as consecutive units of the first size,
    so a leftover tail (a final couplet after quatrains) is an irregular stanza. Each irregular
    stanza costs twice its share: one odd stanza in four gives 0.5, because a 5-line or 3-line
    "quatrain" is the mark of an added or dropped line, not a variant of the form. A shorter last
    stanza costs its share once (a closing coda is a known variant).
    """
    sizes = [u for u in units if u > 0]
    if poem.has_stanza_breaks:
        stanzas = [len(s) for s in poem.stanzas]
        starts = [s[0] for s in poem.stanzas]
    else:
        n, step = len(poem.lines), sizes[0]
        stanzas = [min(step, n - i) for i in range(0, n, step)]
        starts = list(range(0, n, step))
    odd = [k for k, size in enumerate(stanzas) if not any(size % u == 0 for u in sizes)]
    if not odd:
        return 1.0, None
    # A shorter closing stanza (a coda) is a known variant: it costs its share only once.
    cost = sum(1.0 if k == len(stanzas) - 1 and stanzas[k] < max(sizes) else 2.0 for k in odd)
    score = max(0.0, 1.0 - cost / len(stanzas))
    shown = ", ".join(f"{k + 1} ({stanzas[k]} lines)" for k in odd[:8])
    unit_names = " or ".join(f"{u}-line" for u in sorted(set(sizes)))
    return score, Finding(
        "stanzas",
        tuple(starts[k] + 1 for k in odd[:8]),
        f"{form} {plural(len(odd), 'stanza')} {shown} {plural(len(odd), 'is', 'are')} not made of "
        f"{unit_names} units",
    )


def _length_regularity(poem: ParsedPoem) -> tuple[float, list[int]]:
    """Share of lines whose syllable count is close to the median of lines at the same parity."""
    from poemetric.form.adapters import syllables

    counts = [syllables(line) for line in poem.lines]
    medians = [statistics.median(counts[p::2]) if counts[p::2] else 0 for p in (0, 1)]
    irregular = []
    for i, count in enumerate(counts):
        expected = medians[i % 2]
        if abs(count - expected) > max(2.0, 0.3 * expected):
            irregular.append(i + 1)
    return 1.0 - len(irregular) / max(1, len(counts)), irregular
