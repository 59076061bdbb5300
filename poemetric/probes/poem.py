"""One poem as the pair builders see it: verse lines, line-end words and rhyme groups.

Rhyme groups come from the dataset's rhyme pattern when it fits the poem (one letter per verse
line), otherwise from the form checker's inferred scheme (`poemetric.form.rhyme.infer_scheme`).
Either way a group is then split by the checker's own verdicts, so that two lines count as
rhyming partners only when their end words really rhyme (perfect or identical; slant rhymes are too uncertain to build on): a
corruption built on a "rhyme" the ear does not hear would test nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from poemetric.form.phonetics import pronunciations
from poemetric.form.rhyme import RhymeKind, classify_rhyme, infer_scheme

RhymeSource = Literal["auto", "dataset", "checker"]
#: A word: letters with inner apostrophes or hyphens (``o'er``, ``well-known``).
WORD = re.compile(r"[A-Za-z\u00C0-\u024F]+(?:['\u2019-][A-Za-z\u00C0-\u024F]+)*")
#: Rhyme strength that makes two end words partners (slant rhymes such as bonnet/it are not).
PARTNER_FLOOR = RhymeKind.PERFECT


@dataclass(frozen=True)
class Token:
    """A whitespace-separated token: `core` is its word, `lead`/`trail` its punctuation."""

    lead: str
    core: str
    trail: str

    @classmethod
    def split(cls, text: str) -> Token:
        match = WORD.search(text)
        if match is None:
            return cls(text, "", "")
        return cls(text[: match.start()], match.group(0), text[match.end() :])

    @property
    def text(self) -> str:
        return self.lead + self.core + self.trail

    @property
    def is_word(self) -> bool:
        """A word in the limerick paper's sense: at least two letters."""
        return sum(ch.isalpha() for ch in self.core) >= 2


@dataclass(frozen=True)
class RhymeInfo:
    scheme: str
    source: str
    groups: tuple[tuple[int, ...], ...]


class Poem:
    """A poem's text split into lines (blank lines kept, so stanzas survive a rebuild)."""

    def __init__(self, poem_id: str, text: str, rhyme_pattern: str | None = None) -> None:
        self.poem_id = poem_id
        self.lines = text.replace("\r\n", "\n").strip("\n").split("\n")
        self.verse = [i for i, line in enumerate(self.lines) if line.strip()]
        self.rhyme_pattern = rhyme_pattern

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def with_lines(self, replacements: dict[int, str]) -> str:
        """The text with some lines (indices into `lines`) replaced."""
        return "\n".join(replacements.get(i, line) for i, line in enumerate(self.lines))

    def tokens(self, line: int) -> list[Token]:
        return [Token.split(part) for part in self.lines[line].split()]

    def end_token_index(self, line: int) -> int | None:
        """Index of the last token of a line that holds a word."""
        tokens = self.tokens(line)
        for index in range(len(tokens) - 1, -1, -1):
            if tokens[index].core:
                return index
        return None

    @cached_property
    def end_words(self) -> dict[int, str]:
        words: dict[int, str] = {}
        for line in self.verse:
            index = self.end_token_index(line)
            if index is not None:
                words[line] = self.tokens(line)[index].core
        return words

    def rhyme_info(self, source: RhymeSource = "auto") -> RhymeInfo:
        """Scheme letters per verse line and the rhyme groups (line indices, 2+ each)."""
        letters: str | None = None
        used = "checker"
        pattern = re.sub(r"[^A-Za-z]", "", self.rhyme_pattern or "").upper()
        if source in ("auto", "dataset") and len(pattern) == len(self.verse):
            letters, used = pattern, "dataset"
        elif source == "dataset":
            raise ValueError(
                f"{self.poem_id}: rhyme pattern {self.rhyme_pattern!r} has {len(pattern)} "
                f"letters for {len(self.verse)} verse lines"
            )
        if letters is None:
            ends = [self.end_words.get(line, "") for line in self.verse]
            letters = infer_scheme(ends)
        by_letter: dict[str, list[int]] = {}
        for line, letter in zip(self.verse, letters, strict=True):
            if line in self.end_words and letter != "X":
                by_letter.setdefault(letter, []).append(line)
        groups: list[tuple[int, ...]] = []
        for members in by_letter.values():
            groups.extend(self._heard_rhymes(members))
        groups.sort()
        return RhymeInfo(letters, used, tuple(groups))

    def _heard_rhymes(self, members: list[int]) -> list[tuple[int, ...]]:
        """Split lines sharing a letter into groups whose end words really rhyme (union-find)."""
        parent = {line: line for line in members}

        def find(line: int) -> int:
            while parent[line] != line:
                parent[line] = parent[parent[line]]
                line = parent[line]
            return line

        for position, first in enumerate(members):
            for second in members[position + 1 :]:
                if rhyme_kind(self.end_words[first], self.end_words[second]) >= PARTNER_FLOOR:
                    parent[find(second)] = find(first)
        components: dict[int, list[int]] = {}
        for line in members:
            components.setdefault(find(line), []).append(line)
        return [tuple(group) for group in components.values() if len(group) >= 2]


def rhyme_kind(word_a: str, word_b: str) -> RhymeKind:
    return classify_rhyme(word_a, word_b)


def rhymes_with_any(word: str, partners: list[str]) -> bool:
    """True when `word` rhymes with any partner at all (eye and slant rhymes included)."""
    return any(rhyme_kind(word, partner) > RhymeKind.NONE for partner in partners)


def takes_an(word: str) -> bool:
    """Whether `word` is heard to begin with a vowel, and so takes *an* (*an hour*, *a unicorn*):
    every ARPAbet vowel, and no consonant, is written with a vowel letter first."""
    sounds = pronunciations(word)
    return bool(sounds) and sounds[0][:1] in "AEIOU"


def article_breaks(previous: str | None, word: str, replacement: str) -> bool:
    """Whether putting `replacement` for `word` after the article `previous` would need the other
    article (*a change* -> *a alteration*): the pair would then differ in grammar too."""
    if previous is None or previous.lower() not in ("a", "an"):
        return False
    return takes_an(replacement) != takes_an(word)


def match_case(word: str, model: str) -> str:
    """`word` capitalised like `model` (``Beard`` -> ``Hair``, ``BEARD`` -> ``HAIR``)."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
