"""Offline grapheme-to-phoneme rules: the last fallback for words missing from CMUdict.

The rules are deliberately simple English spelling conventions (silent final ``e``, the "magic e"
that lengthens the vowel before it, open syllables, vowel digraphs, soft ``c``/``g``, ``-le``
syllables, ``-tion``), followed by a stress guess (first syllable unless it is a common unstressed
prefix; a few suffixes attract or fix stress). Ambiguous spellings (``ow``, ``ough``, ``oo``) yield
several candidate pronunciations so that callers choosing the best of all pronunciations (rhyme)
can pick the right one. Output is ARPAbet with stress digits, like CMUdict.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from poemetric.form.letter_tables import (
    ANTEPENULT_STRESS_SUFFIXES,
    CONSONANT_SPELLINGS,
    FINAL_STRESS_SUFFIXES,
    FRENCH_ENDINGS,
    LONG,
    PENULT_STRESS_SUFFIXES,
    SHORT,
    UNSTRESSED_PREFIXES,
    VOWEL_SPELLINGS,
)

_VOWEL_LETTERS = frozenset("aeiouy")


@dataclass
class _Unit:
    """One grapheme chunk: consonant phones, or a vowel with its alternatives."""

    text: str
    consonant: str | None = None
    vowels: tuple[str, ...] = ()
    long_possible: bool = False


def _is_vowel(word: str, index: int) -> bool:
    letter = word[index]
    if letter == "y":
        # y is a consonant before a vowel at the start of a word or after a vowel ("yes",
        # "beyond"); after a consonant it is a vowel ("hyena", "tyrant").
        nxt = word[index + 1] if index + 1 < len(word) else ""
        before_vowel = nxt in _VOWEL_LETTERS and nxt != "y"
        after_consonant = index > 0 and word[index - 1] not in _VOWEL_LETTERS
        return not before_vowel or after_consonant
    return letter in _VOWEL_LETTERS


def _vowel_follows(word: str, index: int) -> bool:
    """Whether a vowel letter starts at `index` (an ``r``, ``w`` or ``h`` before it opens the
    next syllable: *hero*, *Nawadaha*, *Ohio*)."""
    return index < len(word) and word[index] in _VOWEL_LETTERS


def _segment(word: str) -> list[_Unit]:
    units: list[_Unit] = []
    i = 0
    n = len(word)
    while i < n:
        if _is_vowel(word, i):
            for length in (4, 3, 2):
                chunk = word[i : i + length]
                if (
                    chunk in VOWEL_SPELLINGS
                    and not (chunk.endswith("e") and len(chunk) > 2 and i + length < n)
                    and not (chunk.endswith(("r", "w", "h")) and _vowel_follows(word, i + length))
                ):
                    units.append(_Unit(chunk, vowels=VOWEL_SPELLINGS[chunk]))
                    i += length
                    break
            else:
                letter = word[i]
                units.append(_Unit(letter, vowels=(SHORT[letter], LONG[letter])))
                i += 1
            continue
        for length in (3, 2, 1):
            chunk = word[i : i + length]
            if chunk in CONSONANT_SPELLINGS and (length > 1 or chunk == word[i]):
                phones = CONSONANT_SPELLINGS[chunk]
                if chunk == "gh" and i == 0:
                    phones = "G"
                units.append(_Unit(chunk, consonant=phones))
                i += length
                break
        else:
            letter = word[i]
            nxt = word[i + 1] if i + 1 < n else ""
            if letter == "c":
                phones = "S" if nxt in {"e", "i", "y"} else "K"
            elif letter == "g":
                phones = "JH" if nxt in {"e", "i", "y"} and i > 0 else "G"
            elif letter == "y":
                phones = "Y"
            else:
                phones = ""
            units.append(_Unit(letter, consonant=phones))
            i += 1
    return units


def _drop_silent_letters(word: str) -> str:
    word = re.sub(r"^(kn|gn|pn|ps)", lambda m: m.group(0)[1], word)
    word = re.sub(r"mb$", "m", word)
    word = re.sub(r"gn$", "n", word)
    word = re.sub(r"([bcdfgklmnprstvz])\1", r"\1", word)  # double consonants
    return word


#: Endings of French loanwords, which keep the French final stress: spelling -> phones of the
#: stressed final syllable (alternatives). Accents are already removed (``-ière`` -> ``-iere``).
def _french_ending(letters: str) -> tuple[str, tuple[str, ...]] | None:
    """(remaining letters, stressed final syllables) for a French loanword ending."""
    for spelling, phones in FRENCH_ENDINGS:
        rest = letters[: -len(spelling)]
        if letters.endswith(spelling) and len(rest) >= 2 and re.search(r"[aeiouy]", rest):
            return rest, phones
    return None


def _respell(letters: str) -> str:
    """Spelling changes that must precede the silent-e rule: a soft ``c``/``g`` before a final
    ``e`` (``-ce``, ``-ge``, ``-dge``) and ``sc`` before a front vowel (``science``)."""
    letters = re.sub(r"sc(?=[eiy])", "s", letters)
    letters = re.sub(r"dge$", "j", letters)  # the d keeps the vowel short: budge
    letters = re.sub(r"ge$", "je", letters) if len(letters) > 3 else letters
    return re.sub(r"ce$", "se", letters) if len(letters) > 3 else letters


#: Suffixes that never take the stress and leave the stem's as it was (`-ly`, `-ness`...).
_UNSTRESSED_SUFFIXES = (
    ("ness", "N AH0 S"),
    ("less", "L AH0 S"),
    ("ment", "M AH0 N T"),
    ("ful", "F AH0 L"),
    ("ly", "L IY0"),
)


def _joined(stem: str, suffix: str) -> str:
    """Stem and suffix phones, a consonant doubled across them said once (*smell-ly*)."""
    if stem.rsplit(" ", 1)[-1] == suffix.split(" ", 1)[0]:
        return f"{stem} {suffix.split(' ', 1)[1]}"
    return f"{stem} {suffix}"


def guess_pronunciations(word: str) -> tuple[str, ...]:
    """Plausible ARPAbet pronunciations of a lower-case alphabetic word (at most 4)."""
    letters = re.sub(r"[^a-z]", "", word.lower())
    if not letters:
        return ()
    for suffix, phones in _UNSTRESSED_SUFFIXES:  # piteous-ly: the stem's own ending rules apply
        stem = letters[: -len(suffix)]
        if letters.endswith(suffix) and len(stem) >= 4 and re.search(r"[aeiouy]", stem):
            return tuple(_joined(guess, phones) for guess in guess_pronunciations(stem))
    final_syllables: tuple[str, ...] = ("",)
    french = _french_ending(letters)  # before doubled consonants are merged (-ette, -elle)
    if french is not None:
        letters, final_syllables = french
    letters = _drop_silent_letters(letters)
    ending = ""
    if french is None and re.search(r"[^aeiouy]le$", letters) and len(letters) > 3:
        letters, ending = letters[:-2], "AH0 L"
    elif french is None and re.search(r"[ts]ions?$", letters):
        plural = letters.endswith("s")  # dejections: the ending with its plural
        letters = letters[:-1] if plural else letters
        ending = "SH AH0 N" if letters.endswith("tion") else "ZH AH0 N"
        ending, letters = ending + (" Z" if plural else ""), letters[:-4]
    elif french is None and re.search(r"[ct]ious$|ceous$", letters):
        letters, ending = letters[:-5], "SH AH0 S"  # gracious, cautious, herbaceous
    elif french is None and letters.endswith("xious"):
        letters, ending = letters[:-5], "K SH AH0 S"  # anxious, noxious
    elif french is None and re.search(r"g[ei]ous$", letters):
        letters, ending = letters[:-5], "JH AH0 S"  # gorgeous, religious
    elif french is None and re.search(r"[^aeiouy][ei]ous$", letters):
        letters, ending = letters[:-4], "IY0 AH0 S"  # plenteous, beauteous: -e-ous, -i-ous
    elif french is None and letters.endswith("ous") and len(letters) > 4:
        letters, ending = letters[:-3], "AH0 S"
    elif french is None and re.search(r"[^aeiouy]ture$", letters):
        letters, ending = letters[:-4], "CH ER0"
    elif french is None and re.search(r"[^aeiouy]re$", letters) and len(letters) > 3:
        letters, ending = letters[:-2], "ER0"  # British -re (lustre) unknown to the dictionary
    letters = _respell(letters)
    silent_e = False
    if (
        french is None
        and letters.endswith("e")
        and len(letters) > 2
        and re.search(r"[aeiouy]", letters[:-1])
        and not letters.endswith(("ee", "ie", "oe", "ue", "ye", "ae"))
    ):
        letters, silent_e = letters[:-1], True
    units = _segment(letters) if letters else []
    vowel_positions = [k for k, unit in enumerate(units) if unit.vowels]
    for position in vowel_positions:
        unit = units[position]
        if len(unit.text) != 1:
            continue
        following = units[position + 1 : position + 3]
        single_consonant_then_vowel = (
            len(following) == 2 and following[0].consonant is not None and bool(following[1].vowels)
        )
        word_final = position == len(units) - 1 and french is None
        closed_by_silent_e = (
            silent_e and len(following) == 1 and following[0].consonant not in (None, "")
        )
        unit.long_possible = single_consonant_then_vowel or closed_by_silent_e or word_final
    if not vowel_positions:
        body = " ".join(u.consonant for u in units if u.consonant)
        return tuple(
            " ".join(part for part in (body, ending, final) if part) or "AH1"
            for final in final_syllables
        )
    if french is not None:
        stressed = -1  # the French ending carries the stress
    else:
        weights = _syllable_weights(units, vowel_positions, ending)
        ending_syllables = sum(char.isdigit() for char in ending)
        stressed = _stress_index(word.lower(), weights + [False] * ending_syllables)
        stressed = min(stressed, len(vowel_positions) - 1)
    alternatives: list[list[str]] = []
    for unit_index, unit in enumerate(units):
        if unit.consonant is not None:
            alternatives.append([unit.consonant] if unit.consonant else [""])
            continue
        syllable = vowel_positions.index(unit_index)
        before_vowel = unit_index + 1 < len(units) and bool(units[unit_index + 1].vowels)
        alternatives.append(
            _vowel_choices(unit, syllable == stressed, unit_index, len(units), before_vowel)
        )
    results: list[str] = []
    combos = itertools.islice(itertools.product(*alternatives, final_syllables), 4)
    for combo in combos:
        body, final = " ".join(part for part in combo[:-1] if part), combo[-1]
        phones = " ".join(part for part in (body, ending, final) if part)
        results.append(" ".join(phones.split()))
    return tuple(dict.fromkeys(results))


def _vowel_choices(
    unit: _Unit, stressed: bool, index: int, total: int, before_vowel: bool = False
) -> list[str]:
    digit = "1" if stressed else "0"
    if len(unit.text) == 1:
        letter = unit.text
        if not stressed:
            if letter == "a" and index == total - 1:
                return ["AH0"]  # arcadia, vista
            if letter in "iye" and (before_vowel or (letter == "y" and index == total - 1)):
                return ["IY0"]  # acadian, hyperion: a front vowel in hiatus is a glide-like /i/
            if unit.long_possible and index == total - 1:
                return [f"{LONG[letter]}0"]
            return ["IH0" if letter in {"e", "i", "y"} else "AH0"]
        if before_vowel and letter in "iy":
            return [f"{LONG[letter]}1", "IY1"]
        if unit.long_possible:
            return [f"{LONG[letter]}1", f"{SHORT[letter]}1"]
        return [f"{SHORT[letter]}1"]
    choices = []
    for option in unit.vowels if stressed else unit.vowels[:1]:
        vowel, *rest = option.split()
        if not stressed and unit.text in {"ey", "ie"} and index == total - 1:
            vowel = "IY"
        choices.append(" ".join([vowel + digit, *rest]))
    return choices


def _syllable_weights(units: list[_Unit], vowel_positions: list[int], ending: str) -> list[bool]:
    """Whether each vowel's syllable is heavy: a long vowel or digraph, or closed (two or more
    consonant sounds before the next vowel)."""
    weights = []
    for k, position in enumerate(vowel_positions):
        unit = units[position]
        stop = vowel_positions[k + 1] if k + 1 < len(vowel_positions) else len(units)
        consonants = sum(
            len(u.consonant.split()) for u in units[position + 1 : stop] if u.consonant
        )
        if k + 1 == len(vowel_positions) and ending and not ending.startswith("AH0"):
            consonants += 1  # -tion, -ture: the ending's first consonant closes the syllable
        digraph = len(unit.text) > 1 and not unit.vowels[0].startswith(("ER", "AA R", "AO R"))
        weights.append(digraph or consonants >= 2)
    return weights


def _stress_index(word: str, weights: list[bool]) -> int:
    """Index of the syllable guessed to carry primary stress.

    Stress-fixing suffixes first (``-ee`` final; ``-tion``, ``-ic`` penultimate; ``-ian``,
    ``-ious`` on the syllable before the ``i``).
    Words of three or more syllables follow the Latin (and English) stress rule, which suits the
    learned and classical words that reach this fallback (names such as *Thermopylae*,
    *Acadian*): the penultimate syllable when it is heavy, else the antepenultimate. Shorter
    words take first-syllable stress unless they start with an unstressed prefix.
    """
    syllables = len(weights)
    if syllables <= 1:
        return 0
    if word.endswith(FINAL_STRESS_SUFFIXES):
        return syllables - 1
    if word.endswith(PENULT_STRESS_SUFFIXES):
        return max(0, syllables - 2)
    if word.endswith(ANTEPENULT_STRESS_SUFFIXES):
        return max(0, syllables - 3)
    if syllables >= 3:
        return syllables - 2 if weights[-2] else syllables - 3
    if word.startswith(UNSTRESSED_PREFIXES) and len(word) > 4:
        return 1
    return 0
