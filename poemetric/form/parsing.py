"""Turning raw poem text into lines and stanzas, and rhyme-pattern strings into letters.

Parsing is deliberately conservative: it only removes what is almost certainly not a verse line
(section numbers such as ``II.``, a markdown heading or a short title line set off by a blank
line before multi-line stanzas) and records every removal in `ParsedPoem.notes`, so a verdict can
always be traced back to the text that was checked.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TypeVar

from poemetric.text.plural import counted

#: At most this many verse lines are analysed; longer inputs are truncated (and the verdict says so).
MAX_LINES = 600

_SECTION_NUMBER = re.compile(r"^\s*(?:[IVXLC]+|\d{1,3})\s*[.):]?\s*$")
#: "— Emily Dickinson", "-- W. B. Yeats, 1919": an attribution line.
_ATTRIBUTION = re.compile(r"^\s*(?:—|–|-{1,2}|~)\s*[A-Z(][^.!?;]{0,60}$")
#: "from The Prelude", "From 'Song of Myself'": the header of an excerpt.
_FROM_HEADER = re.compile(r"^\s*[Ff]rom\s+\S")
_MARKDOWN_HEADING = re.compile(r"^\s*(?:#{1,6}\s+\S.*|\*\*[^*]+\*\*|__[^_]+__)\s*$")
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+(?:['’][A-Za-z]+)*")
_PATTERN_CHARS = re.compile(r"^[A-Za-z]+$")


@dataclass(frozen=True)
class ParsedPoem:
    """Verse lines (stripped of indentation and trailing space) grouped into stanzas."""

    lines: tuple[str, ...]
    #: Stanzas as tuples of 0-based line indices into `lines`.
    stanzas: tuple[tuple[int, ...], ...]
    #: True when blank lines divide the poem into real stanzas (not one line per "stanza").
    has_stanza_breaks: bool
    notes: tuple[str, ...] = field(default_factory=tuple)
    truncated_from: int | None = None

    @property
    def stanza_sizes(self) -> tuple[int, ...]:
        return tuple(len(s) for s in self.stanzas)


def _clean_line(raw: str) -> str:
    line = raw.replace("\u00a0", " ").replace("\u2003", " ").replace("\t", " ")
    return " ".join(line.split())


def parse_poem(text: str, *, max_lines: int = MAX_LINES) -> ParsedPoem:
    """Split poem text into verse lines and stanzas (blank lines separate stanzas)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    blocks: list[list[str]] = [[]]
    for raw in text.split("\n"):
        line = _clean_line(raw)
        if line:
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    blocks = [b for b in blocks if b]
    notes: list[str] = []

    # Section numbers ("II.", "3") standing alone are not verse.
    numbered = sum(1 for b in blocks for line in b if _SECTION_NUMBER.match(line))
    if numbered:
        blocks = [[ln for ln in b if not _SECTION_NUMBER.match(ln)] for b in blocks]
        blocks = [b for b in blocks if b]
        notes.append(f"ignored {counted(numbered, 'section-number line')}")
    # A markdown heading at the top is a title.
    if blocks and _MARKDOWN_HEADING.match(blocks[0][0]):
        notes.append(f"ignored title line {blocks[0][0]!r}")
        blocks[0] = blocks[0][1:]
        blocks = [b for b in blocks if b]
    # A trailing attribution ("— Walt Whitman") is not verse.
    if blocks and len(blocks[-1][-1].split()) <= 8 and _ATTRIBUTION.match(blocks[-1][-1]):
        notes.append(f"ignored attribution line {blocks[-1][-1]!r}")
        blocks[-1] = blocks[-1][:-1]
        blocks = [b for b in blocks if b]
    # An excerpt's header ("from The Prelude") set off by a blank line.
    if (
        len(blocks) >= 2
        and len(blocks[0]) == 1
        and _FROM_HEADER.match(blocks[0][0])
        and len(blocks[0][0].split()) <= 8
    ):
        notes.append(f"ignored header line {blocks[0][0]!r}")
        blocks = blocks[1:]
    # An epigraph: a short block ending in an attribution, before the poem.
    if (
        len(blocks) >= 2
        and len(blocks[0]) <= 4
        and _ATTRIBUTION.match(blocks[0][-1])
        and sum(len(b) for b in blocks[1:]) >= 4
    ):
        notes.append(
            f"ignored epigraph of {counted(len(blocks[0]), 'line')} ending {blocks[0][-1]!r}"
        )
        blocks = blocks[1:]
    # A short single line set off before multi-line stanzas is a title.
    if len(blocks) >= 2 and len(blocks[0]) == 1:
        rest = [len(b) for b in blocks[1:]]
        first = blocks[0][0]
        if (
            sorted(rest)[len(rest) // 2] >= 2
            and len(first.split()) <= 8
            and not first.rstrip().endswith((",", ";", ":", "-", "—"))
            and not first[:1].islower()
        ):
            notes.append(f"ignored title line {first!r}")
            blocks = blocks[1:]

    sizes = [len(b) for b in blocks]
    has_breaks = len(blocks) > 1 and sum(1 for s in sizes if s == 1) <= len(blocks) // 2
    lines: list[str] = [ln for b in blocks for ln in b]
    truncated_from: int | None = None
    if len(lines) > max_lines:
        truncated_from = len(lines)
        notes.append(f"only the first {max_lines} of {len(lines)} lines were analysed")
        lines = lines[:max_lines]
    stanzas: list[tuple[int, ...]] = []
    position = 0
    if has_breaks:
        for size in sizes:
            indices = tuple(i for i in range(position, position + size) if i < len(lines))
            position += size
            if indices:
                stanzas.append(indices)
    elif lines:
        stanzas.append(tuple(range(len(lines))))
    return ParsedPoem(
        lines=tuple(lines),
        stanzas=tuple(stanzas),
        has_stanza_breaks=has_breaks,
        notes=tuple(notes),
        truncated_from=truncated_from,
    )


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_LETTER = re.compile(r"[A-Za-z]")


@lru_cache(maxsize=4096)
def _is_latin_letter(ch: str) -> bool | None:
    """True/False for a Latin/other-script letter, None for a non-letter (curly quote, dash)."""
    if not ch.isalpha():
        return None
    return "LATIN" in unicodedata.name(ch, "")


def latin_share(text: str) -> float:
    """Share of letters in `text` that are Latin-script (1.0 for text without letters).

    Only the non-ASCII characters are looked at one by one (found by a regex), so typographic
    quotes and dashes in otherwise ASCII text cost almost nothing.
    """
    if text.isascii():
        return 1.0
    kinds = [_is_latin_letter(ch) for ch in _NON_ASCII.findall(text)]
    others = [k for k in kinds if k is not None]
    if not others:
        return 1.0
    ascii_letters = len(_ASCII_LETTER.findall(text))
    return (ascii_letters + sum(others)) / (ascii_letters + len(others))


def words_of(line: str) -> list[str]:
    return _WORD.findall(line)


@lru_cache(maxsize=16384)
def end_word(line: str) -> str:
    """The last word of a line, lower-cased, without punctuation ('' when there is none)."""
    found = _WORD.findall(line)
    if not found:
        return ""
    word = found[-1].lower().replace("’", "'").replace("æ", "ae").replace("œ", "oe")
    if not word.isascii():
        word = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode("ascii")
    return word


class PatternError(ValueError):
    """A rhyme pattern that is not a sequence of letters."""


def parse_rhyme_pattern(pattern: str) -> tuple[str, tuple[int, ...]]:
    """Normalise a rhyme pattern: ``'abab cdcd'`` -> (``'ABABCDCD'``, group sizes (4, 4)).

    Spaces, slashes, commas and hyphens separate groups; any other non-letter is an error.
    Lower/upper case are the same letter.
    """
    groups = [g for g in re.split(r"[\s/,;|\-]+", pattern.strip()) if g]
    if not groups:
        raise PatternError("empty rhyme pattern")
    for group in groups:
        if not _PATTERN_CHARS.match(group):
            raise PatternError(
                f"rhyme pattern {pattern!r} must contain only letters (A-Z) and spaces"
            )
    letters = "".join(groups).upper()
    return letters, tuple(len(g) for g in groups)


def canonical_pattern(letters: str) -> str:
    """Relabel a pattern so letters appear in order A, B, C...: ``'CDCD'`` -> ``'ABAB'``."""
    mapping: dict[str, str] = {}
    out = []
    for ch in letters:
        if ch not in mapping:
            mapping[ch] = chr(ord("A") + len(mapping)) if len(mapping) < 26 else ch
        out.append(mapping[ch])
    return "".join(out)


Repeated = TypeVar("Repeated", str, tuple[int, ...])


def repeated_group(letters: Repeated, smallest: int = 4) -> Repeated | None:
    """The group that `letters` repeats with the same letters, at least `smallest` long:
    ``'ABCBABCBABCB'`` -> ``'ABCB'`` (each stanza asked for the same rhymes); None otherwise.
    Also a metre's beats per line: ``(4, 3, 4, 3)`` -> ``(4, 3)`` with `smallest` 1."""
    n = len(letters)
    for size in range(smallest, n // 2 + 1):
        if n % size == 0 and letters == letters[:size] * (n // size):
            return letters[:size]
    return None


def minimal_period(letters: str) -> str:
    """The shortest prefix whose relabelled repetitions make up the pattern.

    ``'ABCBDEFE'`` -> ``'ABCB'`` (two quatrains with fresh letters); ``'AAABCCCB'`` stays whole
    because its B links the halves.
    """
    n = len(letters)
    for size in range(1, n):
        if n % size:
            continue
        chunks = [letters[i : i + size] for i in range(0, n, size)]
        used: set[str] = set()
        ok = True
        for chunk in chunks:
            if canonical_pattern(chunk) != canonical_pattern(chunks[0]) or used & set(chunk):
                ok = False
                break
            used |= set(chunk)
        if ok:
            return canonical_pattern(chunks[0])
    return letters
