"""The Raplyzer rhyme measure of Malmi et al. (DopeLearning, KDD 2016), re-implemented.

A text becomes a stream of vowel sounds, word by word (consonants dropped, the schwa ignored).
For every word but the first, the rhyme length is the longest run of vowels that ends with that
word and equals, read backwards, a run ending with one of the `lookback` (15) words before it;
the measure is the average rhyme length over words ("rhyme factor"). As in the original:

* the text is cleaned first: every run of characters other than word characters, apostrophes
  and . ? ! becomes a space, and a line that repeats an earlier line *exactly* after that
  cleaning is dropped. Only exact repeats: *The fine wine* / *the fine wine* / *THE FINE WINE!*
  differ in case or in the ``!`` and all stay (3.2, against 2.0 for the line once), while a
  repeat that differs only in other punctuation (*the fine wine,*) is dropped;
* lines in brackets (``[Chorus]``, ``(x2)``) are scored as words like any other line: the
  original's rule for dropping lines wholly in brackets or parentheses runs after the brackets
  have become spaces and never applies, so it is left out here;
* a word whose sounds up to its last vowel equal the other word's is no rhyme (identity: this
  also rules out *cat* / *cap*, whose vowels-up-to-the-end are identical);
* a run stops where it would reach two identical earlier words, and where the two runs would
  overlap;
* a one-vowel match counts as 0.

Two front ends produce the vowel stream:

* ``phonetics="cmu"`` (default, no external program): the project's pronunciations (CMUdict and
  letter-to-sound), with each ARPAbet vowel written as the eSpeak vowel symbols Raplyzer keeps
  (`ESPEAK_VOWELS`); diphthongs are two symbols, as in eSpeak (*my* / *skies* match on ``a i``);
* ``phonetics="espeak"``: eSpeak NG's own transcription (``espeak-ng -xq -v en-us``), which is
  what the original used; then the result equals the original program's (tests check this on
  the demo poems). Differences between the two are discussed in docs/ghostwriting.md.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from poemetric.form import user_lexicon
from poemetric.ghostwriting.syllables import first_pronunciation
from poemetric.text.tokens import tokenize

#: Words searched backwards for a rhyme (the value the original uses for English).
RAPLYZER_LOOKBACK = 15

#: eSpeak vowel symbols Raplyzer keeps for English, after mapping 0 and O to o, I to i, E to e.
#: The schwa '@' is not among them.
_ESPEAK_VOWELS = frozenset("3L5aAeEiI0VuUoO")
_ESPEAK_VOWEL_MAP = {"0": "o", "O": "o", "I": "i", "E": "e"}

#: ARPAbet vowel -> the (mapped) eSpeak en-us vowel symbols of the same sound.
ESPEAK_VOWELS: dict[str, str] = {
    "AA": "A",  # father, lot: A:
    "AE": "a",  # trap
    "AH": "V",  # strut (stressed); unstressed AH0 is the schwa, dropped
    "AO": "o",  # thought: O:
    "AW": "aU",
    "AY": "ai",  # price: aI
    "EH": "e",  # dress: E
    "ER": "3",  # nurse 3:, letter 3
    "EY": "ei",  # face: eI
    "IH": "i",  # kit: I
    "IY": "i",  # fleece: i:
    "OW": "oU",  # goat
    "OY": "oi",  # choice: OI
    "UH": "U",  # foot
    "UW": "u",  # goose: u:
}

Phonetics = Literal["cmu", "espeak"]


class EspeakUnavailable(RuntimeError):
    pass


@dataclass(frozen=True)
class VowelWord:
    """A word as Raplyzer sees it."""

    vowels: tuple[str, ...]
    #: The word's sounds up to and including its last vowel: equal keys are the same word.
    key: str
    #: All of the word's sounds: equal earlier words stop a rhyme.
    sounds: str


def raplyzer_lines(text: str) -> list[str]:
    """The text as the original cleans it: runs of characters other than word characters,
    apostrophes and . ? ! become a space, and a line equal to an earlier line (case and . ? !
    included) is dropped. The original then drops lines wholly in brackets or parentheses, but
    no bracket is left by then: that rule never applies, here or there (a ``[Chorus]`` line is
    the word *Chorus*)."""
    cleaned = re.sub(r"[^\w'’.?!\n]+", " ", text)
    cleaned = re.sub(r"\n\n+", "\n\n", cleaned)
    seen: set[str] = set()
    lines: list[str] = []
    for raw in cleaned.split("\n"):
        line = raw.strip()
        if line and line in seen:
            continue
        seen.add(line)
        lines.append(line)
    return lines


#: Words eSpeak reads with a full vowel where CMUdict's first pronunciation has only a schwa.
_ESPEAK_FULL_VOWEL_WORDS = {"a": "a", "an": "a", "and": "a"}


def _espeak_like_vowels(phones: Sequence[str]) -> list[tuple[int, str]]:
    """(position, eSpeak vowel symbols) of each kept vowel of an ARPAbet pronunciation.

    Beyond the one-to-one table: eSpeak en-us writes the vowel of *lot* as ``0`` (read o) and
    that of *start* as ``A``, which CMUdict both spell AA; *near* as ``i@3``, *poor* as ``U@``;
    and a final unstressed *-le*/*-al* as the syllabic ``@L``.
    """
    found: list[tuple[int, str]] = []
    for index, phone in enumerate(phones):
        if not phone[-1].isdigit():
            continue
        base = phone[:-1]
        following = phones[index + 1] if index + 1 < len(phones) else ""
        if phone == "AH0":
            if following == "L" and index + 2 == len(phones):
                found.append((index, "L"))
            continue
        if base == "AA":
            found.append((index, "A" if following == "R" else "o"))
        elif base == "IH" and following == "R":
            found.append((index, "i3"))
        elif base == "UW" and following == "R":
            found.append((index, "U"))
        else:
            found.append((index, ESPEAK_VOWELS[base]))
    return found


def cmu_vowel_words(text: str) -> list[VowelWord]:
    """The text's words with vowels from the project's pronunciations."""
    words: list[VowelWord] = []
    for line in raplyzer_lines(text):
        for token in tokenize(line):
            word = _cmu_vowel_word(token)
            if word is not None:
                words.append(word)
    return words


@lru_cache(maxsize=1 << 16)
def _cmu_vowel_word(token: str) -> VowelWord | None:
    """`token` as Raplyzer sees it, None when it has no kept vowel. Kept per word: a run reads
    the same few thousand words in every poem (504,680 pronunciations turned into vowels for
    6,293 poems)."""
    if token in _ESPEAK_FULL_VOWEL_WORDS:
        return VowelWord(tuple(_ESPEAK_FULL_VOWEL_WORDS[token]), token, token)
    phones = first_pronunciation(token)
    kept = _espeak_like_vowels(phones)
    if not kept:
        return None
    plain = [p.rstrip("012") for p in phones]
    last = kept[-1][0]
    return VowelWord(
        tuple(symbol for _, chunk in kept for symbol in chunk),
        " ".join(plain[: last + 1]),
        " ".join(plain),
    )


# It reads pronunciations, which a user lexicon switched on in this process changes.
user_lexicon.on_change(_cmu_vowel_word.cache_clear)


def espeak_vowel_words(transcription: str) -> list[VowelWord]:
    """Words of an ``espeak-ng -xq`` transcription, read character by character as Raplyzer
    does (stress marks ' and , already removed by `espeak_transcription`)."""
    words: list[VowelWord] = []
    tokens = transcription.replace("\n", " ").split(" ")
    # A word ends at a space or newline: text after the last one is not a word (as in the original).
    for token in tokens[:-1]:
        vowels: list[str] = []
        last_vowel = -1
        for index, char in enumerate(token):
            mapped = _ESPEAK_VOWEL_MAP.get(char, char)
            if mapped not in _ESPEAK_VOWELS:
                continue
            if index > 0 and token[index - 1] == mapped:
                last_vowel = index  # a doubled vowel counts once
                continue
            vowels.append(mapped)
            last_vowel = index
        if vowels:
            words.append(VowelWord(tuple(vowels), token[: last_vowel + 1], token))
    return words


def espeak_transcription(text: str, *, voice: str = "en-us") -> str:
    """eSpeak NG's phoneme transcription of the cleaned text, post-processed as the original
    (each line ends with a full stop so that eSpeak transcribes it whole)."""
    program = shutil.which("espeak-ng") or shutil.which("espeak")
    if program is None:
        raise EspeakUnavailable(
            "eSpeak NG is not installed (Debian/Ubuntu: apt-get install espeak-ng); "
            "use the CMU pronunciations instead (phonetics='cmu')"
        )
    cleaned = "".join(line + ".\n" for line in raplyzer_lines(text))
    result = subprocess.run(
        [program, "-xq", "-v", voice],
        input=cleaned,
        capture_output=True,
        text=True,
        check=True,
    )
    return clean_espeak_output(result.stdout)


def clean_espeak_output(output: str) -> str:
    """eSpeak's transcription without the spoken-exclamation marker and the stress marks."""
    return output.replace("_:'Ekskl@m,eIS@n_:", "").replace("'", "").replace(",", "")


def _rhyme_length(stream: _Stream, earlier: int, later: int) -> int:
    if stream.keys[earlier] == stream.keys[later]:
        return 0
    p1, p2 = stream.word_ends[earlier], stream.word_ends[later]
    length = 0
    while stream.vowels[p1 - length] == stream.vowels[p2 - length]:
        w1, w2 = stream.owner[p1 - length], stream.owner[p2 - length]
        if w1 < earlier and w2 < later and stream.sounds[w1] == stream.sounds[w2]:
            break
        length += 1
        if p1 - length < 0 or p2 - length <= p1:
            break
    return 0 if length == 1 else length


@dataclass(frozen=True)
class _Stream:
    vowels: list[str]
    owner: list[int]
    word_ends: list[int]
    keys: list[str]
    sounds: list[str]


def _stream(words: Sequence[VowelWord]) -> _Stream:
    vowels: list[str] = []
    owner: list[int] = []
    word_ends: list[int] = []
    for index, word in enumerate(words):
        vowels.extend(word.vowels)
        owner.extend([index] * len(word.vowels))
        word_ends.append(len(vowels) - 1)
    return _Stream(vowels, owner, word_ends, [w.key for w in words], [w.sounds for w in words])


def rhyme_lengths(words: Sequence[VowelWord], lookback: int = RAPLYZER_LOOKBACK) -> list[int]:
    """The rhyme length of every word after the first."""
    stream = _stream(words)
    vowels, ends, keys = stream.vowels, stream.word_ends, stream.keys
    # `_rhyme_length` is 0 unless the keys differ and the last two vowels of both match (one
    # vowel is no rhyme) without the runs overlapping: only the earlier words in the window that
    # end on the same two vowels are tried. The window of 15 words held 6.5 million pairs in a
    # 5,000-poem run; tried pair by pair they took a third of the time of the measures.
    by_last_vowels: dict[tuple[str, str], list[int]] = defaultdict(list)
    lengths: list[int] = []
    for later in range(len(words)):
        end = ends[later]
        same_vowels = by_last_vowels[vowels[end - 1], vowels[end]] if end else []
        if later:
            best = 0
            first = later - lookback
            for earlier in reversed(same_vowels):
                if earlier < first:
                    break
                if keys[earlier] != keys[later] and ends[earlier] + 1 < end:
                    best = max(best, _rhyme_length(stream, earlier, later))
            lengths.append(best)
        same_vowels.append(later)
    return lengths


def average_rhyme_length(words: Sequence[VowelWord], lookback: int = RAPLYZER_LOOKBACK) -> float:
    """Raplyzer's rhyme factor: the mean rhyme length; NaN (undefined: no word has a word before
    it) for fewer than two words, as rhyme density is for a text without syllables."""
    lengths = rhyme_lengths(words, lookback)
    return sum(lengths) / len(lengths) if lengths else math.nan


def raplyzer_density(
    text: str, *, phonetics: Phonetics = "cmu", lookback: int = RAPLYZER_LOOKBACK
) -> float:
    """The Raplyzer rhyme factor of `text` with the chosen phonetic front end."""
    if phonetics == "espeak":
        words = espeak_vowel_words(espeak_transcription(text))
    else:
        words = cmu_vowel_words(text)
    return average_rhyme_length(words, lookback)
