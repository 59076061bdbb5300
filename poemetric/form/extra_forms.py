"""Fixed forms beyond POEMetric's seven that poets (and prompts) name: ballade, double sestina.

*Ballade* (the French form, not the ballad): three stanzas of eight lines on the same three
rhymes, ``ababbcbC``, and an envoi ``bcbC``; the last line of the first stanza is a refrain that
closes every stanza and the envoi. The ten-line variant (``ababbccdcD`` + ``ccdcD``) is accepted.

*Double sestina*: twelve stanzas of twelve lines on the same twelve end words, each stanza's
order the previous one's taken from the outside in (12-1-11-2-10-3-9-4-8-5-7-6, the sestina's
*retrogradatio cruciata* for twelve words), and an envoi of six lines that holds all twelve
words. The rotation is judged stanza by stanza with the sestina's machinery (`sestina.Rotation`,
`judge_rotation`), its thresholds scaled to twelve words:

* a stanza with at most **four** end words out of place still rotates: the sestina's slips (two
  of six: a variant word, a substitution, one swapped pair) are a third of the stanza, and a
  twelve-line stanza has room for twice as many (two variant words and a swapped pair). Five or
  more out of place (more than a third) and the stanza **does not rotate**; a reversed stanza or
  a repeated order has all twelve out of place (12-1-11-2... leaves no word where it was), and
  another permutation matches it in about one place on average;
* an unrotated stanza costs **three fifths** of the order score (6.6 of its 11 stanza shares),
  as one costs 3 of 5 in the sestina, so one in an otherwise perfect double sestina gives form
  0.61 and fails in both forms; a stanza-share cost of 3, as in the sestina, would leave 0.82;
* a **rhymed double sestina** may reorder its words for its rhymes. The classic, Swinburne's
  *The Complaint of Lisa* (breath/death, way/day, bed/dead, thee/me, sun/done, her/sunflower),
  does not follow 12-1-11-2...: each of its stanzas opens with the previous stanza's last word
  and then its first, as the spiral does, and orders the other ten freely (stanza 2 is
  12-1-9-11-4-7-2-8-3-10-6-5 of stanza 1), leaving some where they were. A stanza that holds
  the twelve words, opens that way and repeats no earlier stanza's order, in a poem whose first
  stanza rhymes (`RHYMED_FROM` of its twelve words rhyme with another), earns
  `RHYME_ORDER_CREDIT` (0.8), so *Lisa* passes at 0.87. The sestina's rhymed reordering also
  asks that every word move and the rhyme scheme stay; *Lisa* does neither, so the double
  sestina does not ask it.
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
from poemetric.form.sestina import (
    Rotation,
    StanzaOrder,
    capped,
    held,
    rhyme_letters,
    rotation_order,
    word_order,
)

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
    refrains = score_repeats(poem.lines, pairs, "refrain", form_lines=expected)
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


#: The double sestina's rotation; the unrotated threshold and cost are explained above.
DOUBLE_SESTINA = Rotation(
    spiral(12), "12-1-11-2-10-3-9-4-8-5-7-6", 12, 5, 6.6, "twelve", "reorder for the rhyme"
)
#: A double sestina is rhymed when this many of its twelve end words rhyme with another of them
#: (two thirds: *Lisa* rhymes all twelve in pairs, of which the checker hears ten; her/sunflower
#: is an eye rhyme to it).
RHYMED_FROM = 8


def opens_the_spiral(stanza: StanzaOrder, words: tuple[str, ...]) -> bool:
    """A rhymed double sestina's reordering (Swinburne's *The Complaint of Lisa*): the stanza
    holds the twelve words, opens with the previous stanza's last word and then its first (as
    12-1-11-2... does) and repeats no earlier stanza's order; the first stanza rhymes."""
    first = words[:12]
    order = word_order(stanza.found, first)
    if sorted(k for k in order if k is not None) != list(range(12)):
        return False
    previous = word_order(words[stanza.start - 12 : stanza.start], first)
    if order[:2] != (previous[11], previous[0]):
        return False
    if order in {word_order(words[s : s + 12], first) for s in range(0, stanza.start, 12)}:
        return False
    letters = rhyme_letters(first)
    return sum(1 for letter in letters if letters.count(letter) > 1) >= RHYMED_FROM


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
    order_score = rotation_order(words, DOUBLE_SESTINA, opens_the_spiral, outcome)
    tail = {w.lower() for line in poem.lines[size * stanzas :] for w in words_of(line)}
    present = sum(1 for w in words[:size] if held(w, tail))
    envoi_score = present / size
    if envoi_score < 1.0:
        outcome.findings.append(
            Finding("envoi", (), f"the envoi holds {present} of the {size} end words")
        )
    outcome.form_score = 0.15 * count + 0.65 * order_score + 0.2 * envoi_score
    outcome.findings = capped(outcome.findings)
    if request.rhyme:
        global_rhyme(poem, request.rhyme, outcome, request.rhyme, end_words=True)
    requested_meter(poem, request, outcome)
    return outcome
