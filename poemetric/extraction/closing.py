"""Closing remarks after the poem: sign-offs, notes and analyses, as whole paragraphs after the
last stanza or as a sign-off or metadata line glued to it.

A paragraph whose first line is chat is removed only when it is shaped like chat, not verse: a
chat model writes each sentence or paragraph on one line, so a paragraph whose lines run on (a
line before the last ends mid-sentence, as in "I hope the rain will bring you home,\\nthe lamps
...") is a stanza, and so is one of end-stopped lines where a later line is plain verse.
"""

from __future__ import annotations

import re
import unicodedata

from poemetric.extraction.classify import (
    _BULLET,
    _COMMENTARY_HEADER,
    _FORM_RE,
    _META_RE_I,
    _METADATA,
    _chat_text,
    _commentary_text,
    _is_commentary,
    _is_glued_closing,
    _quote,
)

_SENTENCE_END = re.compile(r"[.!?:…)\]][\"'”’*_)\]]*$")


def _ends_sentence(line: str) -> bool:
    """The line ends like a sentence (emoji and other symbols after the punctuation ignored)."""
    text = _chat_text(line)
    while text and (unicodedata.category(text[-1]) in {"So", "Sk", "Mn", "Cf"} or text[-1] == " "):
        text = text[:-1]
    return bool(_SENTENCE_END.search(text))


def _is_header(line: str) -> bool:
    """A line that opens a block of commentary: "Notes:", "### Analysis", "Rhyme scheme: ..."."""
    text = _commentary_text(line)
    return bool(_COMMENTARY_HEADER.match(text) or _METADATA.match(text))


def _is_closing_paragraph(paragraph: list[str], width: int) -> bool:
    """The paragraph is a closing remark: its first line is chat and it is not shaped as verse.

    `width` is the length of the poem's longest line: a later line longer than any verse line
    is prose.
    """
    first, rest = paragraph[0], paragraph[1:]
    if not _is_commentary(first):
        return False
    if not rest or _is_header(first) or any(_BULLET.match(line) for line in paragraph):
        return True
    if not all(_ends_sentence(line) for line in paragraph[:-1]):
        return False  # the lines run on: a stanza
    return all(
        _is_commentary(line)
        or _is_glued_closing(line)
        or _FORM_RE.search(line)
        or _META_RE_I.search(line)
        or len(line.strip()) > width
        for line in rest
    )


def _paragraph(lines: list[str], start: int) -> list[str]:
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return lines[start:end]


def strip_trailing_chatter(lines: list[str], notes: list[str]) -> list[str]:
    starts = [
        i for i, line in enumerate(lines) if line.strip() and (i == 0 or not lines[i - 1].strip())
    ]
    first_content = starts[0] if starts else len(lines)
    cut = len(lines)
    for start in starts[1:]:
        width = max(len(line.strip()) for line in lines[first_content:start])
        if not _is_closing_paragraph(_paragraph(lines, start), width):
            continue
        later = [s for s in starts if s > start]
        if all(
            _is_closing_paragraph(_paragraph(lines, s), width) or _BULLET.match(lines[s])
            for s in later
        ):
            cut = start
            break
    # A sign-off or metadata glued to the last stanza ("... night.\nI hope you enjoy it!"); a
    # line ending in a comma or semicolon runs on into the next, as verse does.
    end = cut
    while (
        end > first_content + 1
        and _is_glued_closing(lines[end - 1])
        and not lines[end - 1].rstrip().endswith((",", ";"))
    ):
        end -= 1
    if end < cut:
        cut = end
    for line in lines[cut:]:
        if line.strip():
            notes.append(f"removed closing remark: {_quote(line)}")
    return lines[:cut]
