"""Where the poem starts after the chat that opens an answer: the first line with content, a
line that runs on as verse, and a few sentences of chat the rules do not know ending in one that
hands the poem over ("What a delightful prompt! Here is my attempt:")."""

from __future__ import annotations

import re

from poemetric.extraction.classify import _FORMS, _INTERJECTION, _METADATA, _chat_text, _plain

#: A line wholly in italics ("*A Shakespearean sonnet*", "_Salt Hours_"); group 2 its text.
ITALIC_LINE = re.compile(r"^\s*([*_])(?![*_\s])(.+?)(?<![\s*_])\1\s*$")


def first_content(lines: list[str], start: int = 0) -> int:
    index = start
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index


def runs_into_verse(lines: list[str], index: int) -> bool:
    """`lines[index]` ends mid-sentence and the line right under it carries on in lower case:
    the first line of a stanza ("I wrote this poem for you at the kitchen table\nand counted
    ..."), not a preamble ("Here is a poem for you\nThe lamps ..." is still one)."""
    text = _chat_text(lines[index])
    following = _chat_text(lines[index + 1]) if index + 1 < len(lines) else ""
    return (
        text[-1:].isalnum()
        and following[:1].islower()
        and not (_INTERJECTION.match(text) or _METADATA.match(text))
    )


#: A sentence that hands the poem over, ending the chat before it: "Here is my attempt:",
#: "Here it is:", "Here's a ballad in common metre:" (a colon, and the poem or a form named);
#: also after a connective opening the sentence ("I can't feel autumn. However, here is a sonnet
#: about it:"; a comma before it is no sentence's end: "The night is cold, but here's ...").
_HANDS_OVER = re.compile(
    r"(?:^|[.!?]\s+)"
    r"(?:(?:however|but|still|so|instead|that said|nonetheless|nevertheless|anyway),?\s+)?"
    r"(?:(?:here(?: is|'s)|below is) (?:it|(?:my|the|a|an|your) (?:[\w'-]+ ){0,3}?"
    r"(?:poem|attempt|take|version|piece|" + _FORMS + r")(?: [^.!?:]{0,40})?)|here it is)\s*:$",
    re.IGNORECASE,
)
#: How many lines of chat the rules do not know may stand before such a sentence.
_UNKNOWN_CHAT_LINES = 3


def chat_before_handover(lines: list[str], start: int) -> int | None:
    """Where the poem starts when the answer opens with up to three sentences of chat the rules
    do not know ("What a delightful prompt!") ending in a sentence that hands the poem over
    ("Here is my attempt:"), on that line or on one of its own; None otherwise. Each line
    before it must end a sentence and not run on into the next as verse does."""
    index, seen = start, 0
    while index < len(lines) and seen <= _UNKNOWN_CHAT_LINES:
        text = _chat_text(lines[index]).strip()
        if _HANDS_OVER.search(text):
            after = first_content(lines, index + 1)
            return after if after < len(lines) else None
        if not text.endswith((".", "!", "?")) or runs_into_verse(lines, index):
            return None
        seen += 1
        index = first_content(lines, index + 1)
    return None


#: What a line that only names the form says inside its brackets or italics: "Sonnet", "A
#: Shakespearean sonnet", "A limerick about a baker", "An ode to the harbour".
_FORM_NAME = re.compile(
    r"^(?:(?:a|an|the)\s+)?(?:[\w'’-]+\s+){0,3}?"
    r"(?:poem|sonnet|villanelle|ghazal|limerick|pantoum|sestina|ballad|haiku|ode|elegy)"
    r"(?:\s+(?:about|on|for|of|to|in)\s+[^()\[\]*_]{1,60}?)?\s*\.?$",
    re.IGNORECASE,
)
_BRACKETED = re.compile(r"^\s*(?:\((.+)\)|\[(.+)\])\s*$")


def names_the_form(line: str, *, blank_after: bool) -> bool:
    """`line` only names the poem's form (`_FORM_NAME`): in brackets ("(Sonnet)", "(A limerick
    about a baker)", "[An ode to the harbour]"), or in italics over a blank line ("*A
    Shakespearean sonnet*")."""
    bracketed = _BRACKETED.match(_plain(line))
    italic = ITALIC_LINE.match(line)
    if bracketed:
        inner = bracketed.group(1) or bracketed.group(2)
    elif italic and blank_after:
        inner = italic.group(2)
    else:
        return False
    return bool(_FORM_NAME.match(inner.strip()))
