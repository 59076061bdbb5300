"""Rules for the forms built on repetition: ghazal, limerick and pantoum.

The sestina rule lives in `poemetric.form.sestina`; its names are re-exported here.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from poemetric.form import adapters
from poemetric.form.adapters import BEAT_METERS, MeterSpec
from poemetric.form.parsing import ParsedPoem, end_word, words_of
from poemetric.form.relayout import LineOrigins
from poemetric.form.same_word import word_family
from poemetric.form.scoring import (
    FOLK_CREDIT,
    Finding,
    FormOutcome,
    FormRequest,
    SchemeUnit,
    best_scheme,
    count_finding,
    global_rhyme,
    requested_meter,
    rhyme_words,
    score_meter,
    score_repeats,
    score_scheme,
    stanzaic_units,
)
from poemetric.form.sestina import RETROGRADATIO, same_end_word, sestina_rule
from poemetric.text.plural import plural

__all__ = [
    "RETROGRADATIO",
    "ghazal_rule",
    "limerick_rule",
    "pantoum_rule",
    "same_end_word",
    "sestina_rule",
    "word_family",
]

# -- ghazal -------------------------------------------------------------------------------------------


def _lower_words(line: str) -> tuple[str, ...]:
    return tuple(w.lower().replace("’", "'") for w in words_of(line))


def find_radif(lines: list[tuple[str, ...]]) -> tuple[tuple[str, ...], float]:
    """The longest end phrase (up to 5 words) shared by most couplet-closing lines, and its share."""
    best: tuple[tuple[str, ...], float] = ((), 0.0)
    if not lines or not lines[0]:
        return best
    reference = lines[1] if len(lines) > 1 and lines[1] else lines[0]
    for size in range(1, min(5, len(reference) - 1) + 1):
        phrase = reference[-size:]
        share = sum(1 for words in lines if words[-size:] == phrase) / len(lines)
        if share >= 0.6 or (size == 1 and share > best[1]):
            best = (phrase, share)
        else:
            break
    return best


def _before_radif(lines: tuple[str, ...], radif: tuple[str, ...]) -> tuple[str, ...]:
    """Rhyme words of the lines, where a line ending in the radif rhymes on the word before it
    (its qafia): a requested pattern's letters name the qafia rhymes, not the repeated radif."""
    words = list(rhyme_words(lines))
    for index, line in enumerate(lines):
        line_words = _lower_words(line)
        if radif and len(line_words) > len(radif) and line_words[-len(radif) :] == radif:
            words[index] = end_word(line_words[-len(radif) - 1])
    return tuple(words)


def ghazal_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = FormOutcome()
    n = len(poem.lines)
    couplets = (
        [s for s in poem.stanzas]
        if poem.has_stanza_breaks
        else [tuple(range(i, min(i + 2, n))) for i in range(0, n, 2)]
    )
    regular = sum(1 for c in couplets if len(c) == 2)
    # Every stanza of a ghazal is a couplet; each odd one costs twice its share (see ballads).
    structure = max(0.0, 1.0 - 2.0 * (len(couplets) - regular) / max(1, len(couplets)))
    if len(couplets) < 3:
        structure *= len(couplets) / 3
        outcome.findings.append(
            Finding("couplets", (), f"a ghazal has at least 3 couplets; found {len(couplets)}")
        )
    if regular < len(couplets):
        odd = [c[0] + 1 for c in couplets if len(c) != 2]
        outcome.findings.append(
            Finding(
                "couplets",
                tuple(odd[:8]),
                plural(len(odd), "a stanza that is not a couplet", "stanzas that are not couplets"),
            )
        )
    closing = [0, *(c[-1] for c in couplets if len(c) == 2)] if couplets else []
    closing = sorted(set(closing))
    closing_words = [_lower_words(poem.lines[i]) for i in closing]
    radif, share = find_radif(closing_words)
    if share < 0.6:
        radif = ()
    missing = [
        closing[k] + 1 for k, w in enumerate(closing_words) if radif and w[-len(radif) :] != radif
    ]
    if radif:
        outcome.facts["radif"] = " ".join(radif)
        if missing:
            outcome.findings.append(
                Finding(
                    "radif",
                    tuple(missing[:8]),
                    f"{plural(len(missing), 'line does', 'lines do')} not end with the radif "
                    f"{' '.join(radif)!r}",
                )
            )
    else:
        outcome.findings.append(
            Finding("radif", (), "no repeated end word or phrase (radif) across the couplets")
        )
    # The radif is the ghazal's defining repetition: like an odd stanza, each closing line
    # without it costs twice its share (one missing in eight keeps 0.75).
    radif_score = max(0.0, 1.0 - 2.0 * (1.0 - share)) if radif else 0.0
    # Couplets are the frame the radif hangs on: broken couplets scale the whole form score.
    outcome.form_score = structure * (0.4 + 0.6 * radif_score)
    # Qafia: the word before the radif rhymes in the matla and every couplet's closing line.
    qafia = tuple(
        (words[-len(radif) - 1] if len(words) > len(radif) else "")
        if radif
        else (words[-1] if words else "")
        for words in closing_words
    )
    if request.rhyme:
        letters = request.rhyme
        scored = best_scheme(
            _before_radif(poem.lines, radif),
            [(letters, layout) for layout in stanzaic_units(poem, letters)],
            lines=poem.lines,
        )[1]
    else:
        # English ghazals commonly carry a slant qafia (assonance, or consonance of the final
        # syllable: apple / angel) before an exact radif, so near rhymes earn the slant credit.
        # The qafia words stand at their own lines, so findings name the poem's line numbers.
        at_lines = [""] * n
        for index, word in zip(closing, qafia, strict=True):
            at_lines[index] = word
        scored = score_scheme(
            tuple(at_lines),
            [SchemeUnit(tuple(closing), "A" * len(qafia))],
            pattern_name="qafia",
            credits=FOLK_CREDIT,
        )
        scored = type(scored)(
            scored.score,
            tuple(Finding(f.constraint, f.lines, f.detail + " (qafia)") for f in scored.findings),
            scored.note,
        )
    outcome.rhyme_score = scored.score
    outcome.facts["rhyme"] = scored.note
    outcome.add(scored)
    requested_meter(poem, request, outcome)
    return outcome


