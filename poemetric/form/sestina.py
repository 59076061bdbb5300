"""The sestina rule: six stanzas of six lines on the same six end words, and an envoi.

Each stanza takes the previous one's end words in the order 6-1-5-2-4-3 (*retrogradatio
cruciata*); the three-line envoi holds all six words. The rotation is the form's defining rule,
so it is judged stanza by stanza:

* a stanza **rotates** when at most two of its six end words are not where the order puts them.
  One or two misses are slips that cost their lines' credit only: a variant form the matching
  does not hear as the same word (Kipling's *along* for *long*), a substituted word, one swapped
  pair. Inflections (*night*/*nights*; not *moth*/*mother*, which only the spelling makes one) and
  homophones (*night*/*knight*) count as the same word, in the stanzas and in the envoi;
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

The machinery (`Rotation`, `stanza_orders`, `judge_rotation`) takes the permutation, the stanza
size and the thresholds as a `Rotation`, so the double sestina (`extra_forms`) judges its
twelve-word stanzas the same way with thresholds of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from poemetric.form import adapters
from poemetric.form.parsing import ParsedPoem, words_of
from poemetric.form.same_word import distinct_end_words, held, same_end_word
from poemetric.form.scoring import (
    Finding,
    FormOutcome,
    FormRequest,
    count_finding,
    end_words,
    global_rhyme,
    requested_meter,
)
from poemetric.text.plural import counted, plural

RETROGRADATIO = (5, 0, 4, 1, 3, 2)  # next stanza's end words: 6-1-5-2-4-3 of the previous
ORDER_NAME = "6-1-5-2-4-3"
#: A stanza with this many end words out of their place (or none of the six) does not rotate.
UNROTATED_FROM = 3
#: Stanza shares of the order score an unrotated stanza costs: its own and two more.
UNROTATED_COST = 3.0
#: Credit of a rhymed sestina's stanza that reorders its words to keep the rhyme scheme.
RHYME_ORDER_CREDIT = 0.8


@dataclass(frozen=True)
class Rotation:
    """A fixed form's end-word rotation and how strictly a stanza is held to it."""

    order: tuple[int, ...]  # the next stanza's end words, as indices of the previous stanza's
    name: str  # the order as poets write it, e.g. '6-1-5-2-4-3'
    stanzas: int  # stanzas on the end words, the first included (not the envoi)
    unrotated_from: int  # a stanza with this many end words out of place does not rotate
    unrotated_cost: float  # stanza shares of the order score an unrotated stanza costs
    count_name: str  # how many end words, in words: 'six'
    reordered: str = "reorder to keep the rhyme scheme"  # facts' words for rhymed reorderings
    reordered_one: str = "reorders to keep the rhyme scheme"  # the same for one stanza

    @property
    def size(self) -> int:
        return len(self.order)


SESTINA = Rotation(RETROGRADATIO, ORDER_NAME, 6, UNROTATED_FROM, UNROTATED_COST, "six")


def rotate(words: tuple[str, ...], order: tuple[int, ...] = RETROGRADATIO) -> tuple[str, ...]:
    """The next stanza's end words: 6-1-5-2-4-3 (or `order`) of `words`."""
    return tuple(words[k] for k in order)


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
    """How one stanza (the 2nd to the last) follows the rotation."""

    number: int  # 1-based stanza number
    start: int  # 0-based index of its first line
    found: tuple[str, ...]
    expected: tuple[str, ...]
    reference: str  # where `expected` comes from
    credits: tuple[float, ...]  # per line: 1 in place, 0.5 a stanza-1 word elsewhere, 0 neither
    complete: bool  # all its lines are there
    rotation: Rotation = SESTINA

    @property
    def misses(self) -> tuple[int, ...]:
        return tuple(k for k, credit in enumerate(self.credits) if credit < 1.0)

    @property
    def rotates(self) -> bool:
        return len(self.misses) < self.rotation.unrotated_from


def _credits(found: tuple[str, ...], wanted: tuple[str, ...], six: tuple[str, ...]) -> list[float]:
    return [
        1.0 if same_end_word(got, want) else 0.5 if any(same_end_word(got, w) for w in six) else 0.0
        for got, want in zip(found, wanted, strict=True)
    ]


