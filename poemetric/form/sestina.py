"""The sestina rule: six stanzas of six lines on the same six end words, and an envoi.

Each stanza takes the previous one's end words in the order 6-1-5-2-4-3 (*retrogradatio
cruciata*); the three-line envoi holds all six words. The rotation is the form's defining rule,
so it is judged stanza by stanza:

* a stanza **rotates** when at most two of its six end words are not where the order puts them.
  One or two misses are slips that cost their lines' credit only: a variant form the matching
  does not hear as the same word (Kipling's *along* for *long*), a substituted word, one swapped
  pair. Inflections (*night*/*nights*) and homophones (*night*/*knight*) count as the same word;
* a stanza with three or more misses **does not rotate** (it repeats the previous stanza's order,
  or takes another one): it earns nothing and costs two more stanzas' share of the order score,
  so one such stanza in five fails the form (0.61 for an otherwise perfect sestina);
* a **rhymed sestina** may reorder its words to keep its rhyme scheme, as Swinburne's *Sestina*
  (day/way/may, night/light/delight alternate in every stanza) does: a stanza that holds the six
  words, opens with the previous stanza's last one, moves every one of them, keeps the first
  stanza's rhyme scheme and repeats no earlier stanza's order earns `RHYME_ORDER_CREDIT`.

A stanza is compared with the order taken from the previous stanza as written and with the
order the 6-1-5-2-4-3 sequence gives from the first stanza, whichever it follows better: one
wrong stanza is one error, whether the poet went on from it or went back to the sequence.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from poemetric.form import adapters
from poemetric.form.parsing import ParsedPoem, words_of
from poemetric.form.phonetics import pronunciations
from poemetric.form.scoring import (
    Finding,
    FormOutcome,
    FormRequest,
    count_finding,
    end_words,
    global_rhyme,
    requested_meter,
)

RETROGRADATIO = (5, 0, 4, 1, 3, 2)  # next stanza's end words: 6-1-5-2-4-3 of the previous
ORDER_NAME = "6-1-5-2-4-3"
#: A stanza with this many end words out of their place (or none of the six) does not rotate.
UNROTATED_FROM = 3
#: Stanza shares of the order score an unrotated stanza costs: its own and two more.
UNROTATED_COST = 3.0
#: Credit of a rhymed sestina's stanza that reorders its words to keep the rhyme scheme.
RHYME_ORDER_CREDIT = 0.8
_SUFFIXES = ("ing", "ed", "es", "s", "'s", "ly", "er", "est", "d")


@lru_cache(maxsize=65536)
def word_family(word: str) -> str:
    """A crude stem so that inflected end words (home/homes, wait/waiting) match."""
    word = word.lower().replace("’", "'")
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word.rstrip("e")


def same_end_word(a: str, b: str) -> bool:
    """The same end word: the same word, an inflection (nights, mothers) or a homophone (knight)."""
    if not a or not b:
        return False
    a, b = a.lower().replace("’", "'"), b.lower().replace("’", "'")
    # One suffix is stripped: 'mothers' is 'mother' + s, whose own family is 'moth'.
    if not {a, word_family(a)}.isdisjoint({b, word_family(b)}):
        return True
    kind = adapters.rhyme_kind(a, b)
    if kind is adapters.Rhyme.IDENTICAL:
        return True
    return kind is adapters.Rhyme.PERFECT and not set(pronunciations(a)).isdisjoint(
        pronunciations(b)
    )


def rotate(words: tuple[str, ...]) -> tuple[str, ...]:
    """The next stanza's end words: 6-1-5-2-4-3 of `words`."""
    return tuple(words[k] for k in RETROGRADATIO)


def rhyme_letters(words: tuple[str, ...]) -> str:
    """The rhyme scheme of end words (perfect, slant or historical rhymes), e.g. 'ABABAB'."""
    letters: list[str] = []
    for i, word in enumerate(words):
        partner = next(
            (
                letters[j]
                for j in range(i)
                if adapters.RHYME_CREDIT[adapters.rhyme_kind(words[j], word)]
                >= adapters.RHYME_CREDIT[adapters.Rhyme.SLANT]
            ),
            None,
        )
        letters.append(partner or chr(ord("A") + len(set(letters))))
    return "".join(letters)


