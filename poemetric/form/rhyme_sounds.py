"""Sound-level comparison of two ARPAbet pronunciations for rhyme.

A rhyme is judged on the *rime*: the phones from the last stressed vowel to the end. Two rimes
are a perfect rhyme when equal (post-tonic unstressed vowels compared loosely: ``AH0``/``IH0``/
``EH0``/``UH0`` are all schwa-like). Otherwise :func:`rime_category` names the strongest
*category* of resemblance that applies, and :data:`CATEGORY_RELATION` says whether that category
counts as a perfect rhyme, a slant rhyme, or nothing. The categories are linguistic (rhyme on a
secondary stress, rhyme on an unstressed full final syllable, ``-y`` sounded /ai/, merged vowels
before ``r``, voicing/nasal/place neighbours in the coda, a weak final ``s z t d`` added, near
vowels with the same coda...); which of them count was calibrated on the even-indexed stanzas
of the Chicago rhyme gold file, keeping a category when its precision there is above one half
(the point above which adding predictions raises F1). docs/rhyme.md has the measurements.
"""

from __future__ import annotations

import enum
from functools import cache, lru_cache

from poemetric.form.phonetics import rhyming_part


class SoundRelation(enum.IntEnum):
    NONE = 0
    SLANT = 1
    PERFECT = 2


_SCHWAS = frozenset({"AH0", "IH0", "EH0", "UH0", "AX0"})
_FULL_UNSTRESSED = frozenset({"IY", "OW", "EY", "AY", "UW", "AW", "OY"})
_LAX = frozenset({"IH", "AH", "EH", "AE", "UH", "AA"})
_WEAK_CODA = frozenset({"S", "Z", "T", "D"})
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
        ("TH", "T"),
        ("DH", "D"),
    )
}

# Stressed-vowel pairs that rhyme before the same coda (historical and near rhymes), and pairs
# that rhyme before R (vowel contrasts before R are weak and shifted historically). A pair is
# listed when it is a known rhyme family and its precision on the calibration split is above
# 0.5 (bench/bench_rhyme.py documents the measurement); e.g. EY/IY (sea/way, 0.23) and OW/UW
# (0.48) failed and are left out.
NEAR_VOWELS: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("AH", "UW"),  # love / prove
        ("AH", "OW"),  # come / home
        ("AH", "UH"),  # blood / good
        ("AH", "AO"),  # tongue / song
        ("AH", "AA"),  # on / one
        ("AH", "AW"),  # one / town
        ("UH", "UW"),  # good / food
        ("AA", "UH"),  # woman / common
        ("EH", "IY"),  # death / beneath
        ("EH", "IH"),  # given / heaven
        ("IH", "IY"),  # been / seen
        ("AE", "EY"),  # have / grave
        ("AE", "AA"),  # hand / wand
        ("AE", "AO"),  # shall / all
        ("AA", "AO"),  # not / thought
        ("AA", "OW"),  # god / abode
        ("AO", "OW"),  # gone / alone
        ("AW", "OW"),  # down / own
        ("OW", "UH"),  # spoke / look
        ("AY", "OY"),  # join / mind
    )
)
R_NEAR_VOWELS: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("IH", "IY"),  # here / dear
        ("EH", "IH"),  # there / fear
        ("EH", "IY"),  # there / here
        ("EH", "EY"),  # fair / prayer
        ("ER", "IH"),  # were / dear
        ("ER", "IY"),  # were / here
        ("EH", "ER"),  # bear / were
        ("AA", "EH"),  # care / are
        ("AA", "ER"),  # heart / desert
        ("AA", "AO"),  # war / far
        ("AA", "AE"),  # guard / debarred
        ("AO", "ER"),  # word / sword
        ("AO", "OW"),  # more / o'er
        ("AO", "UH"),  # more / moor
        ("AO", "UW"),  # door / poor
        ("ER", "UH"),  # cure / her
        ("UH", "UW"),  # poor / endure
    )
)

