"""Answers that offer several poems ("Option 1:" ... "Option 2:" ...): the first is the poem.

The prompt asks for one poem; a model that offers alternatives would otherwise have all of them
checked and judged as one long poem. The rule needs at least two labels, each opening a paragraph,
numbered from the first ("Option 1", "Version A", "Poem one", "First version") in order, with
nothing before the first label but chat ("Here are two takes on it:").

Under an opener that announces several poems ("Here are two limericks:", "Here are a few
options:"), a number alone over each ("1.", "**2.**", "### 3") labels a poem as "Option 1" does,
not a stanza: the first poem is kept. (Without such an opener, numbers are read as a poem's
stanza numbers, and every numbered stanza stays.)

A second poem offered after the first without numbers ("Alternatively, here is a darker
version:", "Here is an alternative take:", "Or, if you prefer:") is one too: a line alone in its
paragraph, ending in a colon, that offers another poem, with verse above and under it; it and
what follows go. ("Here is another version:" over a poem of the first one's shape is a rewrite:
`revisions` keeps the last.)
"""

from __future__ import annotations

import re

from poemetric.extraction.classify import _PREAMBLE_OPENER, _chat_text, _is_preamble, _quote
from poemetric.text.plural import counted

_KEYS = (
    ("1", "a", "one", "first"),
    ("2", "b", "two", "second"),
    ("3", "c", "three", "third"),
    ("4", "d", "four", "fourth"),
)
_NOUN = r"option|version|alternative|variant|draft|poem"
#: "Option 1", "Version A", "Poem one"; or the ordinal first: "First version", "Second option".
_LABEL = re.compile(
    rf"^(?:#{{1,6}}\s+)?(?:(?:{_NOUN})\s+(\d|[a-d]|one|two|three|four)|"
    r"(first|second|third|fourth)\s+(?:version|option|alternative|variant|take|poem))"
    r"(?:\s*[:.\-–—(]\s*(.*?))?\s*$",
    re.IGNORECASE,
)


#: A line offering another poem after the first: "Alternatively, here is a darker version:",
#: "Here's another take:", "I've also written a second sonnet:", "Another version:", "Or, if you
#: prefer:", "And here's another one:". Only alone in its paragraph and ending in a colon
#: (`_offered_alternative`).
_FORM_NOUNS = "poem|sonnet|ballad|limerick|villanelle|ghazal|pantoum|sestina"
_VERSION_NOUNS = "version|take|option|variation|alternative|rendition"
_OFFER_NOUNS = rf"{_VERSION_NOUNS}|{_FORM_NOUNS}"
_ANOTHER = re.compile(
    r"^(?:(?:and|also|plus),?\s+)?(?:alternatively\b.*"
    r"|or\b,?\s*(?:.*\b(?:version|take|option|variation|alternative)\b.*|if you(?:'d| would)? "
    r"(?:prefer|like)\b.*|here(?:'s| is)\b.*)"
    r"|(?:if you(?:'d| would)? (?:prefer|like|want)\b[^:]*?,\s*)?(?:here(?:'s| is)|below is|"
    r"i(?:'ve| have) also (?:written|composed|crafted|included)|i also wrote)\s+"
    r"(?:(?:another|an alternative|a second|a different)\s+(?:[\w'-]+\s+){0,2}?"
    rf"(?:{_OFFER_NOUNS}|one)\b.*|an?\s+(?:[\w'-]+\s+){{0,2}}?(?:{_VERSION_NOUNS})\b.*|one more\b.*)"
    r"|(?:another|an? alternative|alternative)\s+(?:[\w'-]+\s+){0,2}?"
    r"(?:version|take|option|variation|rendition)\b.*"
    r"):$",
    re.IGNORECASE,
)


def _offered_alternative(lines: list[str]) -> int | None:
    """The index of a line offering another poem after the first (`_ANOTHER`), alone in its
    paragraph, with two verse lines or more above it and under it, and above it at least half
    as many as under it; None when there is none. (Two lines of chat or a title and a byline
    over an opener and the only poem are no first poem: the poem went, the chat stayed.)"""
    for index, line in enumerate(lines):
        if not line.strip() or (index > 0 and lines[index - 1].strip()):
            continue
        if index + 1 < len(lines) and lines[index + 1].strip():
            continue  # not alone in its paragraph
        if not _ANOTHER.match(_chat_text(line)):
            continue
        above = sum(1 for text in lines[:index] if text.strip())
        under = sum(1 for text in lines[index + 1 :] if text.strip())
        if above >= 2 and under >= 2 and 2 * above >= under:
            return index
    return None


