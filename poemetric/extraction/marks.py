"""Marks a model writes on the poem's own lines: a syllable count at the end of each line
("... at noon, (10)"), a rhyme-scheme letter at the end ("... hill (A)", "... hill — A"), alone
or beside a count in one pair of brackets ("... hill (A, 8)", "(A - 8)", "(8, A)", "[A 8]"), a label
at the start ("Line 1: ...") and a plain number at the start ("1. ...", "1) ...", "(1) ..."). Each
is removed only when most lines carry one (a number only when every line does), so a single
bracketed number or letter, a verse line ending "— I" or starting "Line", or a list poem's few
numbered items stay."""

from __future__ import annotations

import itertools
import re

from poemetric.extraction.classify import _HEADING_TEXT, _plain
from poemetric.text.plural import counted

_COUNT_TAG = re.compile(
    r"\s*(?:\*\*|__|\*|_)?[\(\[]\s*(\d{1,2})(?:\s*(?:syllables?|syll?s?\.?))?\s*[\)\]]"
    r"(?:\*\*|__|\*|_)?\s*$",
    re.IGNORECASE,
)

_LINE_LABEL = re.compile(
    r"^\s*(?:\*\*|__)?(?:line|l)\s*(\d{1,3})\s*[:.)\-–—]\s*(?:\*\*|__)?\s*(?=\S)", re.IGNORECASE
)

_LINE_NUMBER = re.compile(r"^\s*(?:\*\*|__)?(\(\d{1,3}\)|\d{1,3}[.)])(?:\*\*|__)?[ \t]+(?=\S)")


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
        f"removed syllable counts at the end of {counted(len(marked), 'line')}, such as {example!r}"
    )
    return [
        line if start is None else line[:start] for line, start in zip(lines, starts, strict=True)
    ]


_EMPHASIS = r"(?:\*\*|__|\*|_)?"
#: A scheme letter, with a refrain's number or a prime ("A", "b", "A1", "B'").
_LETTER = r"(?P<letter>[A-Za-z])(?:\d|'|′)?"
#: A syllable count beside a scheme letter in one pair of brackets ("8", "8 syllables").
_PAIRED_COUNT = r"\d{1,2}(?:\s*(?:syllables?|syll?s?\.?))?"
_PAIR_SEP = r"(?:\s*[,;/\-–—]\s*|\s+)"
#: A scheme letter at a line's end, in brackets ("(A)", "[b]", "(A1)", "*(A)*"), after a dash
#: ("- A", "— A", "–B'"), or beside a syllable count in one pair of brackets ("(A, 8)",
#: "(A 8)", "(A - 8)", "(B – 8)", "[A, 8]", "(8, A)", "(A, 8 syllables)").
_SCHEME_TAGS = (
    re.compile(rf"\s*{_EMPHASIS}[\(\[]\s*{_LETTER}\s*[\)\]]{_EMPHASIS}\s*$"),
    re.compile(rf"(?:\s+-|\s*[—–])\s*{_EMPHASIS}{_LETTER}{_EMPHASIS}\s*$"),
    re.compile(
        rf"\s*{_EMPHASIS}[\(\[]\s*(?:{_LETTER}{_PAIR_SEP}{_PAIRED_COUNT}|"
        rf"{_PAIRED_COUNT}{_PAIR_SEP}{_LETTER.replace('letter', 'first')})\s*[\)\]]"
        rf"{_EMPHASIS}\s*$",
        re.IGNORECASE,
    ),
)


def _scheme_marks(lines: list[str], tag: re.Pattern[str]) -> list[tuple[int, str] | None]:
    """Where a scheme letter in the style `tag` starts on each line, and the letter in capitals
    (None: no letter there)."""
    marks: list[tuple[int, str] | None] = []
    for line in lines:
        match = tag.search(line)
        if match and line[: match.start()].strip():
            letter = match.groupdict().get("letter") or match.group("first")
            marks.append((match.start(), letter.upper()))
        else:
            marks.append(None)
    return marks


def _lettered_as_scheme(letters: list[str]) -> bool:
    """A rhyme scheme is lettered from A, each new rhyme a later letter (ABAB CDCD, AABBA, A1 b
    A2, aabR): verse whose lines end "(I)" ... "(O)" or "— I" ... "— O" is not lettered so."""
    firsts = list(dict.fromkeys(letters))
    return firsts[0] == "A" and firsts == sorted(firsts)


