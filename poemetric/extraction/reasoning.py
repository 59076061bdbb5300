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
the mechanics exactly (`is_meta_sentence`, shared with closing remarks glued so).
"""

from __future__ import annotations

import re

from poemetric.extraction.classify import _FORMS, _chat_text, _quote, paragraph_sizes
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


#: A remark about the poem from outside it, as a self-check or a description opens: "This
#: sonnet follows ...", "The rhyme scheme is ...", "Each line has ...", "It scans as ...".
_REMARK_OPENER = re.compile(
    rf"^(?:(?:this|the|my|each|every|all)\s+(?:\w+\s+)?(?:{_FORMS}|lines?|rhyme scheme|"
    r"rhyming scheme|rhyme pattern|met(?:er|re))\b|(?:it|this)\s+(?:follows|uses|keeps|"
    r"scans|rhymes|has|is written|is in)\b|(?:rhyme scheme|rhyming scheme|met(?:er|re)|"
    r"syllables?)\b)",
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
_OTHER_MECHANICS = re.compile(
    r"\b(?:rhym(?:e|ing) (?:scheme|pattern)|met(?:er|re)|syllables?|volta|refrain)\b",
    re.IGNORECASE,
)


def is_meta_sentence(line: str, width: int | None) -> bool:
    """A one-line remark naming the poem's rhyme scheme, metre or syllables, as a model glues
    under its last line ("This sonnet follows ABAB CDCD EFEF GG with iambic pentameter.", "Let
    me check: AABBA, anapestic. Good."): it opens as self-talk or as a remark about the poem,
    ends like a sentence, and names the mechanics exactly (a scheme in capitals, a named metre,
    a count) and once more. Self-talk needs an analysis (a scheme, a count, "line 3") or a
    line longer than any of the poem's (`width`); another remark a scheme in capitals, three
    such names, or a longer line: "The sonnet keeps its iambic pentameter." or "Wait, let me
    check the meter: iambic, true." closing a poem about sonnets may be verse. `width` None:
    judged by its words alone, whatever its length."""
    text = _chat_text(line)
    self_talk = bool(_SELF_TALK.match(text))
    if not (self_talk or _REMARK_OPENER.match(text)) or not _ENDS.search(text):
        return False
    exact = _EXACT_MECHANICS.findall(text)
    named = len(exact) + len(_OTHER_MECHANICS.findall(text))
    if not exact or named < 2:
        return False
    if width is not None and len(text) > width:
        return True
    if self_talk:
        return bool(_ANALYSIS.search(text))
    return named >= 3 or any(term.isupper() for term in exact)  # a scheme in capitals


def completes_a_stanza(lines: list[str]) -> bool:
    """Whether the last line of `lines` (a poem and a line glued under it) completes a stanza
    shaped like one before it: with it, the last stanza has as many lines as an earlier one has,
    without it, as none has. The fourth line of a quatrain naming its metre is verse; a remark
    glued under a sonnet's couplet or a stanza as long as the others makes one unlike them."""
    *earlier, last = paragraph_sizes(lines) or [0]
    return last in earlier and last - 1 not in earlier


def _glued_self_check(lines: list[str], first: int) -> int | None:
    """The index of a one-line self-check glued under the poem's last line, or None."""
    content = [i for i in range(first, len(lines)) if lines[i].strip()]
    if len(content) < 3 or content[-2] != content[-1] - 1:
        return None
    index = content[-1]
    above = _chat_text(lines[index - 1])
    width = max(len(lines[i].strip()) for i in content[:-1])
    if not _ENDS.search(above) or not _SELF_TALK.match(_chat_text(lines[index])):
        return None
    if completes_a_stanza(lines[first : index + 1]):
        return None  # the last line of a stanza shaped like the others: verse
    return index if is_meta_sentence(lines[index], width) else None


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
        notes.append(
            f"moved a self-check glued under the poem's last line to reasoning: "
            f"{_quote(lines[glued])}"
        )
        return lines[:glued], lines[glued].strip()
    return lines, None