#: An opener that announces several poems: "Here are two limericks:", "Here are a couple of
#: sonnets for you:", "Here are three versions:".
_SEVERAL = re.compile(
    r"\b(?:two|three|four|five|several|a few|a couple of|some|[2-9])\s+(?:[\w'’-]+\s+){0,3}?"
    r"(?:poems|sonnets|limericks|villanelles|ghazals|pantoums|sestinas|ballads|haikus|odes|"
    r"versions|options|takes|variations|alternatives)\b",
    re.IGNORECASE,
)
#: A number alone on its line ("1.", "**2.**", "### 3", "II)").
_BARE_NUMBER = re.compile(r"^(?:#{1,6}\s+)?([1-4]|i{1,3}|iv)\s*[.):]?$", re.IGNORECASE)
_ROMAN = ("i", "ii", "iii", "iv")


def announces_several(lines: list[str]) -> bool:
    """Whether the chat at the head of `lines` (the lines before the first that is no opener)
    announces several poems (`_SEVERAL`)."""
    for line in lines:
        if not line.strip():
            continue
        if not _is_intro(line):
            return False
        if _SEVERAL.search(_chat_text(line)):
            return True
    return False


def _label_key(line: str, numbers: bool = False) -> tuple[int, str] | None:
    """(position of the label's number, 0 for the first; its title or "") for a label line;
    `numbers`: a number alone is a label too (`_BARE_NUMBER`)."""
    text = _chat_text(line)
    bare = _BARE_NUMBER.match(text) if numbers else None
    if bare:
        key = bare.group(1).lower()
        return (_ROMAN.index(key) if key in _ROMAN else int(key) - 1), ""
    match = _LABEL.match(text)
    if not match:
        return None
    tail = (match.group(3) or "").strip()
    title = tail.rstrip(")").strip().strip('"“”')
    # A label's tail is a short title ("Option 1: Lamps", "Version 2 (shorter)"), not verse.
    verse_like = len(title.split()) > 8 or title[-1:] in {",", ";", ":", "."} or title[:1].islower()
    if title and verse_like and not tail.endswith(")"):
        return None
    key = (match.group(1) or match.group(2)).lower()
    for position, spellings in enumerate(_KEYS):
        if key in spellings:
            return position, title
    return None


def _is_intro(line: str) -> bool:
    text = _chat_text(line)
    return _is_preamble(line) or bool(_PREAMBLE_OPENER.match(text) and text.endswith(":"))


def keep_first_alternative(
    lines: list[str], notes: list[str], *, several: bool = False
) -> tuple[list[str], str | None]:
    """The lines of the first of several offered poems, and the title its label gives, if any;
    `several`: the answer's opener announced several poems (`announces_several`), so a number
    alone over verse labels one."""
    labels: list[tuple[int, int, str]] = []
    for index, line in enumerate(lines):
        if line.strip() and (index == 0 or not lines[index - 1].strip()):
            over_verse = index + 1 < len(lines) and bool(lines[index + 1].strip())
            key = _label_key(line, numbers=several and over_verse)
            if key is not None:
                labels.append((index, *key))
    if len(labels) < 2 or [position for _, position, _ in labels] != list(range(len(labels))):
        return _drop_offered_alternative(lines, notes), None
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


def _drop_offered_alternative(lines: list[str], notes: list[str]) -> list[str]:
    """`lines` without a second poem offered after the first without numbers (`_ANOTHER`)."""
    index = _offered_alternative(lines)
    if index is None:
        return lines
    removed = sum(1 for line in lines[index + 1 :] if line.strip())
    notes.append(
        f"removed the alternative offered after the poem: {_quote(lines[index])} and "
        f"{counted(removed, 'line')} under it"
    )
    return lines[:index]