# Whether each category of resemblance counts as a rhyme (calibrated; see module docstring).
CATEGORY_RELATION: dict[str, SoundRelation] = {
    "perfect": SoundRelation.PERFECT,
    "secondary_stress": SoundRelation.PERFECT,
    "unstressed_final": SoundRelation.PERFECT,
    "y_as_ai": SoundRelation.PERFECT,
    "both_unstressed_final": SoundRelation.SLANT,
    "r_coloured_vowel": SoundRelation.SLANT,
    "unstressed_schwa_final": SoundRelation.SLANT,
    "unstressed_schwa_final_tense": SoundRelation.NONE,  # precision 0.45
    "coda_voicing": SoundRelation.SLANT,
    "unstressed_final_s_z": SoundRelation.SLANT,
    "coda_nasal": SoundRelation.NONE,
    "coda_place": SoundRelation.NONE,
    "coda_weak_added": SoundRelation.NONE,
    "coda_other_added": SoundRelation.NONE,
    "near_vowel": SoundRelation.SLANT,
    "far_vowel_same_coda": SoundRelation.NONE,
    "far_vowel_before_r": SoundRelation.NONE,
}
_CATEGORY_ORDER = list(CATEGORY_RELATION)
_VOICING = {frozenset(p) for p in (("P", "B"), ("T", "D"), ("K", "G"), ("F", "V"), ("TH", "DH"))}
_VOICING |= {frozenset(p) for p in (("S", "Z"), ("SH", "ZH"), ("CH", "JH"))}
_NASALS = frozenset({"M", "N", "NG"})


def _strip(phone: str) -> str:
    return phone[:-1] if phone[-1].isdigit() else phone


def _is_vowel(phone: str) -> bool:
    return phone[-1].isdigit()


def _comparable(rime: list[str]) -> list[str]:
    """Rime without stress; post-tonic schwa-like vowels merged into '@'.

    A vowel followed by unstressed ``ER`` is read as vowel + ``R`` (``fire`` F AY1 ER0 rhymes
    with ``ire`` AY1 R: the same word is spoken with one or two syllables).
    """
    if not rime:
        return []
    tail = ["@" if p in _SCHWAS else _strip(p) for p in rime[1:]]
    if tail[:1] == ["ER"] and rime[1] == "ER0":
        tail[0] = "R"
    return [_strip(rime[0]), *tail]


def _rime_from(phones: list[str], stresses: str) -> list[str]:
    for index in range(len(phones) - 1, -1, -1):
        if phones[index][-1] in stresses:
            return phones[index:]
    return []


def _last_syllable(phones: list[str]) -> tuple[str, list[str]]:
    """(stress digit, phones from the last vowel on)."""
    for index in range(len(phones) - 1, -1, -1):
        if _is_vowel(phones[index]):
            return phones[index][-1], phones[index:]
    return "", phones


def _coda_category(coda_a: list[str], coda_b: list[str]) -> str | None:
    """Category for two different codas after the same vowel, or None when too different."""
    if len(coda_a) == len(coda_b):
        diffs = [(a, b) for a, b in zip(coda_a, coda_b, strict=True) if a != b]
        if len(diffs) != 1 or "@" in diffs[0]:
            return None
        pair = frozenset(diffs[0])
        if pair in _VOICING:
            return "coda_voicing"
        if pair <= _NASALS:
            return "coda_nasal"
        return "coda_place" if pair in _NEAR_CONSONANTS else None
    longer, shorter = (coda_a, coda_b) if len(coda_a) > len(coda_b) else (coda_b, coda_a)
    if len(longer) != len(shorter) + 1:
        return None
    for index, phone in enumerate(longer):
        if longer[:index] + longer[index + 1 :] == shorter and phone != "@":
            if phone in _WEAK_CODA and index == len(longer) - 1:
                return "coda_weak_added"
            return "coda_other_added"
    return None


