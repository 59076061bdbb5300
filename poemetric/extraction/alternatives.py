"""Answers that offer several poems ("Option 1:" ... "Option 2:" ...): the first is the poem.

The prompt asks for one poem; a model that offers alternatives would otherwise have all of them
checked and judged as one long poem. The rule needs at least two labels, each opening a paragraph,
numbered from the first ("Option 1", "Version A", "Poem one") in order, with nothing before the
first label but chat ("Here are two takes on it:").
"""

from __future__ import annotations

import re

from poemetric.extraction.classify import _PREAMBLE_OPENER, _chat_text, _is_preamble, _quote
from poemetric.text.plural import counted

_KEYS = ("1", "a", "one"), ("2", "b", "two"), ("3", "c", "three"), ("4", "d", "four")
_LABEL = re.compile(
    r"^(?:#{1,6}\s+)?(?:option|version|alternative|variant|draft|poem)\s+(\d|[a-d]|one|two|three|four)"
    r"(?:\s*[:.\-–—(]\s*(.*?))?\s*$",
    re.IGNORECASE,
)


def _label_key(line: str) -> tuple[int, str] | None:
    """(position of the label's number, 0 for the first; its title or "") for a label line."""
    match = _LABEL.match(_chat_text(line))
    if not match:
        return None
    tail = (match.group(2) or "").strip()
    title = tail.rstrip(")").strip().strip('"“”')
    # A label's tail is a short title ("Option 1: Lamps", "Version 2 (shorter)"), not verse.
    verse_like = len(title.split()) > 8 or title[-1:] in {",", ";", ":", "."} or title[:1].islower()
    if title and verse_like and not tail.endswith(")"):
        return None
    key = match.group(1).lower()
    for position, spellings in enumerate(_KEYS):
        if key in spellings:
            return position, title
    return None


def _is_intro(line: str) -> bool:
    text = _chat_text(line)
    return _is_preamble(line) or bool(_PREAMBLE_OPENER.match(text) and text.endswith(":"))


def keep_first_alternative(lines: list[str], notes: list[str]) -> tuple[list[str], str | None]:
    """The lines of the first of several offered poems, and the title its label gives, if any."""
    labels: list[tuple[int, int, str]] = []
    for index, line in enumerate(lines):
        if line.strip() and (index == 0 or not lines[index - 1].strip()):
            key = _label_key(line)
            if key is not None:
                labels.append((index, *key))
    if len(labels) < 2 or [position for _, position, _ in labels] != list(range(len(labels))):
        return lines, None
    first, second = labels[0][0], labels[1][0]
    if not all(_is_intro(line) for line in lines[:first] if line.strip()):
        return lines, None
    if not any(line.strip() for line in lines[first + 1 : second]):
        return lines, None
    for line in lines[:first]:
        if line.strip():
            notes.append(f"removed preamble: {_quote(line)}")
    notes.append(
        f"removed the label of the first of {len(labels)} alternatives: {_quote(lines[first])}"
    )
    removed = sum(1 for line in lines[second:] if line.strip())
    notes.append(
        f"removed {counted(len(labels) - 1, 'alternative poem')} after the first "
        f"({counted(removed, 'line')} "
        f"from {_quote(lines[second])})"
    )
    return lines[first + 1 : second], labels[0][2] or None
