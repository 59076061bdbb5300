"""Closing remarks after the poem: sign-offs, notes and analyses, as whole paragraphs after the
last stanza or as a sign-off, metadata line or remark glued to it (a remark may run over two or
three lines, read as one).

A paragraph whose first line is chat is removed only when it is shaped like chat, not verse: a
chat model writes each sentence or paragraph on one line, so a paragraph whose lines run on (a
line before the last ends mid-sentence, as in "I hope the rain will bring you home,\\nthe lamps
...") is a stanza, and so is one of end-stopped lines where a later line is plain verse.

Prose about the poem without a chat marker ("In this poem, the harbour stands for ...", "This
captures ...", "- Written in iambic pentameter.") is a closing remark when it opens like a
description and is either longer than any line of the poem or technical ("iambic pentameter",
"slant rhymes", "ABAB"): a short line such as "In this poem, nobody dies." may be verse.
"""

from __future__ import annotations

import re
import unicodedata

from poemetric.extraction.classify import (
    _BULLET,
    _COMMENTARY_HEADER,
    _DESCRIBING_VERBS,
    _FORM_RE,
    _FORMS,
    _META_RE_I,
    _METADATA,
    _SHORT_CLOSING,
    _STRONG_CLOSING,
    _TECHNICAL_TERMS,
    _WRITTEN,
    _chat_text,
    _commentary_text,
    _is_commentary,
    _is_glued_closing,
    _quote,
    _unbracketed,
)
from poemetric.extraction.reasoning import (
    _exact_terms,
    completes_a_stanza,
    glued_blocks,
    is_meta_sentence,
)
from poemetric.extraction.signature import is_signature
from poemetric.form.rhyme import RhymeKind, classify_rhyme

_SENTENCE_END = re.compile(r"[.!?:…)\]][\"'”’*_)\]]*$")


def _ends_sentence(line: str) -> bool:
    """The line ends like a sentence (emoji and other symbols after the punctuation ignored)."""
    text = _chat_text(line)
    while text and (unicodedata.category(text[-1]) in {"So", "Sk", "Mn", "Cf"} or text[-1] == " "):
        text = text[:-1]
    return bool(_SENTENCE_END.search(text))


_DESCRIBING = "|".join(_DESCRIBING_VERBS)
_DESCRIBES = re.compile(
    r"^(?:this (?:" + _DESCRIBING + r"|celebrates|portrays|paints|"
    r"poem|piece|version|one)|in (?:this|the) (?:" + _FORMS + r"|piece|version|first|second|"
    r"third|final|last|opening|closing)|here,? (?:the|i)|"
    r"i(?:'ve| have)? (?:used|kept|chose|chosen|went|gone|opted|wanted|aimed|tried|focused|leaned|"
    r"played|included|incorporated|employed|structured|let|gave|given|built|leaned|mixed|varied)|"
    r"the (?:" + _FORMS + r"|first|second|third|fourth|final|last|opening|closing|volta|meter|"
    r"metre|imagery|refrain|repetition|title|tone|mood|central|extended)\b|"
    r"each (?:stanza|line|quatrain|couplet|tercet|verse)|" + _WRITTEN + r")\b",
    re.IGNORECASE,
)
#: Openers that speak of the poem from outside it, for a line glued to the last stanza ("The
#: poem of his hands ..." may be verse; "This captures ..." and "I've used ..." are not).
_GLUED_DESCRIBES = re.compile(
    r"^(?:this (?:" + _DESCRIBING + r"|celebrates|portrays|paints)|"
    r"in this (?:" + _FORMS + r"|piece|version)\s*,|i(?:'ve| have)? (?:used|kept|chose|chosen|"
    r"went|opted|wanted|aimed|tried|focused|leaned|included|incorporated|employed|structured)|"
    rf"{_WRITTEN})\b",
    re.IGNORECASE,
)
#: Words that interpret the poem ("the harbour stands for ..."), which verse seldom uses.
_INTERPRETS = re.compile(
    r"\b(?:represents?|symboli[sz]es?|symbols? of|stands? for|metaphor for|serves as|"
    r"embod(?:y|ies)|the (?:imagery|theme|tone|mood)|juxtaposition)\b",
    re.IGNORECASE,
)
_TECHNICAL = re.compile(
    rf"\b(?:{_TECHNICAL_TERMS}|spondaic|hexameter|(?:slant|near|half|internal|end|eye) rhymes?|"
    r"enjambe?ments?|caesuras?|feet)\b",
    re.IGNORECASE,
)
_SCHEME = re.compile(r"\b[A-H]{4,}\b")  # "ABAB", "ABBA CDDC", in capitals only


