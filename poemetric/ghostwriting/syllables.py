"""A poem as words and syllables for rhyme detection, from the project's pronunciations.

Each word gets its first pronunciation from `poemetric.form.phonetics.pronunciations` (CMUdict,
then the letter-to-sound fallback, so every word has one). A pronunciation is cut into syllables
at its vowels; a syllable keeps what rhyme depends on (Hirjee & Brown 2010 reduce a syllable to
the same three features):

* the vowel nucleus, without its stress digit;
* the coda: the consonants after the vowel. A word-final syllable keeps every final consonant;
  inside a word the last consonant before the next vowel starts the next syllable (a one-consonant
  onset), so *market* is ``AA1 R`` + ``K AH0 T`` and *gritty* is ``IH1`` + ``T IY0``;
* stress: the dictionary's primary or secondary stress, except in function words (*the*, *of*,
  *my*, *is* ...); the last syllable of a line counts as stressed whatever the dictionary says,
  since it is where verse puts its rhymes (*Sicily* / *melody*, *I* / *sky*);
* unstressed AH0 and IH0 are both reduced vowels and match each other.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from poemetric.form import user_lexicon
from poemetric.text.lines import poem_lines
from poemetric.text.tokens import tokenize

#: Consonant classes for comparing codas: a coda rhymes with another coda of the same shape
#: (same number of consonants, same class in each place), e.g. *time* / *line* (nasal),
#: *cap* / *cat* (stop). Identical codas are the special case of a perfect rhyme.
CONSONANT_CLASSES: dict[str, str] = {
    **dict.fromkeys(("P", "B", "T", "D", "K", "G"), "stop"),
    **dict.fromkeys(("F", "V", "TH", "DH", "S", "Z", "SH", "ZH", "HH", "CH", "JH"), "fricative"),
    **dict.fromkeys(("M", "N", "NG"), "nasal"),
    "L": "L",
    "R": "R",
    "W": "W",
    "Y": "Y",
}


#: Unstressed vowels that sound alike as schwa-like reduced vowels.
REDUCED_VOWELS = frozenset({"AH", "IH"})


class Word(NamedTuple):
    """One word of a poem: its spelling (lower-cased token), line and first pronunciation."""

    text: str
    line: int
    phones: tuple[str, ...]


class Syllable(NamedTuple):
    """One syllable of a poem (a named tuple, not a dataclass: a poem makes hundreds and the
    tuple is made three times as fast)."""

    word: int
    line: int
    vowel: str
    coda: tuple[str, ...]
    stressed: bool

    reduced: bool = False

    @property
    def rhyme_key(self) -> tuple[str, tuple[str, ...]]:
        """Syllables with equal keys rhyme: same vowel, codas of the same consonant classes.
        The unstressed reduced vowels AH0 and IH0 count as one (*-ated* / *-ited*)."""
        return _rhyme_key("@" if self.reduced else self.vowel, self.coda)


@lru_cache(maxsize=1 << 12)
def _rhyme_key(vowel: str, coda: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    return vowel, tuple(CONSONANT_CLASSES.get(c, c) for c in coda)


@lru_cache(maxsize=1 << 16)
def first_pronunciation(token: str) -> tuple[str, ...]:
    from poemetric.form.phonetics import pronunciations

    found = pronunciations(token)
    return tuple(found[0].split()) if found else ()


@lru_cache(maxsize=1 << 16)
def _is_function_word(token: str) -> bool:
    from poemetric.form.phonetics import is_function_word

    return is_function_word(token)


# Both read pronunciations, which a user lexicon switched on in this process changes.
user_lexicon.on_change(first_pronunciation.cache_clear)
user_lexicon.on_change(_is_function_word.cache_clear)


def poem_words(text: str) -> list[Word]:
    """Every word of the poem in reading order, with its line number (0-based)."""
    return [
        Word(token, number, first_pronunciation(token))
        for number, line in enumerate(poem_lines(text))
        for token in tokenize(line)
    ]


@lru_cache(maxsize=1 << 16)
def split_syllables(phones: tuple[str, ...]) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """(vowel, stress digit, coda) of each syllable of an ARPAbet pronunciation."""
    vowels = [i for i, phone in enumerate(phones) if phone[-1].isdigit()]
    syllables = []
    for number, position in enumerate(vowels):
        following = vowels[number + 1] if number + 1 < len(vowels) else len(phones)
        consonants = phones[position + 1 : following]
        coda = consonants if number + 1 == len(vowels) else consonants[:-1]
        phone = phones[position]
        syllables.append((phone[:-1], int(phone[-1]), tuple(coda)))
    return tuple(syllables)


def poem_syllables(words: list[Word]) -> list[Syllable]:
    """The syllables of `words` in reading order."""
    last_in_line = {word.line: index for index, word in enumerate(words)}
    syllables: list[Syllable] = []
    for index, word in enumerate(words):
        parts = _word_syllables(word.text, word.phones, last_in_line[word.line] == index)
        for vowel, coda, stressed, reduced in parts:
            syllables.append(Syllable(index, word.line, vowel, coda, stressed, reduced))
    return syllables


@lru_cache(maxsize=1 << 16)
def _word_syllables(
    text: str, phones: tuple[str, ...], line_end: bool
) -> tuple[tuple[str, tuple[str, ...], bool, bool], ...]:
    """(vowel, coda, stressed, reduced) of each syllable of a word, at the end of its line or
    not. Kept per word: a run's poems repeat a few thousand words."""
    weak_word = _is_function_word(text) and not line_end
    parts = split_syllables(phones)
    found = []
    for number, (vowel, stress, coda) in enumerate(parts):
        # The last syllable of a line is a rhyme position, stressed or not (*Sicily* /
        # *melody* at line ends).
        stressed = (stress in (1, 2) and not weak_word) or (line_end and number == len(parts) - 1)
        reduced = stress == 0 and vowel in REDUCED_VOWELS
        found.append((vowel, coda, stressed, reduced))
    return tuple(found)


# Its stress reads the function words of the pronunciations (see above).
user_lexicon.on_change(_word_syllables.cache_clear)
