"""Sound-level comparison of two ARPAbet pronunciations for rhyme.

A rhyme is judged on the *rime*: the phones from the last stressed vowel to the end. Two rimes
are a perfect rhyme when equal (unstressed vowels compared loosely: ``AH0``/``IH0``/``EH0``/
``UH0`` are all schwa-like). Otherwise a weighted edit distance over the rime scores how near
they are: vowels by articulatory closeness, consonants by voicing / nasality / manner.

Calibrated rules for older verse (see docs/rhyme.md for the measurements):

* *unstressed final syllables*: a final syllable with a full unstressed vowel (``-y`` /IY0/,
  ``-ing`` /IH0 NG/, ``-ow`` /OW0/...) may carry the rhyme (``melody``/``free``,
  ``singing``/``ring``): its last syllable is compared with the other word's rime;
* *final -y as /ai/*: until the 18th century unstressed ``-y`` was often pronounced like ``eye``
  (``faculty``/``apply``), so final IY0 may match stressed AY.
"""

from __future__ import annotations

import enum
from functools import cache

from poemetric.form.phonetics import rhyming_part


class SoundRelation(enum.IntEnum):
    NONE = 0
    SLANT = 1
    PERFECT = 2


# Tunable thresholds (calibrated on even-indexed stanzas of the Chicago rhyme gold; see bench).
SLANT_MAX_COST = 0.6
NEAR_VOWEL_COST = 0.5
FAR_VOWEL_COST = 2.0
NEAR_CONSONANT_COST = 0.5
WEAK_CONSONANT_INDEL_COST = 0.5
CONSONANT_INDEL_COST = 1.0
ALLOW_UNSTRESSED_FINAL = True
ALLOW_Y_AS_AI = True

_SCHWAS = frozenset({"AH0", "IH0", "EH0", "UH0", "AX0"})
_NEAR_VOWELS = {
    frozenset(pair)
    for pair in (
        ("IH", "IY"),
        ("IH", "EH"),
        ("EH", "AE"),
        ("EH", "EY"),
        ("AE", "AA"),
        ("AA", "AO"),
        ("AO", "OW"),
        ("UH", "UW"),
        ("AH", "UH"),
        ("AH", "AA"),
        ("AH", "AO"),
        ("AH", "OW"),
        ("AH", "UW"),
        ("OW", "UW"),
        ("AH", "ER"),
        ("AY", "OY"),
        ("AY", "IY"),
    )
}
_NEAR_CONSONANTS = {
    frozenset(pair)
    for pair in (
        ("P", "B"),
        ("T", "D"),
        ("K", "G"),
        ("F", "V"),
        ("TH", "DH"),
        ("S", "Z"),
        ("SH", "ZH"),
        ("CH", "JH"),
        ("M", "N"),
        ("N", "NG"),
        ("M", "NG"),
        ("P", "T"),
        ("T", "K"),
        ("P", "K"),
        ("B", "D"),
        ("D", "G"),
        ("B", "G"),
        ("TH", "F"),
        ("S", "TH"),
        ("L", "R"),
    )
}
_WEAK_CONSONANTS = frozenset({"S", "Z", "T", "D"})
_FULL_UNSTRESSED = frozenset({"IY", "OW", "EY", "AY", "UW", "AW", "OY"})


def _strip(phone: str) -> str:
    return phone[:-1] if phone[-1].isdigit() else phone


def _comparable(phones: list[str]) -> list[str]:
    """Phones with stress removed, schwa-like unstressed vowels merged."""
    return ["@" if phone in _SCHWAS else _strip(phone) for phone in phones]


def _is_vowel(phone: str) -> bool:
    return phone[-1].isdigit()


def _substitution_cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    a_vowel, b_vowel = a[0] in "AEIOU@", b[0] in "AEIOU@"
    if a_vowel != b_vowel:
        return 9.0
    if a_vowel:
        if "@" in (a, b):
            return NEAR_VOWEL_COST
        return NEAR_VOWEL_COST if frozenset((a, b)) in _NEAR_VOWELS else FAR_VOWEL_COST
    return NEAR_CONSONANT_COST if frozenset((a, b)) in _NEAR_CONSONANTS else CONSONANT_INDEL_COST


def _indel_cost(phone: str) -> float:
    if phone[0] in "AEIOU@":
        return 9.0
    return WEAK_CONSONANT_INDEL_COST if phone in _WEAK_CONSONANTS else CONSONANT_INDEL_COST


def rime_distance(rime_a: list[str], rime_b: list[str]) -> float:
    """Weighted edit distance between two comparable rimes (vowels must align)."""
    rows, cols = len(rime_a), len(rime_b)
    table = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        table[i][0] = table[i - 1][0] + _indel_cost(rime_a[i - 1])
    for j in range(1, cols + 1):
        table[0][j] = table[0][j - 1] + _indel_cost(rime_b[j - 1])
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            table[i][j] = min(
                table[i - 1][j] + _indel_cost(rime_a[i - 1]),
                table[i][j - 1] + _indel_cost(rime_b[j - 1]),
                table[i - 1][j - 1] + _substitution_cost(rime_a[i - 1], rime_b[j - 1]),
            )
    return table[rows][cols]


def _last_syllable(phones: list[str]) -> tuple[str, list[str]]:
    """(stress digit, phones from the last vowel on)."""
    for index in range(len(phones) - 1, -1, -1):
        if _is_vowel(phones[index]):
            return phones[index][-1], phones[index:]
    return "", phones


def _relation(rime_a: list[str], rime_b: list[str], *, merge_schwas: bool = True) -> SoundRelation:
    if merge_schwas:
        a, b = _comparable(rime_a), _comparable(rime_b)
    else:
        a, b = [_strip(p) for p in rime_a], [_strip(p) for p in rime_b]
    if a == b:
        return SoundRelation.PERFECT
    if rime_distance(a, b) <= SLANT_MAX_COST:
        return SoundRelation.SLANT
    return SoundRelation.NONE


@cache
def compare_pronunciations(phones_a: str, phones_b: str) -> SoundRelation:
    """How two pronunciations rhyme: PERFECT, SLANT or NONE."""
    split_a, split_b = phones_a.split(), phones_b.split()
    best = _relation(rhyming_part(phones_a).split(), rhyming_part(phones_b).split())
    if best == SoundRelation.PERFECT:
        return best
    stress_a, last_a = _last_syllable(split_a)
    stress_b, last_b = _last_syllable(split_b)
    if ALLOW_UNSTRESSED_FINAL and "0" in (stress_a, stress_b) and last_a and last_b:
        unstressed = last_a if stress_a == "0" else last_b
        if _strip(unstressed[0]) in _FULL_UNSTRESSED or _comparable(unstressed) == ["@", "NG"]:
            relation = _relation(last_a, last_b, merge_schwas=False)
            if relation == SoundRelation.PERFECT and (stress_a != "0" or stress_b != "0"):
                return relation
            best = max(best, min(relation, SoundRelation.SLANT))
        other = last_b if unstressed is last_a else last_a
        if ALLOW_Y_AS_AI and unstressed == ["IY0"] and len(other) == 1 and other[0][:2] == "AY":
            return SoundRelation.PERFECT
    return best