def _split_r(rime: list[str]) -> tuple[str, list[str]]:
    """Vowel and coda of a comparable rime, with ``ER`` read as a vowel plus ``R``."""
    vowel, coda = rime[0], rime[1:]
    if vowel == "ER":
        return "ER", ["R", *coda]
    return vowel, coda


@cache
def _parts(phones: str) -> tuple[list[str], list[str], list[str]]:
    """(phones, comparable rime, comparable rime from the last stress of any level), per
    pronunciation: computed once, compared with many others. Callers must not modify them."""
    split = phones.split()
    rime = _comparable(rhyming_part(phones).split())
    return split, rime, _comparable(_rime_from(split, "12")) or rime


def rime_category(phones_a: str, phones_b: str) -> str | None:
    """The strongest category of sound resemblance between two pronunciations (None: none)."""
    split_a, rime_a, secondary_a = _parts(phones_a)
    split_b, rime_b, secondary_b = _parts(phones_b)
    if rime_a == rime_b:
        return "perfect"
    if (secondary_a and secondary_a in (secondary_b, rime_b)) or (
        secondary_b and secondary_b == rime_a
    ):
        return "secondary_stress"
    weak = _weak_final_category(split_a, split_b)
    found: list[str] = [weak] if weak else []
    for option_a in dict.fromkeys(map(tuple, (rime_a, secondary_a))):
        for option_b in dict.fromkeys(map(tuple, (rime_b, secondary_b))):
            category = _vowel_coda_category(list(option_a), list(option_b))
            if category is not None:
                found.append(category)
    return min(found, key=_CATEGORY_ORDER.index) if found else None


def _weak_final_category(split_a: list[str], split_b: list[str]) -> str | None:
    """Categories resting on a final syllable without primary stress (``melody``/``free``)."""
    stress_a, last_a = _last_syllable(split_a)
    stress_b, last_b = _last_syllable(split_b)
    weak_a, weak_b = stress_a in ("0", "2"), stress_b in ("0", "2")
    if not (weak_a or weak_b) or not last_a or not last_b:
        return None
    a_is_weaker = weak_a and (not weak_b or stress_a <= stress_b)
    unstressed = last_a if a_is_weaker else last_b
    plain_a, plain_b = [_strip(p) for p in last_a], [_strip(p) for p in last_b]
    plain_weak, other = (plain_a, plain_b) if a_is_weaker else (plain_b, plain_a)
    full = plain_weak[0] in _FULL_UNSTRESSED or (
        unstressed[0] in _SCHWAS and unstressed[1:] == ["NG"]
    )
    if full and plain_a == plain_b:
        return "both_unstressed_final" if weak_a and weak_b else "unstressed_final"
    if plain_weak[0] == "IY" and other[0] == "AY" and plain_weak[1:] == other[1:]:
        return "y_as_ai"
    if (
        unstressed[0] in _SCHWAS
        and len(unstressed) > 1
        and stress_a != stress_b
        and len(other) == len(plain_weak)
        and other[1:] != plain_weak[1:]
        and other[0] == plain_weak[0]
        and {other[-1], plain_weak[-1]} == {"S", "Z"}
        and other[1:-1] == plain_weak[1:-1]
    ):
        return "unstressed_final_s_z"  # this / cadences: same vowel, s against z
    if (
        unstressed[0] in _SCHWAS
        and len(unstressed) > 1
        and stress_a != stress_b
        and other[1:] == plain_weak[1:]
    ):
        if other[0] in _LAX:
            return "unstressed_schwa_final"
        polysyllable = len([p for p in (split_a if a_is_weaker else split_b) if _is_vowel(p)]) > 1
        return "unstressed_schwa_final_tense" if polysyllable else None
    return None


