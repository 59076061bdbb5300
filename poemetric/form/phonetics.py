"""Pronunciations of English words from the CMU Pronouncing Dictionary, with fallbacks.

First version: dictionary lookup plus a vowel-group fallback. Refined by the form-detector work.
"""

from __future__ import annotations

import re
from functools import cache

import pronouncing

_VOWEL_GROUPS = re.compile(r"[aeiouy]+")
_NON_LETTERS = re.compile(r"[^a-z']")


def normalize_word(word: str) -> str:
    return _NON_LETTERS.sub("", word.lower()).strip("'")


@cache
def pronunciations(word: str) -> tuple[str, ...]:
    """All ARPAbet pronunciations of `word` (stress digits kept); never empty for a real word."""
    key = normalize_word(word)
    if not key:
        return ()
    found = pronouncing.phones_for_word(key)
    if found:
        return tuple(found)
    return (_guess(key),)


def _guess(word: str) -> str:
    groups = _VOWEL_GROUPS.findall(word) or ["a"]
    return " ".join("AH1" if i == 0 else "AH0" for i, _ in enumerate(groups))


def syllable_count(phones: str) -> int:
    return sum(ch.isdigit() for ch in phones)


def stress_pattern(phones: str) -> str:
    """Stress digits of a pronunciation, e.g. '010'."""
    return "".join(ch for ch in phones if ch.isdigit())


def rhyming_part(phones: str) -> str:
    return pronouncing.rhyming_part(phones)
