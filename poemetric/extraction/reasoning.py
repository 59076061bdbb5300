"""Reasoning in a model's answer: `<think>` blocks (closed, unopened or unclosed), the provider's
own reasoning field, and reasoning written after the poem, separated from the answer.

A model that checks its work after the poem ("Wait, let me double-check the rhyme...", "Let me
count the syllables:") writes reasoning, not verse, and may quote the poem's lines with their
counts, which read like verse: from a paragraph whose first line opens so (after a blank line,
never the first paragraph), speaks of the poem's mechanics (syllables, metre, the rhyme scheme,
"line 3") and ends like a sentence, everything to the end of the answer is reasoning, unless
that paragraph is shaped like a stanza of the poem (a poem about writing poems: "Let me count
the syllables of your name." over three more verse lines). A one-line self-check glued under
the poem's last line ("Let me check: AABBA, anapestic. Good.") is reasoning too when it names
the mechanics exactly (`is_meta_sentence`, shared with closing remarks glued so), and so are
two or three glued lines that read as one such line (`glued_blocks`).
"""

from __future__ import annotations

import re

from poemetric.extraction.classify import (
    _FORMS,
    _chat_text,
    _quote,
    _unbracketed,
    paragraph_sizes,
)
from poemetric.text.plural import counted

_THINK_BLOCK = re.compile(
    r"<(think|thinking|thought|reasoning)>(.*?)</\1>", re.IGNORECASE | re.DOTALL
)
_THINK_CLOSE = re.compile(r"</(think|thinking|thought|reasoning)>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(think|thinking|thought|reasoning)>", re.IGNORECASE)


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
    opening = _THINK_OPEN.search(text)
    if opening:
        # Opened but never closed: the answer was cut off while still thinking. Anywhere in the
        # answer, as the judge's parser reads it: a model that thinks again after its poem ("...
        # rung\n<think>Did I keep the scheme?") or writes a word before the tag kept the
        # tag and its reasoning in the stored poem.
        unfinished = text[opening.end() :].strip()
        if unfinished:
            parts.append(unfinished)
        text = text[: opening.start()]
        if text.strip():
            notes.append("moved the text after an unclosed <think> tag to reasoning")
        else:
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


#: A remark about the poem from outside it, as a self-check or a description opens: "This
#: sonnet follows ...", "The rhyme scheme is ...", "Each line has ...", "It scans as ...".
_REMARK_OPENER = re.compile(
    rf"^(?:(?:this|the|my|each|every|all)\s+(?:\w+\s+)?(?:{_FORMS}|lines?|rhyme scheme|"
    r"rhyming scheme|rhyme pattern|met(?:er|re))\b|(?:it|this)\s+(?:follows|uses|keeps|"
    r"scans|rhymes|has|is written|is in)\b|(?:rhyme scheme|rhyming scheme|met(?:er|re)|"
    r"syllables?|lines?\s+\d{1,2})\b)",
    re.IGNORECASE,
)
#: A term that names the poem's mechanics only in a remark about it, not in verse: a rhyme
#: scheme in capitals ("ABAB CDCD EFEF GG", "AABBA"), a named metre, a count of syllables.
_EXACT_MECHANICS = re.compile(
    r"(?-i:\b(?=[A-H]*A)(?=[A-H]*B)[A-H]{3,}(?:\s+[A-H]{2,})*\b)|"
    r"\b(?:iambic|trochaic|anap(?:a)?estic|dactylic|spondaic|"
    r"(?:mono|di|tri|tetra|penta|hexa)met(?:er|re)s?)\b|\b\d{1,2}[- ]syllables?\b|"
    r"\b\d{1,2}(?:\s*,\s*\d{1,2}){2,}\b",
    re.IGNORECASE,
)
#: Lines named by number ("lines 1 and 3", "line 4"), exact in a remark that speaks of rhyme,
#: syllables, metre or stress ("Lines 1 and 3 rhyme; lines 2 and 4 rhyme.").
_LINE_REFS = re.compile(r"\blines?\s+\d{1,2}(?:\s*(?:,|and|&|-|–)\s*\d{1,2})*\b", re.I)
_RHYME_OR_COUNT = re.compile(r"\brhym|syllab|\bmet(?:er|re)\b|\bstress", re.I)
_OTHER_MECHANICS = re.compile(
    r"\b(?:rhym(?:e|ing) (?:scheme|pattern)|met(?:er|re)|syllables?|volta|refrain)\b",
    re.IGNORECASE,
)


def _exact_terms(text: str) -> tuple[list[str], list[str]]:
    """The terms of `text` that name the poem's mechanics exactly, and of them the lines named
    by number (only in a text that speaks of rhyme, syllables, metre or stress)."""
    numbered = _LINE_REFS.findall(text) if _RHYME_OR_COUNT.search(text) else []
    return _EXACT_MECHANICS.findall(text) + numbered, numbered