@dataclass(frozen=True)
class StanzaOrder:
    """How one stanza (the 2nd to the 6th) follows the rotation."""

    number: int  # 1-based stanza number
    start: int  # 0-based index of its first line
    found: tuple[str, ...]
    expected: tuple[str, ...]
    reference: str  # where `expected` comes from
    credits: tuple[float, ...]  # per line: 1 in place, 0.5 one of the six elsewhere, 0 neither
    complete: bool  # all six lines are there

    @property
    def misses(self) -> tuple[int, ...]:
        return tuple(k for k, credit in enumerate(self.credits) if credit < 1.0)

    @property
    def rotates(self) -> bool:
        return len(self.misses) < UNROTATED_FROM


def _credits(found: tuple[str, ...], wanted: tuple[str, ...], six: tuple[str, ...]) -> list[float]:
    return [
        1.0 if same_end_word(got, want) else 0.5 if any(same_end_word(got, w) for w in six) else 0.0
        for got, want in zip(found, wanted, strict=True)
    ]


def stanza_orders(words: tuple[str, ...]) -> list[StanzaOrder]:
    """Stanzas 2-6 against the best of their two references (see the module docstring)."""
    six = words[:6]
    canonical = six
    padded = words + ("",) * max(0, 36 - len(words))  # a short poem's missing lines end in ''
    orders: list[StanzaOrder] = []
    for number in range(2, 7):
        start = (number - 1) * 6
        found = padded[start : start + 6]
        canonical = rotate(canonical)
        references = [
            (rotate(padded[start - 6 : start]), f"{ORDER_NAME} of stanza {number - 1}"),
            (canonical, f"the {ORDER_NAME} sequence from stanza 1"),
        ]
        best = max(
            ((wanted, name, _credits(found, wanted, six)) for wanted, name in references),
            key=lambda ref: sum(ref[2]),
        )
        orders.append(
            StanzaOrder(
                number, start, found, best[0], best[1], tuple(best[2]), start + 6 <= len(words)
            )
        )
    return orders


def _order(stanza: tuple[str, ...], six: tuple[str, ...]) -> tuple[int | None, ...]:
    """Which of the first stanza's six words ends each line of `stanza` (None: none of them)."""
    return tuple(
        next((k for k, word in enumerate(six) if same_end_word(got, word)), None) for got in stanza
    )


def keeps_rhyme_order(stanza: StanzaOrder, words: tuple[str, ...]) -> bool:
    """A rhymed sestina's reordering (Swinburne's): the stanza holds the six words, opens with
    the previous stanza's last one (as 6-1-5-2-4-3 does), moves every one from its place in the
    previous stanza, keeps the first stanza's rhyme scheme (which has rhymes) and repeats no
    earlier stanza's order."""
    six = words[:6]
    order = _order(stanza.found, six)
    indices = [k for k in order if k is not None]
    if sorted(indices) != list(range(6)):
        return False
    previous = _order(words[stanza.start - 6 : stanza.start], six)
    if order[0] != previous[5] or any(k == p for k, p in zip(order, previous, strict=True)):
        return False
    if order in {_order(words[s : s + 6], six) for s in range(0, stanza.start, 6)}:
        return False
    scheme = rhyme_letters(six)
    return scheme != "ABCDEF" and rhyme_letters(tuple(six[k] for k in indices)) == scheme


def _unrotated_finding(stanza: StanzaOrder, words: tuple[str, ...]) -> Finding:
    order = _order(stanza.found, words[:6])
    repeated = next(
        (
            k + 1
            for k in range(stanza.number - 2, -1, -1)
            if _order(words[6 * k : 6 * k + 6], words[:6]) == order
        ),
        None,
    )
    again = f" (stanza {repeated}'s order again)" if repeated is not None else ""
    end = stanza.start + 6
    return Finding(
        "end words",
        tuple(range(stanza.start + 1, end + 1)),
        f"stanza {stanza.number} (lines {stanza.start + 1}-{end}) does not rotate: expected "
        f"{', '.join(stanza.expected)} ({stanza.reference}), found {', '.join(stanza.found)}"
        f"{again}",
    )


