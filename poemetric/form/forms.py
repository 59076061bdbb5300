"""The seven fixed forms (POEMetric, Appendix A) as rules that score a parsed poem: the sonnet and
villanelle rules here, the others in their own modules (`ballad`, `special_forms`, `sestina`,
`extra_forms`), all gathered in `RULES`.

Each rule returns a `FormOutcome`: a form score (structure, refrains, end-word order...), a rhyme
score and a metre score (None where the form does not ask for one and none was requested), the
findings that explain any shortfall, and facts such as the rhyme scheme that matched best.

Rhyme patterns are stanza-local for stanzaic forms (ballad, pantoum, ghazal): ``ABCB`` is laid
over every quatrain with fresh letters. For fixed forms (sonnet, villanelle, limerick, sestina)
a pattern covers the whole poem.
"""

from __future__ import annotations

from collections.abc import Callable

from poemetric.form.adapters import MeterSpec, parse_meter
from poemetric.form.ballad import ballad_rule, fresh_letters
from poemetric.form.extra_forms import ballade_rule, double_sestina_rule
from poemetric.form.parsing import ParsedPoem
from poemetric.form.scheme_names import heard_scheme, name_scheme
from poemetric.form.scoring import (
    Finding,
    FormOutcome,
    FormRequest,
    SchemeUnit,
    Scored,
    best_scheme,
    count_finding,
    global_rhyme,
    line_count_score,
    requested_meter,
    rhyme_words,
    score_meter,
    score_scheme,
)
from poemetric.form.sestina import sestina_rule
from poemetric.form.special_forms import ghazal_rule, limerick_rule, pantoum_rule

FORMS = ("ballad", "ghazal", "limerick", "pantoum", "sestina", "sonnet", "villanelle")
#: Forms checked beyond POEMetric's seven (`poemetric.form.extra_forms`).
EXTRA_FORMS = ("ballade", "double sestina")
STANZAIC_FORMS = frozenset({"ballad", "pantoum", "ghazal"})


SONNET_SCHEMES: dict[str, str] = {
    "Shakespearean": "ABABCDCDEFEFGG",
    "Spenserian": "ABABBCBCCDCDEE",
    "Petrarchan (CDECDE)": "ABBAABBACDECDE",
    "Petrarchan (CDCDCD)": "ABBAABBACDCDCD",
    "Petrarchan (CDDCDC)": "ABBAABBACDDCDC",
    "Petrarchan (CDEDCE)": "ABBAABBACDEDCE",
    "Petrarchan (CDDCEE)": "ABBAABBACDDCEE",
    "Petrarchan (CDCDEE)": "ABBAABBACDCDEE",
    "Petrarchan (CDEEDC)": "ABBAABBACDEEDC",
    "Petrarchan (CDDECE)": "ABBAABBACDDECE",
    "Petrarchan (CDCEDE)": "ABBAABBACDCEDE",
    "Petrarchan (CDDCCD)": "ABBAABBACDDCCD",
    "Petrarchan (CDCDDC)": "ABBAABBACDCDDC",
    "Petrarchan (CCDEED)": "ABBAABBACCDEED",
    "Petrarchan (CCDDEE)": "ABBAABBACCDDEE",
    "Petrarchan (CDECED)": "ABBAABBACDECED",
    "Petrarchan (CDEDEC)": "ABBAABBACDEDEC",
    "Petrarchan (CDDEEC)": "ABBAABBACDDEEC",
    "Petrarchan, open octave (ABBACDDC ...)": "ABBACDDCEFEFGG",
    "Petrarchan, open octave (ABBACDDC EFGEFG)": "ABBACDDCEFGEFG",
    "Petrarchan, ABABABAB octave": "ABABABABCDECDE",
    "Petrarchan, ABABABAB octave (CDCDCD)": "ABABABABCDCDCD",
    "quatrain octave (ABABCDCD EFGEFG)": "ABABCDCDEFGEFG",
    "quatrain octave (ABABCDCD EFEFEF)": "ABABCDCDEFEFEF",
    "quatrain octave (ABABCDCD EEFGGF)": "ABABCDCDEEFGGF",
    "quatrain octave (ABABCDCD EFFEGG)": "ABABCDCDEFFEGG",
    "quatrain octave (ABBACDDC EFFEGG)": "ABBACDDCEFFEGG",
    "Spenserian-like (ABABBCBC CDCDCD)": "ABABBCBCCDCDCD",
}
#: A "free sonnet" (14 lines of pentameter whose rhyme is sustained but follows no canonical
#: scheme, as in many 19th-century sonnets) earns at most this rhyme score, below a canonical one.
FREE_SONNET_CREDIT = 0.8
VILLANELLE_SCHEME = "ABA" * 5 + "ABAA"
SONNET_METER = MeterSpec(name="iambic pentameter", foot="iambic", feet=5)


