"""Repeated lines: refrains (villanelle, pantoum) and copied lines that must not count as rhymes."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from poemetric.form.findings import Finding, Scored, cap_findings
from poemetric.text.plural import counted

_TOKEN = re.compile(r"[a-z0-9']+")


@lru_cache(maxsize=16384)
def _tokens(line: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(line.lower().replace("’", "'")))


@lru_cache(maxsize=16384)
def same_words(line_a: str, line_b: str) -> bool:
    """Whether two lines have the same words (case and punctuation ignored)."""
    a = _tokens(line_a)
    return bool(a) and a == _tokens(line_b)


@lru_cache(maxsize=16384)
def repeat_similarity(line_a: str, line_b: str) -> float:
    """1.0 for the same words (case and punctuation ignored), less for near-repeats, 0 otherwise.

    A near-repeat (a refrain with a word or two changed) earns at most 0.85.
    """
    a, b = _tokens(line_a), _tokens(line_b)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    ratio = SequenceMatcher(None, a, b, autojunk=False).ratio()
    if ratio < 0.5:
        return 0.0
    return round(min(0.85, ratio), 3)


def score_repeats(
    lines: tuple[str, ...],
    pairs: list[tuple[int, int, str]],
    constraint: str,
    *,
    form_lines: int | None = None,
) -> Scored:
    """Mean repeat similarity of (source, copy, label) 0-based line pairs.

    A copy past the poem's end is a place in the form's template (`form_lines` long), not a
    line of the poem: its finding says so, since every line number a user sees is the poem's.
    """
    if not pairs:
        return Scored(None)
    findings: list[Finding] = []
    total = 0.0
    for source, copy, label in pairs:
        if source >= len(lines) or copy >= len(lines):
            findings.append(
                Finding(constraint, (source + 1,), _missing(label, copy, len(lines), form_lines))
            )
            continue
        similarity = repeat_similarity(lines[source], lines[copy])
        total += similarity
        if similarity < 1.0:
            kind = "is only a near-repeat of" if similarity > 0 else "does not repeat"
            findings.append(
                Finding(
                    constraint,
                    (source + 1, copy + 1),
                    f"{label}: line {copy + 1} {kind} line {source + 1}",
                )
            )
    return Scored(total / len(pairs), tuple(cap_findings(findings, constraint)))


def _missing(label: str, copy: int, poem_lines: int, form_lines: int | None) -> str:
    """A repeat the poem is too short to hold, by its place in the form (0-based `copy`)."""
    place = f"line {copy + 1} of the form's {form_lines}" if form_lines else f"line {copy + 1}"
    return (
        f"{label} is missing where the form repeats it ({place}; "
        f"the poem has {counted(poem_lines, 'line')})"
    )