def is_meta_sentence(line: str, width: int | None) -> bool:
    """A one-line remark naming the poem's rhyme scheme, metre or syllables, as a model glues
    under its last line ("This sonnet follows ABAB CDCD EFEF GG with iambic pentameter.", "Let
    me check: AABBA, anapestic. Good."): it opens as self-talk or as a remark about the poem,
    ends like a sentence, and names the mechanics exactly (a scheme in capitals, a named metre,
    a count) and once more. Self-talk needs an analysis (a scheme, a count, "line 3") or a
    line longer than any of the poem's (`width`); another remark a scheme in capitals, three
    such names, or a longer line: "The sonnet keeps its iambic pentameter." or "Wait, let me
    check the meter: iambic, true." closing a poem about sonnets may be verse. Lines named by
    number count as a scheme in capitals does ("Lines 1 and 3 rhyme; lines 2 and 4 rhyme."),
    and a remark in brackets is read without them. `width` None: judged by its words alone,
    whatever its length."""
    text = _chat_text(line)
    opening = _unbracketed(text)
    self_talk = bool(_SELF_TALK.match(opening))
    if not (self_talk or _REMARK_OPENER.match(opening)) or not _ENDS.search(text):
        return False
    exact, numbered = _exact_terms(text)
    named = len(exact) + len(_OTHER_MECHANICS.findall(text))
    if not exact or named < 2:
        return False
    if width is not None and len(text) > width:
        return True
    if self_talk:
        return bool(_ANALYSIS.search(text))
    # a scheme in capitals, or lines named by number
    return named >= 3 or any(term.isupper() for term in exact) or bool(numbered)


def completes_a_stanza(lines: list[str], glued: int = 1) -> bool:
    """Whether the last `glued` lines of `lines` (a poem and lines glued under it), or the first
    of them, complete a stanza shaped like one before it: with them, or with their first line or
    lines, the last stanza has as many lines as an earlier one has, without them, as none has.
    The fourth line of a quatrain naming its metre is verse; a remark glued under a sonnet's
    couplet or a stanza as long as the others makes one unlike them."""
    *earlier, last = paragraph_sizes(lines) or [0]
    return last - glued not in earlier and any(last - kept in earlier for kept in range(glued))


#: The most lines that a remark glued under the poem is read over as one.
_GLUED_LINES = 3


def glued_blocks(lines: list[str], first: int, end: int) -> list[int]:
    """The starts of the two or three lines ending at `end` that are shaped as one remark glued
    under the poem (which starts at `first`), fewest first: no blank line among them or right
    above them, the line above ends a sentence, the poem above has twice their lines or more (a
    remark is a short tail: the last two lines of a quatrain are the poem's), each of them ends
    like a sentence (a model writes a sentence a line) or they are one remark in brackets
    ("(Lines 1 and 3 rhyme;\nlines 2 and 4 rhyme.)"), and the first names the mechanics
    exactly, or is self-talk about them, as a remark's first sentence does: a verse line above
    a remark ("The meter of the sea is all I know.") is not read into it."""
    starts: list[int] = []
    for start in range(end - 2, end - _GLUED_LINES - 1, -1):
        above = sum(1 for line in lines[first:start] if line.strip())
        if above < 2 * (end - start) or not all(line.strip() for line in lines[start - 1 : end]):
            break
        block = [_chat_text(line) for line in lines[start:end]]
        bracketed = block[0].startswith("(") and block[-1].endswith(")")
        sentences = bracketed or all(_ENDS.search(text) for text in block)
        self_check = _SELF_TALK.match(_unbracketed(block[0])) and _MECHANICS.search(block[0])
        opens = self_check or _exact_terms(block[0])[0]
        if sentences and opens and _ENDS.search(_chat_text(lines[start - 1])):
            starts.append(start)
    return starts


def _glued_self_check(lines: list[str], first: int) -> int | None:
    """Where a self-check glued under the poem's last line starts (one line, or two or three
    read as one: "Let me check: ABAB CDCD EFEF GG, iambic pentameter.\nAll lines have 10
    syllables. Good."), or None."""
    content = [i for i in range(first, len(lines)) if lines[i].strip()]
    if len(content) < 3 or content[-2] != content[-1] - 1:
        return None
    index = content[-1]
    for start in glued_blocks(lines, first, index + 1):
        text = " ".join(line.strip() for line in lines[start : index + 1])
        if (
            _SELF_TALK.match(_chat_text(lines[start]))
            and not completes_a_stanza(lines[first : index + 1], index + 1 - start)
            and is_meta_sentence(text, None)
        ):
            return start
    above = _chat_text(lines[index - 1])
    width = max(len(lines[i].strip()) for i in content[:-1])
    if (
        _ENDS.search(above)
        and _SELF_TALK.match(_chat_text(lines[index]))
        and not completes_a_stanza(lines[first : index + 1])  # a stanza's last line: verse
        and is_meta_sentence(lines[index], width)
    ):
        return index
    return None


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
    glued = _glued_self_check(lines, first)
    if glued is not None:
        check = "\n".join(line.strip() for line in lines[glued:]).strip()
        size = check.count("\n") + 1
        what = "a self-check" if size == 1 else f"a self-check of {size} lines"
        notes.append(
            f"moved {what} glued under the poem's last line to reasoning: {_quote(lines[glued])}"
        )
        return lines[:glued], check
    return lines, None