def sonnet_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = FormOutcome()
    expected = len(request.rhyme) if request.rhyme else 14
    n = len(poem.lines)
    outcome.form_score = line_count_score(n, expected)
    # A requested pattern of another length sets the count: "a sonnet has 12 lines" was false.
    named = "sonnet" if expected == 14 else "sonnet of the requested rhyme pattern"
    outcome.findings.extend(count_finding(n, expected, named))
    words = rhyme_words(poem.lines)
    # Octave and sestet (or quatrains and couplet) weigh equally: a wrong sestet fails.
    parts = (range(0, 8), range(8, max(n, expected))) if n >= 12 else ()
    if request.rhyme:
        global_rhyme(poem, request.rhyme, outcome, request.rhyme, parts=parts)
    else:
        m = min(n, 14)
        candidates = [
            (name, [SchemeUnit(tuple(range(m)), letters[:m])])
            for name, letters in SONNET_SCHEMES.items()
        ]
        name, scored = best_scheme(words, candidates, parts=parts, lines=poem.lines)
        free = free_sonnet_reading(poem) if n >= 12 else None
        if free is not None and (scored.score or 0.0) < (free[1].score or 0.0):
            letters, free_scored = free
            outcome.rhyme_score = free_scored.score
            outcome.facts["scheme"] = f"free sonnet {letters} (no canonical scheme fits better)"
            outcome.facts["rhyme"] = free_scored.note
            outcome.add(free_scored)
        else:
            label = f"{name} {SONNET_SCHEMES[name]}"
            name_scheme(outcome, words[:14], label, scored, form="sonnet")
    if request.meter_unscored:
        return outcome
    scored_meter = score_meter(poem.lines, request.meter or SONNET_METER)
    outcome.meter_score = scored_meter.score
    outcome.facts["meter"] = scored_meter.note
    outcome.add(scored_meter)
    return outcome


def free_sonnet_reading(poem: ParsedPoem) -> tuple[str, Scored] | None:
    """The poem's own rhyme scheme read as a free sonnet, or None when it is not one.

    The scheme is inferred from the end words (`heard_scheme`: perfect and slant rhymes, and
    identical words, within six lines share a letter; an eye rhyme does not). It
    counts when the rhyme is *sustained*: at least 6 of the octave's 8 lines and 4 of the
    sestet's rhyme with another line, and the poem is not rhymed couplets (at most three of the
    seven line pairs 1-2, 3-4 ... form a couplet of their own; heroic couplets are not a
    sonnet). Its score is FREE_SONNET_CREDIT x the mean credit of its rhymes.
    """
    words = rhyme_words(poem.lines[:14])
    letters = heard_scheme(words)
    counts = {letter: letters.count(letter) for letter in set(letters)}
    rhymed = [counts[letter] > 1 for letter in letters]
    octave, sestet = sum(rhymed[:8]), sum(rhymed[8:14])
    couplets = sum(
        1
        for k in range(0, len(letters) - 1, 2)
        if letters[k] == letters[k + 1] and counts[letters[k]] == 2
    )
    if octave < 6 or sestet < 4 or couplets > 3:
        return None
    scored = score_scheme(
        words, [SchemeUnit(tuple(range(len(letters))), letters)], lines=poem.lines
    )
    if scored.score is None:
        return None
    note = f"free sonnet {letters}: {scored.note.partition(': ')[2]}"
    return letters, Scored(FREE_SONNET_CREDIT * scored.score, scored.findings, note)


def villanelle_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    from poemetric.form.scoring import score_repeats

    outcome = FormOutcome()
    n = len(poem.lines)
    count = line_count_score(n, 19)
    outcome.findings.extend(count_finding(n, 19, "villanelle"))
    stanza_shape = 1.0
    if poem.has_stanza_breaks and poem.stanza_sizes != (3, 3, 3, 3, 3, 4):
        stanza_shape = 0.5
        outcome.findings.append(
            Finding(
                "stanzas",
                (),
                f"stanzas of {poem.stanza_sizes}, expected five tercets and a quatrain",
            )
        )
    pairs = [(0, i, "refrain A1") for i in (5, 11, 17)] + [
        (2, i, "refrain A2") for i in (8, 14, 18)
    ]
    refrains = score_repeats(poem.lines, pairs, "refrain", form_lines=19)
    outcome.add(refrains)
    outcome.form_score = 0.2 * count + 0.1 * stanza_shape + 0.7 * (refrains.score or 0.0)
    global_rhyme(
        poem, request.rhyme or VILLANELLE_SCHEME, outcome, request.rhyme or "ABA x5 + ABAA"
    )
    requested_meter(poem, request, outcome)
    return outcome


RULES: dict[str, Callable[[ParsedPoem, FormRequest], FormOutcome]] = {
    "ballade": ballade_rule,
    "double sestina": double_sestina_rule,
    "ballad": ballad_rule,
    "ghazal": ghazal_rule,
    "limerick": limerick_rule,
    "pantoum": pantoum_rule,
    "sestina": sestina_rule,
    "sonnet": sonnet_rule,
    "villanelle": villanelle_rule,
}

__all__ = [
    "FORMS",
    "RULES",
    "SONNET_SCHEMES",
    "FormOutcome",
    "FormRequest",
    "fresh_letters",
    "parse_meter",
]
