"""An answer that revises a draft in the open: the final version is the poem.

A model that revises in the open writes "Draft 1:" (or an unlabelled poem), perhaps a remark on
what is wrong with it, then "Revised version:" and the poem it offers; the final version is the
poem. The rule needs a paragraph opening with a revision label ("Revised version:", "Final
draft", "Draft 2", "Here's the revised limerick:") with verse under it and something before it
to revise; a first draft's label ("Draft 1:", "First draft") is what must come first, if any.
"Revised:" and "Revision:" alone need their colon; a label with a title ("Revision: Morning")
needs a draft's label before it (else it heads a part of one poem); an announcing sentence
("Here's the revised limerick:") is not one in a paragraph shaped like the stanzas before it;
"Final stanza:" is a stanza label; "Version 1" ... "Version 2" (`alternatives`) and "First
version" ... "Second version" are alternatives.

A model may also rewrite the poem after a cue with no label ("Wait, line 2 doesn't rhyme. Let
me fix it:", "Let me revise:"): the last complete version is the poem (`keep_last_rewrite`),
complete when its stanzas have the first version's sizes and it keeps half its words, or any of
them after a cue that announces a new version ("Let me try again:", "I'll start over:") or
speaks of the poem ("The meter is off. Let me fix it:", "Here is a revised version:").
"""

from __future__ import annotations

import re

from poemetric.extraction.classify import (
    _FORM_RE,
    _PREAMBLE_OPENER,
    _chat_text,
    _is_preamble,
    _quote,
    paragraph_sizes,
)
from poemetric.extraction.reasoning import _MECHANICS
from poemetric.text.plural import counted

_TAIL = r"(?P<sep>\s*[:.\-–—(]\s*(?P<tail>.*?))?\s*$"
_NOUNS = (
    r"draft|version|attempt|take|poem|limerick|sonnet|villanelle|ghazal|ballad|sestina|pantoum|"
    r"haiku|ode"
)
_DRAFT_LABEL = re.compile(
    r"^(?:#{1,6}\s+)?(?:(?:first|initial|rough|original|early)\s+(?:draft|attempt)|"
    r"(?:draft|attempt)(?:\s+(?:1|one|i))?)" + _TAIL,
    re.IGNORECASE,
)
_FINAL_LABEL = re.compile(
    r"^(?:#{1,6}\s+)?(?:(?:revised|final|improved|polished|corrected|updated|edited|fixed|"
    rf"refined)\s+(?:{_NOUNS})|final\s+answer|(?P<bare>revised|revision)|"
    r"(?:draft|attempt|revision)\s+(?:[2-9]|two|three|four|ii|iii|iv))" + _TAIL,
    re.IGNORECASE,
)
#: "Here's the revised version:", "Here is my final limerick, with the meter fixed:".
_FINAL_ANNOUNCED = re.compile(
    r"^(?:here is|here's|below is|this is)\s+(?:the|my|a|an)\s+(?:[\w'-]+\s+){0,2}?"
    r"(?:revised|final|improved|polished|corrected|updated|edited|fixed|refined|tightened|"
    r"tighter|better|cleaner|smoother|stronger|sharper)\s+"
    rf"(?:{_NOUNS})\b.*[:.!]$",
    re.IGNORECASE,
)


def _label(pattern: re.Pattern[str], line: str) -> str | None:
    """The title a revision label (matching `pattern`) gives ("" for none), or None: no label.
    A label's tail is a short title ("Final version: Lamps") or a remark in brackets ("Draft 2
    (tighter):"), not verse."""
    match = pattern.match(_chat_text(line))
    if not match:
        return None
    if match.groupdict().get("bare") and not (match.group("sep") or "").strip().startswith(":"):
        return None  # "Revision" alone may be a section's title; "Revision:" is a label
    tail = (match.group("tail") or "").strip()
    if (match.group("sep") or "").strip().startswith("("):
        # A remark in brackets ("Revised version (rhymes fixed):"), not a title.
        return "" if tail.rstrip(":").endswith(")") else None
    title = tail.strip('"“”')
    verse_like = len(title.split()) > 8 or title[-1:] in {",", ";", ":", "."} or title[:1].islower()
    return None if title and verse_like else title


def _final_label(lines: list[str], index: int) -> str | None:
    """The title the final version's label at `index` gives ("" for none), or None: no label.
    An announcing sentence ("Here is the final poem, with the meter fixed:") is a label only
    on its own (a blank line under it) or over lines shaped unlike the stanzas before it: in a
    stanza of a poem about writing, it is a verse line."""
    label = _label(_FINAL_LABEL, lines[index])
    if label is None and _FINAL_ANNOUNCED.match(_chat_text(lines[index])):
        return "" if _alone_or_unlike_stanzas(lines, index) else None
    return label