def _description_text(line: str) -> str:
    """The text of a line that may describe the poem, without a leading dash or bullet and, as
    chat models often set a note apart, its brackets: "(Written in iambic pentameter.)"."""
    return _unbracketed(_chat_text(line).lstrip("—–-* ").strip())


def _is_technical(text: str) -> bool:
    return len(_TECHNICAL.findall(text)) + len(_SCHEME.findall(text)) >= 2


def _is_long(text: str, width: int | None, factor: float) -> bool:
    """Longer than `factor` times the poem's longest line (`width`; None: never) and prose."""
    return width is not None and len(text) > factor * width and len(text.split()) >= 8


def _is_bracketed_technical(line: str) -> bool:
    """A remark in brackets that names the mechanics exactly ("(Iambic pentameter, AABB CC)",
    "[ABAB CDCD EFEF GG]"): technical (`_is_technical`), with a scheme in capitals or, when it
    is no sentence, a named metre ("(my iambic heart, my pentameter of rain.)" is verse)."""
    text = _chat_text(line)
    inner = _unbracketed(text)
    if inner == text or not _is_technical(inner):
        return False
    return bool(_SCHEME.search(inner)) or (
        bool(_exact_terms(inner)[0]) and not inner.endswith((".", "!", "?", ","))
    )


def _is_description(line: str, width: int) -> bool:
    """Prose that describes the poem, with no chat marker: it opens like a description ("In this
    poem, ...", "This captures ...", "I've used ...", "- Written in ..."), ends like a sentence,
    and is longer than the poem's longest line (`width`) by a fifth or technical ("iambic
    pentameter"); a long line that interprets ("stands for", "the imagery") needs no opener."""
    text = _description_text(line)
    if not text or not _ends_sentence(text):
        return False
    long = _is_long(text, width, 1.2)
    opens = bool(_DESCRIBES.match(text))
    return (opens and (long or _is_technical(text))) or (long and bool(_INTERPRETS.search(text)))


_END_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
#: How many lines above a line its rhyme may be, as in a quatrain's ABBA or a limerick's AABBA.
_RHYME_WINDOW = 4


def _end_word(line: str) -> str | None:
    """The last word of a line, lower-cased; None for none or for rhyme-scheme letters ("GG")."""
    words = _END_WORD.findall(_chat_text(line))
    if not words or (len(words[-1]) > 1 and words[-1].isupper()):
        return None
    return words[-1].lower()


def _rhymes_as_verse(lines: list[str], first: int, start: int, end: int) -> bool:
    """Whether `lines[start:end]`, glued under the poem that starts at `first`, rhyme on as its
    last stanza does: each ends in a word that rhymes (perfectly, or the same word) with the end
    of one of the four lines before it, and none is a fourth longer than the stanza's longest
    line. A meta-poem's last lines name its mechanics and rhyme ("... approach the night.\nIt
    scans in iambic pentameter all night."); a remark seldom rhymes with the poem
    ("... the night.\nThe rhyme scheme is ABAB CDCD EFEF GG.")."""
    glued = " ".join(_chat_text(line) for line in lines[start:end])
    if glued.startswith("(") and glued.endswith(")"):
        return False  # a remark in brackets: "(Lines 1 and 3 rhyme; lines 2 and 4 rhyme.)"
    stanza: list[str] = []
    for line in lines[first:start]:
        stanza = [*stanza, line.strip()] if line.strip() else []
    if not stanza:
        return False
    width = max(len(line) for line in stanza)
    ends = [_end_word(line) for line in stanza]
    for line in lines[start:end]:
        word = _end_word(line)
        if word is None or len(line.strip()) > 1.25 * width:
            return False
        near = [other for other in ends[-_RHYME_WINDOW:] if other]
        if not any(classify_rhyme(word, other) >= RhymeKind.PERFECT for other in near):
            return False
        ends.append(word)
    return True


def _is_glued_remark(lines: list[str], first: int, start: int, end: int) -> bool:
    """Whether `lines[start:end]` (one line, or a few read as one), right under the poem that
    starts at `first`, are a remark from outside it rather than its last lines: either prose
    that describes the poem from outside ("This captures", "I've used", "Written in"), ends like
    a sentence and is technical ("iambic pentameter", "ABAB") or half as long again as any verse
    line; or, under two verse lines or more, a sentence naming the mechanics exactly
    (`is_meta_sentence`) that does not complete a stanza shaped like the others
    (`completes_a_stanza`). Several lines are judged by their words alone, not their length,
    and so is a line set apart as a stanza of its own when it names the mechanics (a
    meta-poem's last line: "It scans as iambic tetrameter, as he would want."). Lines that
    rhyme on as the stanza above them does (`_rhymes_as_verse`) are verse, whatever they name:
    a meta-poem's last lines ("It scans in iambic pentameter all night.\nThe rhyme scheme
    ABAB holds it tight.")."""
    above = [text.strip() for text in lines[first:start] if text.strip()]
    if _rhymes_as_verse(lines, first, start, end):
        return False
    line = " ".join(text.strip() for text in lines[start:end])
    width = max(len(text) for text in above) if end - start == 1 else None
    description = _description_text(line)
    if (
        description
        and _ends_sentence(description)
        and _GLUED_DESCRIBES.match(description)
        and (_is_long(description, width, 1.5) or _is_technical(description))
    ):
        return True
    set_apart = start > 0 and not lines[start - 1].strip()
    return (
        len(above) >= 2
        and is_meta_sentence(line, None if set_apart else width)
        and not completes_a_stanza(lines[first:end], end - start)
    )


