"""Fixed forms beyond POEMetric's seven that poets (and prompts) name: ballade, double sestina.

*Ballade* (the French form, not the ballad): three stanzas of eight lines on the same three
rhymes, ``ababbcbC``, and an envoi ``bcbC``; the last line of the first stanza is a refrain that
closes every stanza and the envoi. The ten-line variant (``ababbccdcD`` + ``ccdcD``) is accepted.

*Double sestina* (Swinburne's *The Complaint of Lisa*): twelve stanzas of twelve lines on the
same twelve end words, each stanza's order the previous one's taken from the outside in
(12-1-11-2-10-3-9-4-8-5-7-6), and an envoi of six lines that holds all twelve words.
"""

from __future__ import annotations

from poemetric.form.parsing import ParsedPoem, words_of
from poemetric.form.scoring import (
    Finding,
    FormOutcome,
    FormRequest,
    count_finding,
    end_words,
    global_rhyme,
    requested_meter,
    score_repeats,
)
from poemetric.form.sestina import same_end_word, word_family

BALLADE_SHAPES = {
    8: ("ABABBCBC" * 3 + "BCBC", 4),
    10: ("ABABBCCDCD" * 3 + "CCDCD", 5),
}


def ballade_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = FormOutcome()
    n = len(poem.lines)
    stanza = 10 if n in (35, 34, 36) else 8
    letters, envoi = BALLADE_SHAPES[stanza]
    expected = 3 * stanza + envoi
    count = 1.0 if n == expected else 0.5 if abs(n - expected) == 1 else 0.0
    outcome.findings.extend(count_finding(n, expected, "ballade"))
    refrain_lines = [stanza - 1 + k * stanza for k in (1, 2)] + [expected - 1]
    pairs = [(stanza - 1, line, "refrain") for line in refrain_lines]
    refrains = score_repeats(poem.lines, pairs, "refrain")
    outcome.add(refrains)
    outcome.form_score = 0.3 * count + 0.7 * (refrains.score or 0.0)
    outcome.facts["shape"] = f"3 x {stanza} lines + envoi of {envoi}, refrain line {stanza}"
    global_rhyme(poem, request.rhyme or letters, outcome, request.rhyme or letters)
    requested_meter(poem, request, outcome)
    return outcome


def spiral(size: int) -> tuple[int, ...]:
    """Retrogradatio cruciata for `size` words: last, first, second-last, second... (0-based)."""
    order: list[int] = []
    low, high = 0, size - 1
    while low <= high:
        order.append(high)
        if low != high:
            order.append(low)
        low, high = low + 1, high - 1
    return tuple(order)


def double_sestina_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = FormOutcome()
    size, stanzas, envoi = 12, 12, 6
    expected = size * stanzas + envoi
    n = len(poem.lines)
    words = end_words(poem.lines)
    count = 1.0 if n == expected else 0.5 if abs(n - expected) <= 2 else 0.0
    outcome.findings.extend(count_finding(n, expected, "double sestina"))
    if n < 2 * size:
        outcome.form_score = 0.0
        requested_meter(poem, request, outcome)
        return outcome
    current = list(words[:size])
    distinct = len({word_family(w) for w in current})
    order = spiral(size)
    credits: list[float] = []
    misplaced: list[int] = []
    for stanza in range(1, stanzas):
        wanted = [current[k] for k in order]
        for offset, want in enumerate(wanted):
            index = stanza * size + offset
            got = words[index] if index < n else ""
            if same_end_word(got, want):
                credits.append(1.0)
            else:
                credits.append(0.5 if any(same_end_word(got, w) for w in current) else 0.0)
                misplaced.append(index + 1)
        current = wanted
    if misplaced:
        outcome.findings.append(
            Finding(
                "end words",
                tuple(misplaced[:8]),
                f"{len(misplaced)} line(s) do not end with the word the 12-1-11-2... order asks",
            )
        )
    order_score = sum(credits) / len(credits) * distinct / size
    tail = [w.lower() for line in poem.lines[size * stanzas :] for w in words_of(line)]
    families = {word_family(w) for w in tail}
    present = sum(1 for w in words[:size] if word_family(w) in families)
    envoi_score = present / size
    if envoi_score < 1.0:
        outcome.findings.append(
            Finding("envoi", (), f"the envoi holds {present} of the {size} end words")
        )
    outcome.form_score = 0.15 * count + 0.65 * order_score + 0.2 * envoi_score
    if request.rhyme:
        global_rhyme(poem, request.rhyme, outcome, request.rhyme)
    requested_meter(poem, request, outcome)
    return outcome