def _opens_paragraph(lines: list[str], index: int) -> bool:
    return bool(lines[index].strip()) and (index == 0 or not lines[index - 1].strip())


def _alone_or_unlike_stanzas(lines: list[str], index: int) -> bool:
    """Whether the line at `index` is alone in its paragraph, or its paragraph has a number of
    lines that no paragraph before it has (a label over a stanza, not a stanza)."""
    size = paragraph_sizes(lines[index:])[0]
    return size == 1 or size not in paragraph_sizes(lines[:index])


def _is_intro(line: str) -> bool:
    text = _chat_text(line)
    return _is_preamble(line) or bool(_PREAMBLE_OPENER.match(text) and text.endswith(":"))


def keep_final_revision(lines: list[str], notes: list[str]) -> tuple[list[str], str | None]:
    """The lines of the final version when the answer revises a draft, and the title its label
    gives, if any; else `lines` as they are. A labelled final version is taken first, then the
    last complete rewrite after a cue such as "Let me fix it:" (`keep_last_rewrite`)."""
    lines, title = _keep_labelled_final(lines, notes)
    return keep_last_rewrite(lines, notes), title


def _keep_labelled_final(lines: list[str], notes: list[str]) -> tuple[list[str], str | None]:
    """The lines under the last revision label ("Revised version:", "Draft 2") and the title it
    gives, when there is a draft before it to revise; else `lines` as they are."""
    finals = [
        (index, title)
        for index in range(len(lines))
        if _opens_paragraph(lines, index) and (title := _final_label(lines, index)) is not None
    ]
    finals = [(i, title) for i, title in finals if any(line.strip() for line in lines[i + 1 :])]
    if not finals:
        return lines, None
    last, title = finals[-1]
    content = [i for i in range(last) if lines[i].strip()]
    drafts = [
        i
        for i in content
        if _opens_paragraph(lines, i) and _label(_DRAFT_LABEL, lines[i]) is not None
    ]
    if drafts and not all(_is_intro(lines[i]) for i in content if i < drafts[0]):
        return lines, None  # verse before the first draft's label: not a draft and revision
    if title and not drafts:
        return lines, None  # "Revision: Morning" with no draft before: a titled section
    labels = {i for i, _ in finals} | set(drafts)
    revised = [i for i in content if i not in labels and not _is_intro(lines[i])]
    if not revised:
        return lines, None  # nothing before the label to revise: "Final Version" as a title
    start = drafts[0] if drafts else revised[0]
    _note_earlier(lines, content, start, last, "draft before the final version", notes)
    notes.append(f"removed the label of the final version: {_quote(lines[last])}")
    return lines[last + 1 :], title or None


def _note_earlier(
    lines: list[str], content: list[int], start: int, stop: int, what: str, notes: list[str]
) -> None:
    """Notes for the lines removed before a kept version: each preamble line before `start`,
    and the earlier version's lines from `start` to `stop` as one count."""
    for i in content:
        if i < start:
            notes.append(f"removed preamble: {_quote(lines[i])}")
    removed = sum(1 for i in content if start <= i < stop)
    notes.append(
        f"removed the earlier {what} ({counted(removed, 'line')} from {_quote(lines[start])})"
    )


