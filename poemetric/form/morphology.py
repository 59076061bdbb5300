"""Words missing from CMUdict read as a dictionary stem with an affix, or as a compound.

`derive` strips a suffix (``-s``, ``-ed``, ``-ing``, ``-eth``, ``-est``, ``-ly``, ``-ness``...)
or a prefix (``un-``, ``re-``...), looks the stem up and adds the affix's phones; `compound`
splits a word into two dictionary words. Both are steps of :func:`poemetric.form.phonetics
.pronunciations`, which passes its own dictionary routes for stems the dictionary lacks.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from poemetric.form.dictionary import MAX_SPELLED, VOWEL_LETTER, cmu, spelled_out
from poemetric.form.letter_to_sound import guess_pronunciations
from poemetric.form.phonetic_tables import (
    CLOSED_SYLLABLE_WORD,
    FUNCTION_WORDS,
    PREFIXES,
    SUFFIXES,
)

#: Resolves a stem that CMUdict lacks (phonetics' dictionary routes, recursively).
Lookup = Callable[[str], tuple[str, ...]]

_VOICELESS = frozenset({"P", "T", "K", "F", "TH"})
_SIBILANTS = frozenset({"S", "Z", "SH", "ZH", "CH", "JH"})


def add_suffix(phones: str, suffix: str) -> str:
    last = phones.split()[-1]
    if suffix == "@S":
        if last in _SIBILANTS:
            return f"{phones} IH0 Z"
        return f"{phones} {'S' if last in _VOICELESS else 'Z'}"
    if suffix == "@D":
        if last in {"T", "D"}:
            return f"{phones} IH0 D"
        return f"{phones} {'T' if last in _VOICELESS | {'S', 'SH', 'CH'} else 'D'}"
    if suffix == "@ILY":  # the stem's final -y vowel becomes -ily: happy -> happily
        return (
            f"{phones[: -len(' IY0')]} AH0 L IY0" if phones.endswith(" IY0") else f"{phones} L IY0"
        )
    if suffix == "@LY":  # a -le stem: its syllabic L joins the -ly (gentle -> gently)
        return (
            f"{phones[: -len(' AH0 L')]} L IY0" if phones.endswith(" AH0 L") else f"{phones} L IY0"
        )
    return f"{phones} {suffix}" if suffix else phones


#: Noun/adjective pairs: ``quiescence`` is ``quiescent`` with its final T sounded S.
_ENT_ENCE = (
    ("ence", "ent", "S"),
    ("ance", "ant", "S"),
    ("ency", "ent", "S IY0"),
    ("ancy", "ant", "S IY0"),
)


def derive(key: str, lookup: Lookup) -> tuple[str, ...]:
    """Readings of `key` as a dictionary stem and a suffix or a prefix (() when none fits);
    `lookup` resolves a stem the dictionary lacks by the caller's own dictionary routes."""
    for ending, adjective, phones in _ENT_ENCE:
        if key.endswith(ending) and len(key) > len(ending) + 2:
            found = cmu(key[: -len(ending)] + adjective)
            if found:
                return tuple(p[:-1] + phones for p in found if p.endswith(" T"))
    for suffix, stem_endings, added in sorted(SUFFIXES, key=lambda rule: -len(rule[0])):
        if not key.endswith(suffix) or len(key) - len(suffix) < 2:
            continue
        base = key[: -len(suffix)]
        if suffix == "y" and base[-1] in "aeou":
            continue  # -ay, -ey, -oy, -uy spell one vowel (roundelay), not a stem and -y
        if suffix == "d" and base[-1] in "aeiou" and CLOSED_SYLLABLE_WORD.fullmatch(key):
            continue  # a short vowel (cud, chid, ded), not Spenser's *pursud* (pursue-d)
        if suffix == "d" and base[-1] in "dt":
            continue  # -ed after d or t is a syllable, never spelled -d: udd is not ude-d
        if suffix == "s" and base.endswith("s") and not base.endswith("ss"):
            continue  # a final -ss is no plural (muss is not mus-s); -sss is glass's sans '
        # -d for -ed drops a stem's silent e too (prizd, tird, lov'd), unless -ld or -nd may end
        # the stem itself (rend is not rene-d)
        e_dropped = suffix == "'d" or (suffix == "d" and base[-1] not in "ln")
        endings = (
            stem_endings_in_order(base, stem_endings)
            if suffix[0] in "aeiouy" or e_dropped
            else stem_endings
        )
        for ending in endings:
            if ending == "@double":
                if len(base) < 3 or base[-1] != base[-2]:
                    continue
                stem = base[:-1]
            else:
                stem = base + ending
            if not VOWEL_LETTER.search(stem):
                continue  # no vowel letter: an abbreviation (*dr*, *st*), never a stem
            found = (
                stemcmu(stem)
                or (_closed_stem(stem, doubled=True) if ending == "@double" else ())
                or (lookup(stem) if _plausible_stem(stem, key) and not _inflected(stem) else ())
            )
            if found:
                return tuple(add_suffix(p, added) for p in found)
        if "" in endings and _plausible_stem(base, key):
            found = _closed_stem(base)  # after the other endings: smil-d is smile-d
            if found:
                return tuple(add_suffix(p, added) for p in found)
    for prefix, phones in PREFIXES:
        rest = key[len(prefix) :]
        if key.startswith(prefix) and len(rest) >= 3:
            plausible = _plausible_stem(rest, key)
            found = stemcmu(rest) or ((lookup(rest) or _closed_stem(rest)) if plausible else ())
            if found:
                return tuple(f"{phones} {p}" for p in found)
    return ()