# -- limerick -----------------------------------------------------------------------------------------

_SPLIT = re.compile(r"[,;:!.?—–-]\s+")


@lru_cache(maxsize=4096)
def split_lear_line(line: str) -> tuple[str, str] | None:
    """Split a merged limerick line ("..., ...") into halves whose end words rhyme, if possible."""
    candidates = [m.end() for m in _SPLIT.finditer(line)]
    words = words_of(line)
    if len(words) >= 4:
        # No punctuation: try every word boundary near the middle.
        spans = [m.end() for m in re.finditer(r"\s+", line)]
        candidates += spans[len(spans) // 3 : 2 * len(spans) // 3 + 1]
    best: tuple[float, tuple[str, str]] | None = None
    for cut in candidates:
        left, right = line[:cut].strip(), line[cut:].strip()
        if not words_of(left) or not words_of(right):
            continue
        kind = adapters.rhyme_kind(words_of(left)[-1].lower(), words_of(right)[-1].lower())
        credit = adapters.RHYME_CREDIT[kind] - abs(len(left) - len(right)) / (10 * len(line))
        if best is None or credit > best[0]:
            best = (credit, (left, right))
    return best[1] if best else None


#: Lear's layout read as a limerick's five lines: line 3 holds lines 3 and 4 of the five.
LEAR_ORIGINS = LineOrigins((1, 2, 3, 3, 4))


def lear_detail(detail: str) -> str:
    """A finding's text about the split poem, with the line numbers of Lear's 4-line layout
    ("line 5" is line 4; "line 4" the second half of line 3), as its `lines` are mapped."""
    return LEAR_ORIGINS.detail(detail)


def limerick_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = FormOutcome()
    lines = list(poem.lines)
    real_number = list(range(1, len(lines) + 1))
    lear = len(lines) == 4
    split = False
    if lear:
        halves = split_lear_line(lines[2])
        if halves is not None:
            lines = [lines[0], lines[1], halves[0], halves[1], lines[3]]
            real_number = [1, 2, 3, 3, 4]
            split = True
            outcome.facts["variant"] = "Lear (4 lines, line 3 with internal rhyme)"
    n = len(lines)
    expected = 5
    outcome.form_score = 1.0 if n == expected else 0.0 if abs(n - expected) > 1 else 0.4
    if n != expected:
        outcome.findings.extend(
            count_finding(len(poem.lines), 5, "limerick (or 4 in Lear's layout)")
        )
    virtual = ParsedPoem(lines=tuple(lines), stanzas=(tuple(range(n)),), has_stanza_breaks=False)
    letters = request.rhyme or "AABBA"
    # Lear's 4-letter pattern (AABA) printed on 5 lines: line 3's two halves are lines 3 and 4.
    if len(letters) == 4 and (lear or n == 5):
        letters = letters[:2] + letters[2] + letters[2] + letters[3]
    inner = FormOutcome()
    global_rhyme(virtual, letters, inner, letters)
    origins = LineOrigins(tuple(real_number))
    if not request.meter_unscored:
        # Lear's layout: the fact counts and names the poem's 4 lines, as the findings do.
        scored_meter = score_meter(
            virtual.lines,
            _limerick_meter(request.meter, lear=split),
            origins=origins if split else None,
        )
        inner.meter_score = scored_meter.score
        inner.facts["meter"] = scored_meter.note
        inner.add(scored_meter)
    outcome.rhyme_score, outcome.meter_score = inner.rhyme_score, inner.meter_score
    outcome.facts.update(inner.facts)
    # The texts name the poem's own lines, as `lines` does (they said "line 5" for line 4).
    findings, leads = origins.renamed(inner.findings, inner.leads)
    outcome.leads.update(leads)
    outcome.findings.extend(findings)
    return outcome


#: How the limerick's beats are named: on its five lines, and on Lear's four (line 3 split).
_BEATS_NAME = {
    False: "(3-3-2-2-3 beats)",
    True: "(beats 3, 3, 2 + 2, 3: line 3 holds the two short lines)",
}
_SHORTER_NAME = {False: "(lines 3-4 shorter)", True: "(line 3 holds two shorter lines)"}


def _limerick_meter(spec: MeterSpec | None, *, lear: bool = False) -> MeterSpec:
    """The metre a limerick is scanned in; its name says where the short lines are, in the
    poem's own lines when `lear` (Lear's layout, read as five lines)."""
    if spec is None or spec.beats:
        return spec or MeterSpec(
            name=f"limerick meter {_BEATS_NAME[lear]}",
            foot="anapestic",
            beats=BEAT_METERS["limerick meter"],
        )
    if spec.feet_choices and not set(spec.feet_choices) <= {2, 3}:
        return spec  # lengths a limerick does not have: each line scored by its best of them
    if spec.feet is None:
        # A foot alone ("anapestic", as limericks are often annotated), or the limerick's own
        # lengths ("anapestic trimeter / dimeter"): the limerick's beats in that foot. (An
        # assertion here stopped `form check` on the whole file.)
        return MeterSpec(
            name=f"{spec.name} limerick meter {_BEATS_NAME[lear]}",
            foot=spec.foot,
            beats=BEAT_METERS["limerick meter"],
        )
    long, short = spec.feet, max(1, spec.feet - 1)
    return MeterSpec(
        name=f"{spec.name} {_SHORTER_NAME[lear]}", beats=(long, long, short, short, long)
    )


# -- pantoum ------------------------------------------------------------------------------------------


def pantoum_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = FormOutcome()
    n = len(poem.lines)
    quatrains = (
        list(poem.stanzas)
        if poem.has_stanza_breaks
        else [tuple(range(i, min(i + 4, n))) for i in range(0, n, 4)]
    )
    regular = sum(1 for q in quatrains if len(q) == 4)
    structure = regular / max(1, len(quatrains))
    if len(quatrains) < 2:
        structure = 0.0
        outcome.findings.append(Finding("stanzas", (), "a pantoum needs at least two quatrains"))
    elif regular < len(quatrains):
        outcome.findings.append(
            Finding(
                "stanzas",
                tuple(q[0] + 1 for q in quatrains if len(q) != 4),
                plural(
                    len(quatrains) - regular,
                    "a stanza that is not a quatrain",
                    "stanzas that are not quatrains",
                ),
            )
        )
    pairs: list[tuple[int, int, str]] = []
    for prev, nxt in itertools.pairwise(quatrains):
        if len(prev) == 4 and len(nxt) == 4:
            pairs += [
                # In a poet's words ("chain (line 2 -> next line 1)" was the checker's).
                (prev[1], nxt[0], "a stanza's 2nd line returns as the next one's 1st"),
                (prev[3], nxt[2], "a stanza's 4th line returns as the next one's 3rd"),
            ]
    chain = score_repeats(poem.lines, pairs, "repetition")
    outcome.add(chain)
    closing_score = 0.0
    if len(quatrains) >= 2 and len(quatrains[0]) == 4 and len(quatrains[-1]) == 4:
        first, last = quatrains[0], quatrains[-1]
        swapped = score_repeats(
            poem.lines, [(first[2], last[1], "closing"), (first[0], last[3], "closing")], "closing"
        )
        same = score_repeats(
            poem.lines, [(first[0], last[1], "closing"), (first[2], last[3], "closing")], "closing"
        )
        best = max((swapped, same), key=lambda s: s.score or 0.0)
        closing_score = best.score or 0.0
        outcome.add(best)
        outcome.facts["closing"] = (
            "lines 3/1 of the first stanza" if best is swapped else "lines 1/3 of the first stanza"
        )
    chain_score = chain.score if chain.score is not None else 0.0
    outcome.form_score = 0.2 * structure + 0.6 * chain_score + 0.2 * closing_score
    if request.rhyme:
        words = rhyme_words(poem.lines)
        _name, scored = best_scheme(
            words,
            [(request.rhyme, lay) for lay in stanzaic_units(poem, request.rhyme)],
            lines=poem.lines,
        )
        outcome.rhyme_score = scored.score
        outcome.facts["rhyme"] = scored.note
        outcome.add(scored)
    requested_meter(poem, request, outcome)
    return outcome