#: Words after a cue that say how the rewrite will differ ("... with a lighter tone", ", this
#: time in trimeter", "... into two tercets"): a short phrase opening with a preposition or
#: connective, with no sentence punctuation; a cue with them needs its colon (`_rewrite_cue`).
_MORE = (
    r"(?P<more>,?\s+(?:with|in|into|using|as|for|this time|but|and|so|to|keeping|making|"
    r"focusing|aiming|giving|adding|fixing|changing|tightening|on|at|while|without|where)\b"
    r"(?:\s+[^\s.!?:;]+){0,8})?"
)
#: A sentence that introduces an unlabelled rewrite: "Let me fix it:", "Let me revise:", "Let's
#: try again:", "I'll rewrite the limerick:", "Let me fix line 4:", "Let me refine this
#: further:", "I've revised it to improve the meter:", "Here's a fix:" (a
#: "Here's a corrected version:" is `_FINAL_ANNOUNCED`).
_REWRITE_CUE = re.compile(
    r"(?:(?:so|ok(?:ay)?|alright|now|then|hmm+|wait|actually|oops|oh)\s*[,!…—–-]?\s*)*"
    r"(?:(?:(?:let me|let's|i'll|i will)\s+"
    r"(?:fix|revise|rewrite|redo|correct|repair|rework|adjust|tweak|refine|improve|polish|tighten|"
    r"try|start\s+(?:over|afresh))|"
    r"i(?:'ve| have)\s+(?:revised|rewritten|reworked|fixed|corrected|adjusted|tweaked|refined|"
    r"improved|polished|tightened))"
    rf"(?:\s+(?:it|that|this|them|the\s+(?:{_NOUNS}|lines?|stanzas?|rhymes?|met(?:er|re))|"
    r"lines?\s+\d{1,2}(?:\s*(?:,|and|&)\s*\d{1,2})*))?"
    r"(?:\s+(?:again|once more|now|further|a bit|slightly))?|"
    r"here(?:'s| is)\s+(?:a|the|my)\s+(?:quick\s+)?(?:fix|correction))" + _MORE + r"\s*[:.]",
    re.IGNORECASE,
)
#: An announcing sentence of another version: "Here is another version, this time in
#: trimeter:", "Here's a new take with a lighter tone:", "Let me give it another try:"; not
#: "Here's another limerick:", which may offer a second poem rather than rewrite the first.
_ANOTHER_ANNOUNCED = re.compile(
    r"(?:(?:here is|here's|below is|this is)\s+(?:(?:a|an|my)\s+)?(?:another|new|second|"
    r"different|fresh|alternative|alternate)|(?:let me|let's|i'll|i will)\s+(?:give it|have|"
    r"take|make)\s+(?:another|a second|a new|one more))\s+(?:[\w'-]+\s+){0,2}?"
    r"(?:version|draft|attempt|take|try|go|pass|shot|rewrite|rendition|variation)"
    rf"(?:\s+(?:at|of)\s+(?:it|this|that|the\s+(?:{_NOUNS})))?" + _MORE + r"\s*:",
    re.IGNORECASE,
)
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?…])\s+)(?=\S)")


def _last_sentence(line: str) -> str:
    text = _chat_text(line)
    starts = [match.start() for match in _SENTENCE_START.finditer(text)]
    return text[starts[-1] :].strip() if starts else text


def _rewrite_cue(line: str) -> bool:
    """The line's last sentence introduces a rewrite ("Wait, 'milk' doesn't rhyme. Let me fix
    it:"): a cue of `_REWRITE_CUE` or an announcing sentence ("Here's a corrected version:",
    "Here is another version:"). A cue may say how the rewrite differs ("Let me try again with
    a lighter tone:", "Here is another version, this time in trimeter:") when it ends in a
    colon, as a sentence introducing what follows does."""
    if not _chat_text(line).endswith((":", ".")):
        return False
    last = _last_sentence(line)
    if _FINAL_ANNOUNCED.match(last) or _ANOTHER_ANNOUNCED.fullmatch(last):
        return True
    cue = _REWRITE_CUE.fullmatch(last)
    return bool(cue and (not cue.group("more") or last.endswith(":")))


#: A cue that announces a new version rather than a fix of the old one.
_FRESH = re.compile(
    r"\b(?:try(?:\s+it)?\s+(?:again|once more)|rewrite|redo|start\s+(?:over|afresh)|"
    r"(?:another|one more|a second|a new)\s+(?:try|go|shot|pass|attempt|take))\b",
    re.I,
)
#: Words about the poem in the remarks around a cue: its mechanics ("line 2", "the meter"), the
#: form or a rhyme, a version.
_ABOUT_POEM = re.compile(rf"{_MECHANICS.pattern}|{_FORM_RE.pattern}|\b(?:version|draft)\b", re.I)


def _announces_new_version(lines: list[str], cue: int) -> bool:
    """The cue at `cue` may introduce a version with other words than the first: it announces a
    new one and introduces it with a colon ("Let me try again:", "I'll start over:"), or it or
    the one-line remarks right above it speak of the poem ("The meter is off. Let me fix it:",
    "Wait, line 2 doesn't rhyme.\n\nLet me try again.", "Here is a revised version:"). A bare
    "Let me try again." or "So let me fix it:" between stanzas may be verse."""
    start = _paragraph_start(lines, cue)
    while True:
        above = start - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        if above < 0 or _paragraph_start(lines, above) != above:
            break
        start = above
    remarks = " ".join(_chat_text(line) for line in lines[start : cue + 1] if line.strip())
    last = _last_sentence(lines[cue])
    return bool((_FRESH.search(last) and last.endswith(":")) or _ABOUT_POEM.search(remarks))


def _paragraph_start(lines: list[str], index: int) -> int:
    while index > 0 and lines[index - 1].strip():
        index -= 1
    return index