def _is_header(line: str) -> bool:
    """A line that opens a block of commentary: "Notes:", "### Analysis", "Rhyme scheme: ..."."""
    text = _commentary_text(line)
    return bool(_COMMENTARY_HEADER.match(text) or _METADATA.match(text))


_MARKED = re.compile(r"^\s*(?:#{1,6}\s|(\*\*|__).+(?:\1|:)\s*$)")


#: A header over notes that opens with no commentary word ("A few notes on the limerick:",
#: "Here's a breakdown of the form:", "How it fits the form:", "Rhyme and meter:", "Things to
#: note:"): one only in markdown or over bullets (`_is_soft_header`), as a stanza may open "Some
#: notes of the thrush drift down:".
_SOFT_HEADER = re.compile(
    r"^(?:(?:a few|some|quick|brief|short|additional|further|craft|form|technical|poetic|"
    r"writing|style)\s+notes?|things to (?:note|notice)|(?:(?:key|poetic|literary|stylistic|"
    r"formal|craft)\s+)?(?:elements|choices|techniques)|(?:my\s+)?approach|"
    r"rhym(?:e|es|ing) and met(?:er|re)|met(?:er|re) and rhym(?:e|es|ing)|"
    r"how (?:it|this|the (?:poem|" + _FORMS + r")) (?:fits|follows|meets|works|uses|adheres)|"
    r"here(?:'s| is) (?:a|an|the|my) (?:(?:quick|brief|short|closer)\s+)?(?:breakdown|"
    r"explanation|analysis|look|notes?|overview)|here(?:'s| is) (?:how|why|what) (?:it|this|"
    r"the|my|i))\b[^:]{0,60}:$",
    re.IGNORECASE,
)


def _is_soft_header(line: str, under: list[str]) -> bool:
    """`line` is a `_SOFT_HEADER` with bullets under it (`under`, the rest of its paragraph), or
    in markdown ("**A few notes:**", "### Rhyme and meter:") over lines that do not run on as
    verse does."""
    if not _SOFT_HEADER.match(_commentary_text(line)):
        return False
    if under and all(_BULLET.match(x) for x in under):
        return True
    return bool(_MARKED.match(line)) and all(_ends_sentence(x) for x in under[:-1])


def _is_marked_header(line: str) -> bool:
    """A commentary header in markdown ("## Breakdown", "**Analysis:**", "**A few notes:**"): it
    opens a section even right under the last line of the poem, with no blank line before it."""
    text = _commentary_text(line)
    header = _COMMENTARY_HEADER.match(text) or _SOFT_HEADER.match(text)
    return bool(_MARKED.match(line)) and bool(header)


def _is_closing_paragraph(paragraph: list[str], width: int) -> bool:
    """The paragraph is a closing remark: its first line is chat and it is not shaped as verse.

    `width` is the length of the poem's longest line: a later line longer than any verse line
    is prose. After a first line that is only a sign-off ("I hope you like the stanza where you
    laugh."), which verse can say, the later lines must be chat, prose-long or technical; after
    one that talks about the form, a later line may also name it ("Each stanza has four lines.").
    """
    first, rest = paragraph[0], paragraph[1:]
    if _is_soft_header(first, rest):
        return True
    if not (
        _is_commentary(first)
        or _is_description(first, width)
        or is_signature(first)
        or _is_bracketed_technical(first)
    ):
        return False
    if not rest or _is_header(first) or any(_BULLET.match(line) for line in paragraph):
        return True
    if not all(_ends_sentence(line) for line in paragraph[:-1]):
        return False  # the lines run on: a stanza
    about_form = not _STRONG_CLOSING.match(_chat_text(first))
    return all(
        _is_commentary(line)
        or _is_glued_closing(line)
        or is_signature(line)
        or _is_description(line, width)
        or len(_TECHNICAL.findall(line)) + len(_SCHEME.findall(line)) > 0
        or (about_form and bool(_FORM_RE.search(line) or _META_RE_I.search(line)))
        or len(line.strip()) > width
        for line in rest
    )