def _line_findings(stanza: StanzaOrder, six: tuple[str, ...]) -> list[Finding]:
    findings = []
    for k in stanza.misses:
        line, got, want = stanza.start + k + 1, stanza.found[k], stanza.expected[k]
        if stanza.credits[k] > 0:
            detail = f"line {line} ends with {got!r}, expected {want!r} ({ORDER_NAME} order)"
        elif got:
            detail = f"line {line} ends with {got!r}, which is none of the six end words"
        else:
            continue
        findings.append(Finding("end words", (line,), detail))
    return findings


def sestina_rule(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    outcome = FormOutcome()
    n = len(poem.lines)
    words = end_words(poem.lines)
    count = 1.0 if n == 39 else 0.5 if n in (36, 38, 40) else 0.0
    outcome.findings.extend(count_finding(n, 39, "sestina"))
    if n < 12:
        outcome.form_score = 0.0
        requested_meter(poem, request, outcome)
        return outcome
    six = words[:6]
    distinct = len({word_family(w) for w in six})
    if distinct < 6:
        outcome.findings.append(
            Finding(
                "end words",
                tuple(range(1, 7)),
                f"the first stanza has only {distinct} different end words",
            )
        )
    total = 0.0
    unrotated: list[int] = []
    rhymed: list[int] = []
    short: list[int] = []
    line_findings: list[Finding] = []
    for stanza in stanza_orders(words):
        credit = sum(stanza.credits) / 6
        if not stanza.complete:
            total += credit
            short.append(stanza.number)
            line_findings += _line_findings(stanza, six)
        elif stanza.rotates:
            total += credit
            line_findings += _line_findings(stanza, six)
        elif keeps_rhyme_order(stanza, words):
            total += max(credit, RHYME_ORDER_CREDIT)
            rhymed.append(stanza.number)
        else:
            total -= UNROTATED_COST - 1.0
            unrotated.append(stanza.number)
            outcome.findings.append(_unrotated_finding(stanza, words))
    outcome.findings += line_findings
    order_score = max(0.0, total / 5) * distinct / 6
    outcome.facts["rotation"] = _rotation_fact(unrotated, rhymed, short)
    envoi = [w.lower() for line in poem.lines[36:39] for w in words_of(line)]
    families = {word_family(w) for w in envoi}
    present = [w for w in six if word_family(w) in families]
    envoi_score = len(present) / 6 if n >= 39 else 0.0
    if envoi_score < 1.0:
        absent = [w for w in six if w not in present]
        outcome.findings.append(
            Finding(
                "envoi",
                tuple(range(37, min(n, 39) + 1)),
                f"the envoi lacks {', '.join(map(repr, absent))}",
            )
        )
    outcome.form_score = 0.15 * count + 0.65 * order_score + 0.2 * envoi_score
    if len(outcome.findings) > 12:
        outcome.findings = [
            *outcome.findings[:10],
            Finding("end words", (), f"{len(outcome.findings) - 10} more end-word problems"),
        ]
    if request.rhyme:
        global_rhyme(poem, request.rhyme, outcome, request.rhyme)
    requested_meter(poem, request, outcome)
    return outcome


def _rotation_fact(unrotated: list[int], rhymed: list[int], short: list[int]) -> str:
    rotating = 5 - len(unrotated) - len(rhymed) - len(short)
    parts = [f"{rotating} of stanzas 2-6 follow {ORDER_NAME}"]
    for numbers, what in (
        (rhymed, "reorder to keep the rhyme scheme"),
        (unrotated, "do not rotate"),
        (short, "are cut short"),
    ):
        if numbers:
            parts.append(f"stanza(s) {', '.join(map(str, numbers))} {what}")
    return "; ".join(parts)
