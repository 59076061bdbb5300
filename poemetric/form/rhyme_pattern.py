"""Rhyme-pattern notation and pair-structure comparison (no phonetics here).

A pattern such as ``ABABCDCDEFEF GG`` gives one token per line; whitespace only groups lines
(it is ignored for letters: the same letter in two groups is the same rhyme). A token is a letter
optionally followed by digits or primes (villanelle refrains ``A1``/``A2`` both rhyme as ``A``);
case is ignored; ``X`` (or ``x``) marks a line with no rhyme constraint.

With ``stanza_local=True`` the pattern describes one stanza (a ballad's ``ABCB``) and is tiled over
the lines of every stanza; letters of different tiles are unrelated.

Comparison is by pair structure, so it does not depend on letter names:

* every line that is not the first of its letter in a tile is *required* to rhyme with some
  earlier line of that letter (in the same tile);
* two lines with different letters in the same tile and at most ``window`` lines apart are
  *forbidden* from rhyming (weighted ``forbidden_weight``, default 0.5, because an extra rhyme,
  e.g. ``ABAB`` for ``ABCB``, is a milder fault than a missing one).

score = (satisfied required + w * respected forbidden) / (required + w * forbidden), in [0, 1];
1.0 when there is nothing to check. Lines the poem lacks fail their requirements.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

_TOKEN = re.compile(r"[^\W\d_][0-9'′]*")
UNCONSTRAINED = "X"


@dataclass(frozen=True)
class PairCheck:
    """One line pair the pattern constrains, with the outcome (0-based line numbers)."""

    first: int
    second: int
    should_rhyme: bool
    rhymes: bool
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.should_rhyme == self.rhymes


@dataclass(frozen=True)
class PatternMatch:
    """How well a poem (or a found scheme) follows an expected rhyme pattern."""

    score: float
    required: int
    required_ok: int
    forbidden: int
    forbidden_ok: int
    checks: tuple[PairCheck, ...] = field(default=())

    @property
    def failures(self) -> tuple[PairCheck, ...]:
        return tuple(check for check in self.checks if not check.ok)

    def explain(self) -> str:
        """Human-readable list of failed pairs (1-based line numbers)."""
        if not self.failures:
            return "all constrained line pairs agree with the pattern"
        lines = []
        for check in self.failures:
            verb = "should rhyme but do not" if check.should_rhyme else "should not rhyme but do"
            extra = f" ({check.detail})" if check.detail else ""
            lines.append(f"lines {check.first + 1} and {check.second + 1} {verb}{extra}")
        return "; ".join(lines)


def parse_pattern(pattern: str) -> list[str]:
    """Rhyme class of each line of `pattern` (upper-case letters; ``X`` = unconstrained).

    Raises ValueError naming the offending text when the pattern has other characters.
    """
    return list(_parse_pattern(pattern))


@lru_cache(maxsize=4096)
def _parse_pattern(pattern: str) -> tuple[str, ...]:
    compact = re.sub(r"\s+", "", pattern)
    tokens = _TOKEN.findall(compact)
    if "".join(tokens) != compact:
        leftover = _TOKEN.sub("", compact)
        raise ValueError(
            f"rhyme pattern {pattern!r} has characters that are not letters: {leftover!r}"
        )
    return tuple(token[0].upper() for token in tokens)


def group_sizes(scheme: str) -> list[int]:
    """Sizes of the whitespace-separated groups of a scheme string (``'ABAB CC'`` -> [4, 2])."""
    return [len(parse_pattern(group)) for group in scheme.split()]


def expected_classes(
    pattern: str,
    n_lines: int,
    *,
    stanza_local: bool = False,
    stanza_sizes: Sequence[int] | None = None,
) -> list[tuple[int, str]]:
    """(tile id, rhyme class) for each of `n_lines` lines under `pattern`.

    Without `stanza_local` the pattern covers the poem once (tile 0); lines beyond it get
    ``X``. With it, the pattern is tiled over each stanza (`stanza_sizes`, default one stanza).
    """
    classes = parse_pattern(pattern)
    if not classes:
        return [(0, UNCONSTRAINED)] * n_lines
    if not stanza_local:
        return [(0, classes[i] if i < len(classes) else UNCONSTRAINED) for i in range(n_lines)]
    sizes = list(stanza_sizes) if stanza_sizes else [n_lines]
    if sum(sizes) < n_lines:
        sizes.append(n_lines - sum(sizes))
    result: list[tuple[int, str]] = []
    tile = 0
    for size in sizes:
        for offset in range(size):
            if offset and offset % len(classes) == 0:
                tile += 1
            result.append((tile, classes[offset % len(classes)]))
        tile += 1
    return result[:n_lines]


def match_pattern(
    n_lines: int,
    expected: Sequence[tuple[int, str]],
    rhymes: Callable[[int, int], tuple[bool, str]],
    *,
    window: int = 4,
    forbidden_weight: float = 0.5,
    forbids: Callable[[int, int], tuple[bool, str]] | None = None,
) -> PatternMatch:
    """Score `n_lines` lines against per-line expected classes using pair predicates.

    `rhymes(i, j)` decides required pairs and `forbids(i, j)` (default: `rhymes`) decides whether
    a pair that should not rhyme does rhyme; both return (verdict, detail). Expected lines beyond
    `n_lines` count as failed requirements.
    """
    forbids = forbids or rhymes
    checks: list[PairCheck] = []
    required = required_ok = forbidden = forbidden_ok = 0
    seen: dict[tuple[int, str], list[int]] = {}
    for second, (tile, letter) in enumerate(expected):
        if letter == UNCONSTRAINED:
            continue
        earlier = seen.setdefault((tile, letter), [])
        if earlier:
            required += 1
            if second >= n_lines:
                checks.append(PairCheck(earlier[-1], second, True, False, "line missing"))
                earlier.append(second)
                continue
            outcome, detail = False, ""
            for first in reversed(earlier):
                verdict, why = rhymes(first, second)
                if verdict:
                    outcome, detail = True, why
                    break
                detail = detail or why
            required_ok += outcome
            checks.append(PairCheck(earlier[-1], second, True, outcome, detail))
        earlier.append(second)
        for first in range(max(0, second - window), second):
            other_tile, other_letter = expected[first]
            if other_tile != tile or other_letter in (letter, UNCONSTRAINED) or second >= n_lines:
                continue
            forbidden += 1
            verdict, why = forbids(first, second)
            forbidden_ok += not verdict
            checks.append(PairCheck(first, second, False, verdict, why))
    total = required + forbidden_weight * forbidden
    score = 1.0 if total == 0 else (required_ok + forbidden_weight * forbidden_ok) / total
    return PatternMatch(score, required, required_ok, forbidden, forbidden_ok, tuple(checks))


def scheme_similarity(
    found: str,
    expected: str,
    *,
    stanza_local: bool = False,
    window: int = 4,
    forbidden_weight: float = 0.5,
) -> float:
    """Similarity in [0, 1] of a found scheme (letters; spaces mark stanzas) to an expected one.

    Invariant to letter naming; see the module docstring for the pair structure. With
    `stanza_local`, the spaces in `found` give the stanza sizes the expected pattern tiles over.
    """
    return compare_schemes(
        found, expected, stanza_local=stanza_local, window=window, forbidden_weight=forbidden_weight
    ).score


def compare_schemes(
    found: str,
    expected: str,
    *,
    stanza_local: bool = False,
    window: int = 4,
    forbidden_weight: float = 0.5,
) -> PatternMatch:
    """Like :func:`scheme_similarity` but returns the per-pair :class:`PatternMatch`."""
    found_letters = parse_pattern(found)
    n_expected = (
        len(found_letters)
        if stanza_local
        else max(len(parse_pattern(expected)), len(found_letters))
    )
    classes = expected_classes(
        expected, n_expected, stanza_local=stanza_local, stanza_sizes=group_sizes(found) or None
    )

    def same_letter(first: int, second: int) -> tuple[bool, str]:
        a, b = found_letters[first], found_letters[second]
        return (a == b and a != UNCONSTRAINED, f"found {a} and {b}")

    return match_pattern(
        len(found_letters), classes, same_letter, window=window, forbidden_weight=forbidden_weight
    )
