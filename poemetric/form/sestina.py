"""The sestina rule: six stanzas of six lines on the same six end words, each stanza's order the
previous one's taken 6-1-5-2-4-3 (retrogradatio cruciata), and a three-line envoi."""

from __future__ import annotations

from functools import lru_cache

from poemetric.form import adapters
from poemetric.form.parsing import ParsedPoem, words_of
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
    if not a or not b:
        return False
    if word_family(a) == word_family(b):
        return True
    return adapters.rhyme_kind(a, b) is adapters.Rhyme.IDENTICAL


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
    current = list(words[:6])
    distinct = len({word_family(w) for w in current})
    if distinct < 6:
        outcome.findings.append(
            Finding(
                "end words",
                tuple(range(1, 7)),
                f"the first stanza has only {distinct} different end words",
            )
        )
    credits: list[float] = []
    for stanza in range(1, 6):
        expected = [current[k] for k in RETROGRADATIO]
        start = stanza * 6
        for offset, want in enumerate(expected):
            index = start + offset
            got = words[index] if index < n else ""
            if same_end_word(got, want):
                credits.append(1.0)
            elif any(same_end_word(got, w) for w in current):
                credits.append(0.5)
                outcome.findings.append(
                    Finding(
                        "end words",
                        (index + 1,),
                        f"line {index + 1} ends with {got!r}, expected {want!r} (6-1-5-2-4-3 order)",
                    )
                )
            else:
                credits.append(0.0)
                outcome.findings.append(
                    Finding(
                        "end words",
                        (index + 1,),
                        f"line {index + 1} ends with {got!r}, which is none of the six end words",
                    )
                )
        current = expected
    order_score = sum(credits) / len(credits) * distinct / 6
    envoi = [w.lower() for line in poem.lines[36:39] for w in words_of(line)]
    families = {word_family(w) for w in envoi}
    present = [w for w in words[:6] if word_family(w) in families]
    envoi_score = len(present) / 6 if n >= 39 else 0.0
    if envoi_score < 1.0:
        absent = [w for w in words[:6] if w not in present]
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
