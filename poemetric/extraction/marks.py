"""Marks a model writes on the poem's own lines: a syllable count at the end of each line
("... at noon, (10)"). It is removed only when most lines carry one, so a single bracketed
number stays."""

from __future__ import annotations

import re

_COUNT_TAG = re.compile(
    r"\s*(?:\*\*|__|\*|_)?[\(\[]\s*(\d{1,2})(?:\s*(?:syllables?|syll?s?\.?))?\s*[\)\]]"
    r"(?:\*\*|__|\*|_)?\s*$",
    re.IGNORECASE,
)


def _most(marked: int, content: int) -> bool:
    """Enough lines carry the mark to call it the model's habit: three or more, and at least
    three in five lines of the poem."""
    return marked >= 3 and marked * 5 >= content * 3


def _count_start(line: str) -> int | None:
    """Where a syllable count at the end of a verse line starts, or None."""
    tag = _COUNT_TAG.search(line)
    if tag and 0 < int(tag.group(1)) <= 30 and line[: tag.start()].strip():
        return tag.start()
    return None


def strip_syllable_counts(lines: list[str], notes: list[str]) -> list[str]:
    """Remove a bracketed syllable count ("(10)", "[8]", "(10 syllables)") at the end of lines."""
    starts = [_count_start(line) for line in lines]
    marked = [(line, start) for line, start in zip(lines, starts, strict=True) if start is not None]
    if not _most(len(marked), sum(1 for line in lines if line.strip())):
        return lines
    example = marked[0][0][marked[0][1] :].strip()
    notes.append(
        f"removed syllable counts at the end of {len(marked)} line(s), such as {example!r}"
    )
    return [
        line if start is None else line[:start] for line, start in zip(lines, starts, strict=True)
    ]
