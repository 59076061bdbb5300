"""Reasoning in a model's answer: `<think>` blocks (closed, unopened or unclosed), the provider's
own reasoning field, and reasoning written after the poem, separated from the answer.

A model that checks its work after the poem ("Wait, let me double-check the rhyme...", "Let me
count the syllables:") writes reasoning, not verse, and may quote the poem's lines with their
counts, which read like verse: from a paragraph whose first line opens so (after a blank line,
never the first paragraph), speaks of the poem's mechanics (syllables, metre, the rhyme scheme,
"line 3") and ends like a sentence, everything to the end of the answer is reasoning, unless
that paragraph is shaped like a stanza of the poem (a poem about writing poems: "Let me count
the syllables of your name." over three more verse lines).
"""

from __future__ import annotations

import re

from poemetric.extraction.classify import _chat_text, _quote
from poemetric.text.plural import counted

_THINK_BLOCK = re.compile(
    r"<(think|thinking|thought|reasoning)>(.*?)</\1>", re.IGNORECASE | re.DOTALL
)
_THINK_CLOSE = re.compile(r"</(think|thinking|thought|reasoning)>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"^\s*<(think|thinking|thought|reasoning)>", re.IGNORECASE)


def split_reasoning(text: str, reasoning: str | None = None) -> tuple[str, str | None, list[str]]:
    """Separate reasoning from the answer: tagged blocks plus the provider's reasoning field.

    Returns (answer, reasoning or None, notes).
    """
    notes: list[str] = []
    parts: list[str] = []
    if reasoning and reasoning.strip():
        parts.append(reasoning.strip())

    blocks = [match.group(2).strip() for match in _THINK_BLOCK.finditer(text)]
    if blocks:
        text = _THINK_BLOCK.sub("", text)
        notes.append(f"moved {counted(len(blocks), '<think> block')} to reasoning")
        parts.extend(block for block in blocks if block)
    closing = list(_THINK_CLOSE.finditer(text))
    if closing:
        # R1-style output: the chat template opened the block, so only the closing tag is left.
        last = closing[-1]
        before = _THINK_OPEN.sub("", _THINK_CLOSE.sub("", text[: last.start()])).strip()
        if before:
            parts.append(before)
        text = text[last.end() :]
        notes.append("moved the text before a closing </think> tag (no opening tag) to reasoning")
    opening = _THINK_OPEN.match(text)
    if opening:
        # Opened but never closed: the answer was cut off while still thinking.
        unfinished = text[opening.end() :].strip()
        if unfinished:
            parts.append(unfinished)
        text = ""
        notes.append("the response ends inside an unclosed <think> block: no answer after it")

    merged: list[str] = []
    for part in parts:
        if part not in merged:
            merged.append(part)
    return text, ("\n\n".join(merged) if merged else None), notes


_SELF_TALK = re.compile(
    r"^(?:(?:wait|hmm+|hold on|actually|oops|oh|ok(?:ay)?|so|now|alright|right)\s*[,.!…:—–-]+\s*)*"
    r"(?:(?:let me|let's|i(?:'ll| will| need to| should| must| have to)|i'm going to)\s+"
    r"(?:double[- ]check|check|re-?check|count|re-?count|verify|make sure|confirm|"
    r"go (?:back )?(?:over|through)|look (?:at|over|again)|re-?read|review|scan|tally|"
    r"see (?:if|whether|how)|fix|"
    r"revise|reconsider|re-?examine|examine|analy[sz]e)\b|"
    r"(?:double[- ]?)?checking\b|(?:re-?)?counting (?:the )?syllables\b|syllable counts?\s*:|"
    r"(?:wait|hmm+|hold on|actually|oops)\s*[,.!…—–-])",
    re.IGNORECASE,
)
#: The poem's mechanics, which reasoning about it speaks of: a rhyme only as a term ("the rhyme
#: scheme", "the rhyme.", "rhyming"), not as in verse's "the rhyme of your laughter".
_MECHANICS = re.compile(
    r"syllab|\bmet(?:er|re)s?\b|metrical|\bscheme\b|rhyming|\brhymes?\s*(?:[.:…!?]|$)|"
    r"\brhymes? (?:in|on|for|of) lines?\b|iamb|anap(?:a)?est|dactyl|troch|(?:penta|tetra|tri)meter|"
    r"\blines? \d|\bline (?:one|two|three|four|five)\b",
    re.IGNORECASE,
)
_ENDS = re.compile(r"[.!?:…)][\"'”’*_)]*$")


def _opens_reasoning(line: str) -> bool:
    """A line of the model thinking aloud about its poem: "Wait, let me double-check the rhyme.",
    "Let me count the syllables:", "Hmm, line 3 has one beat too many."."""
    text = _chat_text(line)
    return bool(_SELF_TALK.match(text) and _MECHANICS.search(text) and _ENDS.search(text))


#: Analysis, not verse: a syllable count ("(8)", "8 syllables", "... chance - 8"), a line
#: reference ("Line 3:", "Lines 1, 2 and 5"), rhymes listed ("dance / chance"), a rhyme scheme
#: ("AABBA") or stresses ("da-DUM-da-da-DUM").
_ANALYSIS = re.compile(
    r"\(\s*\d+\s*(?:syl\w*)?\s*\)|\[\s*\d+\s*\]|\b\d+\s*syllables?\b|[-–—:=]\s*\d+\s*$|"
    r"^\W*(?:lines?|l\.)\s*\d+\s*[:.)=–—-]|\blines?\s+\d+(?:\s*(?:,|and|&|-|–)\s*\d+)+|"
    r"\w\s*/\s*\w|(?-i:\b(?=[A-H]*A)(?=[A-H]*B)[A-H]{3,}\b)|"
    r"\b(?:da|di|de|ta|ba)(?:-(?:da|di|de|ta|ba|dum)){2,}\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[^\W\d_]+")


def _words(line: str) -> str:
    """A line's words, lower-cased and joined, without hyphens, counts or punctuation: a verse
    line quoted in reasoning ("A pot-ter who worked in Pen-zance (8)") reads as the line."""
    return "".join(_WORDS.findall(_chat_text(line).replace("-", "").lower()))


def _stanza_shaped(poem: list[str], paragraph: list[str]) -> bool:
    """Whether a paragraph after the poem is shaped like one of its stanzas: two or more lines,
    no more than the poem's longest stanza has, each as long as the poem's lines are (not much
    longer: prose), none quoting the poem or analysing it (counts, "Line 3:", "AABBA")."""
    stanzas: list[int] = [0]
    for line in poem:
        if line.strip():
            stanzas[-1] += 1
        elif stanzas[-1]:
            stanzas.append(0)
    lengths = [len(_chat_text(line)) for line in poem if line.strip()]
    if not lengths or not 2 <= len(paragraph) <= max(stanzas):
        return False
    quoted = {_words(line) for line in poem if line.strip()}
    return all(
        min(lengths) / 2 <= len(_chat_text(line)) <= max(lengths) * 1.3 + 4
        and not _ANALYSIS.search(_chat_text(line))
        and _words(line) not in quoted
        for line in paragraph
    )


def _paragraph(lines: list[str], index: int) -> list[str]:
    end = next((i for i in range(index, len(lines)) if not lines[i].strip()), len(lines))
    return lines[index:end]


def split_trailing_reasoning(lines: list[str], notes: list[str]) -> tuple[list[str], str | None]:
    """The lines before reasoning that follows the poem, and that reasoning (None: none).

    A paragraph that opens like reasoning but is shaped like a stanza of the poem is verse: a
    poem about writing poems ("Let me count the syllables of your name.").
    """
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    for index in range(first + 1, len(lines)):
        if (
            lines[index].strip()
            and not lines[index - 1].strip()
            and _opens_reasoning(lines[index])
            and not _stanza_shaped(lines[:index], _paragraph(lines, index))
        ):
            tail = lines[index:]
            count = sum(1 for line in tail if line.strip())
            notes.append(
                f"moved {counted(count, 'line')} of reasoning after the poem to reasoning, "
                f"from {_quote(lines[index])}"
            )
            return lines[:index], "\n".join(tail).strip()
    return lines, None