def stanza_orders(words: tuple[str, ...], rotation: Rotation = SESTINA) -> list[StanzaOrder]:
    """Stanzas 2-6 (2 to `rotation.stanzas`) against the better of their two references (see the
    module docstring)."""
    size, name = rotation.size, rotation.name
    first = words[:size]
    canonical = first
    # A short poem's missing lines end in ''.
    padded = words + ("",) * max(0, size * rotation.stanzas - len(words))
    orders: list[StanzaOrder] = []
    for number in range(2, rotation.stanzas + 1):
        start = (number - 1) * size
        found = padded[start : start + size]
        canonical = rotate(canonical, rotation.order)
        references = [
            (
                rotate(padded[start - size : start], rotation.order),
                f"{name} of stanza {number - 1}",
            ),
            (canonical, f"the {name} sequence from stanza 1"),
        ]
        best = max(
            ((wanted, ref, _credits(found, wanted, first)) for wanted, ref in references),
            key=lambda ref: sum(ref[2]),
        )
        complete = start + size <= len(words)
        orders.append(
            StanzaOrder(number, start, found, best[0], best[1], tuple(best[2]), complete, rotation)
        )
    return orders


def word_order(stanza: tuple[str, ...], six: tuple[str, ...]) -> tuple[int | None, ...]:
    """Which of the first stanza's end words ends each line of `stanza` (None: none of them)."""
    return tuple(
        next((k for k, word in enumerate(six) if same_end_word(got, word)), None) for got in stanza
    )


def keeps_rhyme_order(stanza: StanzaOrder, words: tuple[str, ...]) -> bool:
    """A rhymed sestina's reordering (Swinburne's): the stanza holds the six words, opens with
    the previous stanza's last one (as 6-1-5-2-4-3 does), moves every one from its place in the
    previous stanza, keeps the first stanza's rhyme scheme (which has rhymes) and repeats no
    earlier stanza's order."""
    six = words[:6]
    order = word_order(stanza.found, six)
    indices = [k for k in order if k is not None]
    if sorted(indices) != list(range(6)):
        return False
    previous = word_order(words[stanza.start - 6 : stanza.start], six)
    if order[0] != previous[5] or any(k == p for k, p in zip(order, previous, strict=True)):
        return False
    if order in {word_order(words[s : s + 6], six) for s in range(0, stanza.start, 6)}:
        return False
    scheme = rhyme_letters(six)
    return scheme != "ABCDEF" and rhyme_letters(tuple(six[k] for k in indices)) == scheme


def _unrotated_finding(stanza: StanzaOrder, words: tuple[str, ...]) -> Finding:
    size = stanza.rotation.size
    order = word_order(stanza.found, words[:size])
    repeated = next(
        (
            k + 1
            for k in range(stanza.number - 2, -1, -1)
            if word_order(words[size * k : size * k + size], words[:size]) == order
        ),
        None,
    )
    again = f" (stanza {repeated}'s order again)" if repeated is not None else ""
    end = stanza.start + size
    return Finding(
        "end words",
        tuple(range(stanza.start + 1, end + 1)),
        f"stanza {stanza.number} (lines {stanza.start + 1}-{end}) does not rotate: expected "
        f"{', '.join(stanza.expected)} ({stanza.reference}), found {', '.join(stanza.found)}"
        f"{again}",
    )


def _line_findings(stanza: StanzaOrder) -> list[Finding]:
    findings = []
    rotation = stanza.rotation
    for k in stanza.misses:
        line, got, want = stanza.start + k + 1, stanza.found[k], stanza.expected[k]
        if stanza.credits[k] > 0:
            detail = f"line {line} ends with {got!r}, expected {want!r} ({rotation.name} order)"
        elif got:
            detail = (
                f"line {line} ends with {got!r}, which is none of the {rotation.count_name} "
                "end words"
            )
        else:
            continue
        findings.append(Finding("end words", (line,), detail))
    return findings


@dataclass
class RotationJudgment:
    """Stanzas 2 to the last judged against a rotation (see the module docstring)."""

    rotation: Rotation
    total: float = 0.0  # stanza credits, less the unrotated stanzas' cost
    unrotated: list[int] = field(default_factory=list)
    rhymed: list[int] = field(default_factory=list)
    short: list[int] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # unrotated stanzas, then lines

    def order_score(self, distinct: int) -> float:
        """The order score, scaled by the share of distinct words in the first stanza."""
        return max(0.0, self.total / (self.rotation.stanzas - 1)) * distinct / self.rotation.size

    def fact(self) -> str:
        rotation = self.rotation
        judged = rotation.stanzas - 1
        rotating = judged - len(self.unrotated) - len(self.rhymed) - len(self.short)
        parts = [f"{rotating} of stanzas 2-{rotation.stanzas} follow {rotation.name}"]
        for numbers, one, many in (
            (self.rhymed, rotation.reordered_one, rotation.reordered),
            (self.unrotated, "does not rotate", "do not rotate"),
            (self.short, "is cut short", "are cut short"),
        ):
            if numbers:
                listed = ", ".join(map(str, numbers))
                parts.append(
                    f"{plural(len(numbers), 'stanza')} {listed} {plural(len(numbers), one, many)}"
                )
        return "; ".join(parts)