def _paragraph(lines: list[str], start: int) -> list[str]:
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return lines[start:end]


#: A verse line ending so runs on into the next line.
_RUNS_ON = (",", ";", ":", "—", "–", "-")


def _is_glued(lines: list[str], first: int, index: int) -> bool:
    """`lines[index]`, right under the line before it, is a closing remark rather than verse."""
    line = lines[index]
    if line.rstrip().endswith((",", ";")):
        return False
    above = [text.strip() for text in lines[first:index] if text.strip()]
    if above and _SHORT_CLOSING.match(_chat_text(line)) and above[-1].endswith(_RUNS_ON):
        return False  # "all the years you gave me —\nthank you!" ends the poem's sentence
    if _is_glued_closing(line):
        return True
    if is_signature(line):  # "— ChatGPT" under the last line; "Composed by an AI." rhyming on
        return not _rhymes_as_verse(lines, first, index, index + 1)
    if _is_bracketed_technical(line):  # "(Iambic pentameter, AABB CC)"
        return True
    if not above or not _ends_sentence(above[-1]):
        return False
    return _is_glued_note(line) or _is_glued_remark(lines, first, index, index + 1)


_NOTE = re.compile(r"^\(?\s*notes?\s*:\s*\S", re.IGNORECASE)


def _is_glued_note(line: str) -> bool:
    """A note glued under the poem that speaks of it ("Note: The poem uses iambic pentameter.",
    "(Note: each stanza ends on the refrain.)"): "Note:" with its colon, a word about the poem or
    its form, and a sentence's end; "Note: the swallows wheel above the burn." is verse."""
    text = _chat_text(line)
    about = _FORM_RE.search(text) or _META_RE_I.search(text) or _TECHNICAL.search(text)
    return bool(_NOTE.match(text) and about and _ends_sentence(text))


def _glued_block(lines: list[str], first: int, end: int) -> int | None:
    """Where a remark of two or three lines glued under the poem and ending at `end` starts
    ("This sonnet follows ABAB CDCD EFEF GG.\nEach line is in iambic pentameter.", "(Lines 1
    and 3 rhyme;\nlines 2 and 4 rhyme.)"), or None: lines shaped as one remark
    (`glued_blocks`) that are one as a line (`_is_glued_remark`), or in brackets, a metadata
    line ("(Rhyme scheme: ABAB CDCD EFEF GG;\niambic pentameter throughout.)"). A first line
    that rhymes on as verse (`_rhymes_as_verse`) is the poem's, not read into a remark."""
    for start in glued_blocks(lines, first, end):
        text = " ".join(line.strip() for line in lines[start:end])
        if not text.startswith("(") and _rhymes_as_verse(lines, first, start, start + 1):
            continue
        bracketed = text.startswith("(") and _is_glued_closing(text)
        if bracketed or _is_glued_remark(lines, first, start, end):
            return start
    return None


def strip_trailing_chatter(lines: list[str], notes: list[str]) -> list[str]:
    starts = [
        i
        for i, line in enumerate(lines)
        if line.strip() and (i == 0 or not lines[i - 1].strip() or _is_marked_header(line))
    ]
    first_content = starts[0] if starts else len(lines)
    cut = len(lines)
    width, measured = 0, first_content  # the longest line above `start`, kept as it grows
    for start in starts[1:]:
        width = max([width, *(len(line.strip()) for line in lines[measured:start])])
        measured = start
        if not _is_closing_paragraph(_paragraph(lines, start), width):
            continue
        later = [s for s in starts if s > start]
        if all(
            _is_closing_paragraph(_paragraph(lines, s), width) or _BULLET.match(lines[s])
            for s in later
        ):
            cut = start
            break
    # A sign-off, metadata or description glued to the last stanza ("... night.\nI hope you
    # enjoy it!"); a line ending in a comma or semicolon runs on into the next, as verse does.
    # Several such lines go from the last up, two or three read as one remark first
    # (`_glued_block`: "Each line is in iambic pentameter.\nThe rhyme scheme is ABAB ...", whose
    # last line alone would leave the first), else one that is a remark alone; also above a
    # closing paragraph cut before ("... friend.\nRhyme scheme: ...\n\nI hope you enjoy it!").
    end = cut
    while end > first_content and not lines[end - 1].strip():
        end -= 1
    while end > first_content + 1:
        if (block := _glued_block(lines, first_content, end)) is not None:
            end = block
        elif _is_glued(lines, first_content, end - 1):
            end -= 1
        else:
            break
    if end < cut:
        cut = end
    for line in lines[cut:]:
        if line.strip():
            notes.append(f"removed closing remark: {_quote(line)}")
    return lines[:cut]