#: A one-syllable stem of a single vowel letter and a single consonant letter, left when a
#: suffix that starts with a vowel goes: *plum-ed*, *slop-ed*, *gap-ing* come from *plume*,
#: *slope*, *gape* (*plum* would double its consonant: *plummed*). Not longer stems: the
#: *-ity* of *importunity* is not *importunite* + *-y*.
_MAGIC_E_STEM = re.compile(r"^[^aeiouy]*[aeiou][^aeiouwxy]$")


#: The same after a prefix, which takes no stress and so leaves the doubling rule to the root:
#: *un-daz-ed*, *re-siz-ed*, *in-fam-d* come from *daze*, *size*, *fame*.
_PREFIXED_MAGIC_E_STEM = re.compile(
    "^(?:" + "|".join(prefix for prefix, _ in PREFIXES) + r")[^aeiouy]+[aeiou][^aeiouwxy]$"
)


def stem_endings_in_order(base: str, endings: tuple[str, ...]) -> tuple[str, ...]:
    """Stem endings to try, the silent *e* first where the spelling points to it."""
    if (
        "e" in endings
        and "" in endings
        and (_MAGIC_E_STEM.search(base) or _PREFIXED_MAGIC_E_STEM.search(base))
    ):
        return ("e", *(ending for ending in endings if ending != "e"))
    return endings


def _closed_stem(stem: str, *, doubled: bool = False) -> tuple[str, ...]:
    """A stem of one vowel letter closed by one consonant letter that no dictionary route reads,
    read by letter-to-sound, whose short vowel is sure for such a syllable; only where the word
    shows it to be a stem: its consonant doubled before the suffix (*tun-ned*, *strop-ped*), or
    the stem with a silent *e* added is a dictionary word (*dor* of *indorse*, *whin* of
    *whinny*: not *dore*, *whine*, whose long vowel it lacks). A word that only ends like a
    suffix (*throtes*) is left to the rules for whole words."""
    if not CLOSED_SYLLABLE_WORD.fullmatch(stem) or not (doubled or cmu(stem + "e")):
        return ()
    return guess_pronunciations(stem)


def stemcmu(stem: str) -> tuple[str, ...]:
    """CMUdict's readings of a stem or a part of a word, without letter-by-letter ones: CMUdict
    reads *clos* as C.L.O.S., which as the stem of *unclosed* gave six syllables."""
    found = cmu(stem)
    if len(stem) > MAX_SPELLED:
        return found
    return tuple(phones for phones in found if not spelled_out(stem, phones))


def _plausible_stem(stem: str, key: str) -> bool:
    """Whether a stem not in the dictionary is worth resolving in turn: three letters or more
    and a vowel letter before its last letter (*dre* of *drest* is not a stem: resolved, it
    came back as the abbreviation *Dr.*, "drive")."""
    return len(stem) >= 3 and stem != key and _VOWEL_NOT_LAST.search(stem) is not None


_VOWEL_NOT_LAST = re.compile(r"[aeiouy](?=.)")

#: Inflections that end a word: no suffix follows them, so a stem that the dictionary lacks and
#: that ends in one is not read as an inflected word (*naething*, Scots *nae* + *thing*, was
#: read *na* + -eth + -ing, N AA1 IH0 TH IH0 NG).
_CLOSING_INFLECTIONS = ("eth", "'th", "est", "'st")


def _inflected(stem: str) -> bool:
    """Whether a stem the dictionary lacks ends in an inflection that no suffix may follow."""
    return stem.endswith(_CLOSING_INFLECTIONS)


#: Endings that CMUdict also lists as words (*ion*, *ism*), which must not end a compound:
#: *dejection* is not *deject* + *ion*.
_SUFFIX_LIKE_TAILS = frozenset(
    ["ion", "ions", "ism", "isms", "ist", "ists", "ous", "ive", "ives", "ize", "ise", "ing", "ings"]
)


def compound(key: str) -> tuple[str, ...]:
    for adverb in ("where", "there", "here"):  # whereof, whereon, thereat: stress on the end
        rest = key[len(adverb) :]
        if key.startswith(adverb) and rest in FUNCTION_WORDS and cmu(rest):
            heads = tuple(p.replace("1", "2") for p in cmu(adverb)[:1])
            return tuple(f"{h} {t}" for h, t in itertools.product(heads, cmu(rest)[:2]))
    best: tuple[str, ...] = ()
    best_balance = 0
    for cut in range(3, len(key) - 2):
        head, tail = key[:cut], key[cut:]
        shorter, longer = sorted((len(head), len(tail)))
        if shorter < 3 or (shorter == 3 and longer < 5) or tail in _SUFFIX_LIKE_TAILS:
            continue
        head_found = stemcmu(head)
        tail_found = tuple(p.replace("1", "2") for p in stemcmu(tail))
        if head_found and tail_found and min(len(head), len(tail)) > best_balance:
            best_balance = min(len(head), len(tail))
            best = tuple(
                itertools.islice(
                    (f"{h} {t}" for h, t in itertools.product(head_found, tail_found)), 6
                )
            )
    return best