RhymeOrder = Callable[[StanzaOrder, tuple[str, ...]], bool]


def judge_rotation(
    words: tuple[str, ...], rotation: Rotation, rhyme_order: RhymeOrder
) -> RotationJudgment:
    """Each stanza rotates (its credit, its slips as line findings), reorders for the rhyme
    (`rhyme_order`: at least `RHYME_ORDER_CREDIT`), or does not rotate (costs
    `rotation.unrotated_cost` stanza shares, one finding for the stanza)."""
    judgment = RotationJudgment(rotation)
    line_findings: list[Finding] = []
    for stanza in stanza_orders(words, rotation):
        credit = sum(stanza.credits) / rotation.size
        if not stanza.complete:
            judgment.total += credit
            judgment.short.append(stanza.number)
            line_findings += _line_findings(stanza)
        elif stanza.rotates:
            judgment.total += credit
            line_findings += _line_findings(stanza)
        elif rhyme_order(stanza, words):
            judgment.total += max(credit, RHYME_ORDER_CREDIT)
            judgment.rhymed.append(stanza.number)
        else:
            judgment.total -= rotation.unrotated_cost - 1.0
            judgment.unrotated.append(stanza.number)
            judgment.findings.append(_unrotated_finding(stanza, words))
    judgment.findings += line_findings
    return judgment


def repeated_end_words(distinct: int, rotation: Rotation) -> list[Finding]:
    """A finding for a first stanza with fewer distinct end words than the form has (the order
    score is scaled by their share, see `RotationJudgment.order_score`), or none."""
    if distinct >= rotation.size:
        return []
    return [
        Finding(
            "end words",
            tuple(range(1, rotation.size + 1)),
            f"the first stanza has only {distinct} different end words",
        )
    ]


def rotation_order(
    words: tuple[str, ...], rotation: Rotation, rhyme_order: RhymeOrder, outcome: FormOutcome
) -> float:
    """The end-word order score of a sestina or double sestina (`rotation`), its findings and
    `facts["rotation"]` added to `outcome`: the first stanza's different end words (fewer than
    the form's scale the score, and are named), then each stanza's rotation (`judge_rotation`)."""
    distinct = distinct_end_words(words[: rotation.size])
    outcome.findings += repeated_end_words(distinct, rotation)
    judgment = judge_rotation(words, rotation, rhyme_order)
    outcome.findings += judgment.findings
    outcome.facts["rotation"] = judgment.fact()
    return judgment.order_score(distinct)


def capped(findings: list[Finding]) -> list[Finding]:
    """At most 12 findings: the first 10 and a count of the rest."""
    if len(findings) <= 12:
        return findings
    return [
        *findings[:10],
        Finding("end words", (), f"{len(findings) - 10} more end-word problems"),
    ]


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
    order_score = rotation_order(words, SESTINA, keeps_rhyme_order, outcome)
    envoi = {w.lower() for line in poem.lines[36:39] for w in words_of(line)}
    present = [w for w in six if held(w, envoi)]
    envoi_score = len(present) / 6 if n >= 39 else 0.0
    if envoi_score < 1.0:
        absent = [w for w in six if w not in present]
        outcome.findings.append(
            Finding("envoi", tuple(range(37, min(n, 39) + 1)), _envoi_problem(n, absent))
        )
    outcome.form_score = 0.15 * count + 0.65 * order_score + 0.2 * envoi_score
    outcome.findings = capped(outcome.findings)
    if request.rhyme:
        global_rhyme(poem, request.rhyme, outcome, request.rhyme, end_words=True)
    requested_meter(poem, request, outcome)
    return outcome


def _envoi_problem(n: int, absent: list[str]) -> str:
    """What is wrong with the envoi of an `n`-line sestina lacking the end words `absent`."""
    lacks = f"lacks {', '.join(map(repr, absent))}"
    if not 36 < n < 39:
        return f"the envoi {lacks}"
    # A short envoi earns no envoi credit even when it holds all six words (it said "the envoi
    # lacks " with nothing after it).
    short = f"the envoi has {counted(n - 36, 'line')} where the form has 3"
    if absent:
        return f"{short}, and it {lacks}"
    return f"{short} (it holds the six end words, but only a full envoi earns its share)"