def _vowel_coda_category(rime_a: list[str], rime_b: list[str]) -> str | None:
    if not rime_a or not rime_b:
        return None
    vowel_a, coda_a = _split_r(rime_a)
    vowel_b, coda_b = _split_r(rime_b)
    if vowel_a == vowel_b:
        return _coda_category(coda_a, coda_b)
    if coda_a == coda_b:
        pair = frozenset((vowel_a, vowel_b))
        if coda_a[:1] == ["R"]:
            return "r_coloured_vowel" if pair in R_NEAR_VOWELS else "far_vowel_before_r"
        if pair in NEAR_VOWELS:
            return "near_vowel"
        return "far_vowel_same_coda"
    return None


@lru_cache(maxsize=1 << 15)
def rhyme_key(phones: str) -> str:
    """The part of a pronunciation that `rime_category` looks at: the phones from the last
    primary stress on (`rhyming_part`), after a weak ``AH0`` standing for any earlier syllables
    (only whether there are any matters). Words with the same key rhyme alike, so verdicts are
    cached per key pair: *day*, *away* and *today* share one."""
    rime = rhyming_part(phones)
    if rime == phones:
        return phones
    vowels = sum(ch.isdigit() for ch in rime)
    return rime if vowels != 1 or sum(ch.isdigit() for ch in phones) == 1 else f"AH0 {rime}"


def compare_pronunciations(phones_a: str, phones_b: str) -> SoundRelation:
    """How two pronunciations rhyme: PERFECT, SLANT or NONE."""
    return compare_rhyme_keys(rhyme_key(phones_a), rhyme_key(phones_b))


@lru_cache(maxsize=1 << 15)
def compare_rhyme_keys(key_a: str, key_b: str) -> SoundRelation:
    """`compare_pronunciations` of two pronunciations with these rhyme keys (`rhyme_key`)."""
    if not _may_resemble(key_features(key_a), key_features(key_b)):
        return SoundRelation.NONE
    category = rime_category(key_a, key_b)
    return SoundRelation.NONE if category is None else CATEGORY_RELATION[category]


#: Per rhyme key: (its rimes from the last primary and from the last stress of any level; whether
#: its last vowel is unstressed or secondary; the consonants after that vowel, a final Z read as
#: S (None without phones); the vowels and the codas of its rimes as `_split_r` splits them).
_Features = tuple[
    frozenset[tuple[str, ...]],
    bool,
    tuple[str, ...] | None,
    frozenset[str],
    frozenset[tuple[str, ...]],
]


@lru_cache(maxsize=1 << 13)
def key_features(key: str) -> _Features:
    """What two pronunciations must share for `rime_category` to find any category."""
    split, rime, secondary = _parts(key)
    rimes = [r for r in (rime, secondary) if r]
    stress, last = _last_syllable(split)
    coda: tuple[str, ...] | None = tuple(_strip(p) for p in last[1:]) if last else None
    if coda and coda[-1] == "Z":
        coda = (*coda[:-1], "S")
    splits = [_split_r(r) for r in rimes]
    return (
        frozenset(tuple(r) for r in rimes),
        stress in ("0", "2"),
        coda,
        frozenset(vowel for vowel, _ in splits),
        frozenset(tuple(c) for _, c in splits),
    )


def _may_resemble(a: _Features, b: _Features) -> bool:
    """False only when `rime_category` must find nothing: no rime in common (perfect, secondary
    stress), no rime pair with the same vowel or the same coda (`_vowel_coda_category`), and
    no weak last syllable with the other's coda (every weak-final category compares the codas
    after the last vowels, s against z aside)."""
    rimes_a, weak_a, coda_a, vowels_a, codas_a = a
    rimes_b, weak_b, coda_b, vowels_b, codas_b = b
    return (
        not rimes_a.isdisjoint(rimes_b)
        or not vowels_a.isdisjoint(vowels_b)
        or not codas_a.isdisjoint(codas_b)
        or ((weak_a or weak_b) and coda_a is not None and coda_a == coda_b)
    )


def clear_caches() -> None:
    """Forget cached keys and verdicts (benchmarks measuring cold speed)."""
    rhyme_key.cache_clear()
    compare_rhyme_keys.cache_clear()
    key_features.cache_clear()
    _parts.cache_clear()