def strip_scheme_letters(lines: list[str], notes: list[str]) -> list[str]:
    """Remove a rhyme-scheme letter ("(A)", "— B") at the end of lines, when most lines carry
    one in the same style, with two letters or more and one coming back, as in every rhyme
    scheme (a refrain of "— I" closing most lines is verse)."""
    content = sum(1 for line in lines if line.strip())
    for tag in _SCHEME_TAGS:
        marks = _scheme_marks(lines, tag)
        starts = [mark[0] if mark else None for mark in marks]
        marked = [(line, mark[0]) for line, mark in zip(lines, marks, strict=True) if mark]
        letters = [mark[1] for mark in marks if mark]
        if not _most(len(marked), content) or not 2 <= len(set(letters)) < len(letters):
            continue
        if not _lettered_as_scheme(letters):
            continue
        example = marked[0][0][marked[0][1] :].strip()
        what = "letters and syllable counts" if tag is _SCHEME_TAGS[-1] else "letters"
        notes.append(
            f"removed rhyme-scheme {what} at the end of {counted(len(marked), 'line')}, "
            f"such as {example!r}"
        )
        return [
            line if start is None else line[:start].rstrip()
            for line, start in zip(lines, starts, strict=True)
        ]
    return lines


def strip_line_labels(lines: list[str], notes: list[str]) -> list[str]:
    """Remove "Line 1:" labels at the start of lines, numbered upwards (or from 1 per stanza)."""
    labels = [_LINE_LABEL.match(line) for line in lines]
    numbers = [int(label.group(1)) for label in labels if label]
    ordered = all(b in {a + 1, 1} for a, b in itertools.pairwise(numbers))
    content = sum(1 for line in lines if line.strip())
    if not (numbers and numbers[0] == 1 and ordered and _most(len(numbers), content)):
        return lines
    notes.append(f"removed 'Line N:' labels from {counted(len(numbers), 'line')}")
    return [
        line[label.end() :] if label else line for line, label in zip(lines, labels, strict=True)
    ]


def _numbered_upwards(lines: list[str], numbers: list[int | None]) -> bool:
    """The numbers run 1, 2, 3 ... down the poem, or start again from 1 at a stanza's first line."""
    previous = 0
    for index, number in enumerate(numbers):
        if number is None:
            continue
        stanza_start = index == 0 or not lines[index - 1].strip()
        if number != previous + 1 and not (number == 1 and stanza_start):
            return False
        previous = number
    return True


def strip_line_numbers(lines: list[str], notes: list[str]) -> list[str]:
    """Remove "1. ", "1) " or "(1) " at the start of lines when every line of the poem, four or
    more, carries one, in one style, numbered upwards from 1. A poem with a line left unnumbered
    (a list poem's opening line, an item running over two lines) or only three lines keeps them."""
    matches = [_LINE_NUMBER.match(line) for line in lines]
    marked = [match for match in matches if match]
    content = sum(1 for line in lines if line.strip())
    if len(marked) < 4 or len(marked) != content:
        return lines
    styles = {re.sub(r"\d", "", match.group(1)) for match in marked}  # ".", ")" or "()"
    numbers = [int(re.sub(r"\D", "", match.group(1))) if match else None for match in matches]
    if len(styles) != 1 or not _numbered_upwards(lines, numbers):
        return lines
    notes.append(
        f"removed line numbers from {counted(len(marked), 'line')}, such as "
        f"{marked[0].group(0).strip()!r}"
    )
    return [
        line[match.end() :] if match else line for line, match in zip(lines, matches, strict=True)
    ]


_NUMBER_LINE = re.compile(r"^\s*(?:\d+|[IVXLC]+)[.)]?\s*$")


def unheaded(line: str) -> str:
    """The line as plain text (`_plain`) without a markdown heading's marks: "### Stanza 2"
    reads "Stanza 2", "**II.**" reads "II."."""
    plain = _plain(line)
    heading = _HEADING_TEXT.match(plain)
    return heading.group(1) if heading else plain


def _stanza_number(line: str) -> bool:
    """The line is a stanza's number alone ("II.", "**II**", "### 2"), in markdown or not."""
    return bool(_NUMBER_LINE.match(unheaded(line)))


def numbered_stanzas(lines: list[str]) -> list[int]:
    """The indexes of stanza numbers (`_stanza_number`) that open a paragraph over verse."""
    return [
        i for i, line in enumerate(lines)
        if _stanza_number(line) and (i == 0 or not lines[i - 1].strip())
        and i + 1 < len(lines) and lines[i + 1].strip()
    ]  # fmt: skip