def _verse_shape(lines: list[str]) -> list[int]:
    """The stanza sizes of a version, without the remarks after it: trailing paragraphs of one
    line ("Wait, line 2 doesn't rhyme.", "I hope you enjoy it!")."""
    sizes = paragraph_sizes(lines)
    while sizes and sizes[-1] == 1:
        sizes.pop()
    return sizes


_WORD = re.compile(r"[^\W\d_]{3,}")


def _words(lines: list[str]) -> set[str]:
    return {word.lower() for line in lines for word in _WORD.findall(_chat_text(line))}


def _rewrites(first: list[str], version: list[str]) -> bool:
    """`version` rewrites `first`: it keeps at least half of its words (three letters or more),
    as a model fixing a rhyme or a line does; another stanza of one poem seldom does."""
    words = _words(first)
    return bool(words) and len(words & _words(version)) * 2 >= len(words)


def _relaid(shape: list[int], version: list[str]) -> bool:
    """`version` has as many verse lines as a version of stanza sizes `shape`, in other stanzas
    ("Let me revise it into two tercets:" under a stanza of six, a sonnet of one block set out
    4-4-4-2), opening with a stanza of two lines or more (not a one-line remark over it)."""
    sizes = _verse_shape(version)
    return bool(sizes) and sizes[0] > 1 and sizes != shape and sum(sizes) == sum(shape)


def _version_start(
    lines: list[str], start: int, end: int, first: list[str], new: bool
) -> int | None:
    """Where a complete rewrite of `first` starts in `lines[start:end]`, under its cue: at once,
    or after remarks of one line each ("Line 2 should end in a rhyme for Dundee."); None when
    what follows the cue is not a complete version. A version keeps half the words of `first`,
    unless its cue announces a `new` one; one laid out anew (`_relaid`) keeps them always."""
    shape = _verse_shape(first)
    index = start
    while index < end:
        version = lines[index:end]
        if _verse_shape(version) == shape and (new or _rewrites(first, version)):
            return index
        if _relaid(shape, version) and _rewrites(first, version):
            return index
        while index < end and not lines[index].strip():
            index += 1
        single = index + 1 >= end or not lines[index + 1].strip()
        if index >= end or not single or not _chat_text(lines[index]).endswith((".", ":", "!")):
            return None
        index += 1
    return None


def keep_last_rewrite(lines: list[str], notes: list[str]) -> list[str]:
    """The last complete version when a poem is rewritten after a cue without a label ("Let me
    fix it:", "Let me revise:", "Here's a corrected version:"), else `lines` as they are.

    A cue counts when verse follows it and its paragraph (the cue and any remark over it) is
    not shaped like a stanza of the first version. A version is complete when its stanzas have
    the first version's sizes, and it keeps half the first version's words unless the cue
    announces a new version (`_announces_new_version`); a cue followed by a shorter or cut-off
    version (a fixed line alone, an answer that stops mid-poem) is removed with it.
    """
    content = [i for i, line in enumerate(lines) if line.strip()]
    verse = next((i for i in content if not _is_intro(lines[i])), None)
    if verse is None:
        return lines
    cues = [
        i
        for i in content
        if i > verse and _rewrite_cue(lines[i]) and any(x.strip() for x in lines[i + 1 :])
    ]
    if not cues:
        return lines
    starts = [_paragraph_start(lines, i) for i in cues]
    first_lines = lines[verse : starts[0]]
    first = _verse_shape(first_lines)
    if not first or sum(first) < 2:
        return lines
    for i, start in zip(cues, starts, strict=True):
        size = i - start + 1
        if size > 1 and size in first:
            return lines  # a verse line of a stanza shaped like the others, not a cue
    ends = [*starts[1:], len(lines)]
    versions = [
        _version_start(lines, i + 1, ends[k], first_lines, _announces_new_version(lines, i))
        for k, i in enumerate(cues)
    ]
    complete = [k for k, begin in enumerate(versions) if begin is not None]
    if not complete:
        return lines
    k = complete[-1]
    cue, end, begin = cues[k], ends[k], versions[k] or cues[k] + 1
    _note_earlier(lines, content, verse, cue, "version before the rewrite", notes)
    notes.append(f"removed the line introducing the rewrite: {_quote(lines[cue])}")
    for line in lines[cue + 1 : begin]:
        if line.strip():
            notes.append(f"removed a remark before the rewrite: {_quote(line)}")
    later = sum(1 for i in content if i >= end)
    if later:
        notes.append(
            f"removed an incomplete rewrite after the last complete version "
            f"({counted(later, 'line')} from {_quote(lines[end])})"
        )
    return lines[begin:end]
