"""Pronunciations of English words for meter and rhyme, from CMUdict with offline fallbacks.

Lookup order for a word (every step cached):

1. spelling normalisation (:func:`normalize_word`): case, curly quotes, diacritics
   (``naïve`` -> ``naive``, ``Thermopylæ`` -> ``thermopylae``), outer punctuation; a grave accent
   on ``è`` is kept because it marks a sounded syllable (``belovèd``);
2. poetic contractions (``o'er``, ``e'er``, ``ne'er``, ``'tis``, ``th'``, ``thro'`` ...);
3. CMUdict, all pronunciations (:mod:`poemetric.form.lexicon`: a precomputed table on disk,
   read one word at a time);
4. marked endings: ``lov'd`` (non-syllabic -ed), ``belovèd`` (syllabic -ed), other elisions
   (``heav'n``, ``pow'r``: the elided vowel is dropped), possessives;
5. hyphenated words: parts pronounced separately and joined;
6. older spellings (``majestie``, ``musick``, ``vnto``, ``hye``...) looked up again;
7. morphology: suffixes (``-s``, ``-ed``, ``-ing``, ``-eth``, ``-est``, ``-ly``, ``-ness``...) and
   prefixes (``un-``, ``re-``...) stripped, the stem looked up and the affix's phones added;
8. compounds split into two dictionary words;
9. letter-to-sound rules (:mod:`poemetric.form.letter_to_sound`).

:func:`pronunciations` never returns an empty tuple for a word containing letters.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import cache, lru_cache

from poemetric.form import lexicon
from poemetric.form.letter_to_sound import guess_pronunciations
from poemetric.form.phonetic_tables import (
    CONTRACTIONS,
    FUNCTION_WORDS,
    PREFIXES,
    SPELLING_RULES,
    SUFFIXES,
)

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})
_LIGATURES = str.maketrans(
    {"æ": "ae", "œ": "oe", "ß": "ss", "ø": "o", "đ": "d", "ð": "th", "þ": "th"}
)
_OUTER_JUNK = re.compile(r"^[^a-zè']+|[^a-zè']+$")
_ALLOWED = re.compile(r"[^a-zè'\-]")


_VOICELESS = frozenset({"P", "T", "K", "F", "TH"})
_SIBILANTS = frozenset({"S", "Z", "SH", "ZH", "CH", "JH"})


@lru_cache(maxsize=1 << 18)
def normalize_word(word: str) -> str:
    """Lower-case spelling with quotes, diacritics and outer punctuation removed.

    Internal apostrophes and hyphens are kept; a leading apostrophe is kept only for known
    contractions (``'tis``); ``è`` is kept because it marks a sounded ``-èd`` syllable.
    """
    text = word.translate(_APOSTROPHES).lower().translate(_LIGATURES)
    text = "".join(
        char
        for char in unicodedata.normalize("NFKD", text.replace("è", "\0"))
        if not unicodedata.combining(char)
    ).replace("\0", "è")
    text = _ALLOWED.sub("", text).strip("-")
    stripped = _OUTER_JUNK.sub("", text)
    if text.startswith("'") and "'" + stripped.lstrip("'") in CONTRACTIONS:
        return "'" + stripped.lstrip("'")
    if text.endswith("'") and stripped.rstrip("'") + "'" in CONTRACTIONS:
        return stripped.rstrip("'") + "'"
    if text.endswith("in'") and len(stripped) > 4:
        return stripped.rstrip("'") + "'"
    return stripped.strip("'")


def is_function_word(word: str) -> bool:
    """True for articles, pronouns, prepositions, auxiliaries, conjunctions (stress optional)."""
    return normalize_word(word) in FUNCTION_WORDS


@cache
def pronunciations(word: str) -> tuple[str, ...]:
    """All ARPAbet pronunciations of `word` (stress digits kept); never empty for a word."""
    key = normalize_word(word)
    if not any(char.isalpha() for char in key):
        return ()
    found = _lookup(key)
    if _ARCHAIC_EE.fullmatch(key) and key not in FUNCTION_WORDS:
        found = tuple(dict.fromkeys((*found, *_cmu(key + "e"))))
    if found:
        return _with_glide_r(found)
    return guess_pronunciations(key.replace("è", "e")) or ("AH1",)


#: A consonant-only spelling with a final *e*: older and Scots spelling of *-ee* (*se*, *tre*,
#: *kne*, *fre*, *thre* for see, tree, knee, free, three). CMUdict's own readings (*se* as a
#: name, S EY1) are kept; the *-ee* word's are added. Function words (*the*, *he*) are left alone.
_ARCHAIC_EE = re.compile(r"[^aeiouyè'\-]+e")


_GLIDE_ER_END = re.compile(r"(AY|AW)1 ER0( [ZD])?$")


def _with_glide_r(found: tuple[str, ...]) -> tuple[str, ...]:
    """Add the one-syllable form of a final diphthong + weak *-er* (``flower`` F L AW1 R).

    CMUdict lists both forms for *fire* and *hour* but only the two-syllable one for *flower*,
    *power*, *tower*, *higher*; verse counts them either way, so every such word gets both.
    """
    extra = [
        _GLIDE_ER_END.sub(lambda m: f"{m.group(1)}1 R{m.group(2) or ''}", phones)
        for phones in found
        if _GLIDE_ER_END.search(phones)
    ]
    new = [phones for phones in extra if phones not in found]
    return (*found, *new) if new else found


def in_dictionary(word: str) -> bool:
    """True when CMUdict (or the contraction table) knows the normalised word directly."""
    key = normalize_word(word)
    return key in CONTRACTIONS or bool(_cmu(key.replace("è", "e")))


def clear_lookup_cache() -> None:
    """Forget cached dictionary routes (pronunciations() has its own cache_clear)."""
    _lookup.cache_clear()
    normalize_word.cache_clear()


def _cmu(key: str) -> tuple[str, ...]:
    """CMUdict's readings of `key`, without a letter-by-letter reading when the word has another
    (*us* is also listed as U.S., *am* as A.M., *id* as I.D.). Spellings without a vowel letter
    keep it: *TV* is said letter by letter."""
    found = lexicon.phones_for_word(key) if key else ()
    if len(found) > 1 and 1 < len(key) <= _MAX_SPELLED and _VOWEL_LETTER.search(key):
        kept = tuple(phones for phones in found if not _spelled_out(key, phones))
        if kept:
            return kept
    return found


_VOWEL_LETTER = re.compile("[aeiouy]")
#: Longer spellings are not checked for a letter-by-letter reading (acronyms are short).
_MAX_SPELLED = 6


def _spelled_out(key: str, phones: str) -> bool:
    """True when `phones` is `key` read letter by letter (stress ignored)."""
    sounds = _without_stress(phones)

    def match(letter: int, at: int) -> bool:
        if letter == len(key):
            return at == len(sounds)
        return any(
            sounds[at : at + len(name)] == name and match(letter + 1, at + len(name))
            for name in _letter_names(key[letter])
        )

    return match(0, 0)


@cache
def _letter_names(letter: str) -> tuple[tuple[str, ...], ...]:
    """How a letter's name is said (CMUdict's entry for the letter, stress removed)."""
    return tuple(_without_stress(phones) for phones in lexicon.phones_for_word(letter))


def _without_stress(phones: str) -> tuple[str, ...]:
    return tuple(_STRESS_DIGIT.sub("", phones).split())


_STRESS_DIGIT = re.compile(r"\d")


@cache
def _lookup(key: str) -> tuple[str, ...]:
    """Dictionary-backed pronunciations of a normalised key; () when all dictionary routes fail."""
    if key in CONTRACTIONS:
        return CONTRACTIONS[key]
    if "-" in key:
        return _join_parts(key)
    if key.endswith("èd"):
        return _sounded_ed(key)
    key = key.replace("è", "e")  # a stress mark elsewhere (persèver): the plain spelling
    direct = _cmu(key)
    if direct:
        return direct
    if "'" in key:
        elided = _elision(key)
        if elided:
            return elided
        key = key.replace("'", "")
        direct = _cmu(key)
        if direct:
            return direct
    for variant in _spelling_variants(key):
        found = _cmu(variant)
        if found:
            return found
    return _morphology(key) or _compound(key)


def _join_parts(key: str) -> tuple[str, ...]:
    parts = [part for part in key.split("-") if part]
    options = [pronunciations(part) for part in parts]
    if not parts or any(not option for option in options):
        return ()
    joined = (" ".join(combo) for combo in itertools.product(*options))
    return tuple(itertools.islice(joined, 8))


def _sounded_ed(key: str) -> tuple[str, ...]:
    """``belovèd``: the -ed ending is a syllable of its own."""
    plain = key.replace("è", "e")
    listed = _cmu(plain)
    syllabic = tuple(p for p in listed if re.search(r"(IH0|AH0) D$", p))
    if syllabic:
        return syllabic
    if listed:  # plumed P L UW1 M D -> plumèd P L UW1 M IH0 D
        return tuple(dict.fromkeys(re.sub(r" [DT]$", " IH0 D", p) for p in listed))
    stem = plain[:-2] if plain.endswith("ed") else plain
    first, second = _stem_endings_in_order(stem, ("", "e"))
    stems = _cmu(stem + first) or _cmu(stem + second) or pronunciations(stem)
    return tuple(f"{phones} IH0 D" for phones in stems)


def _elision(key: str) -> tuple[str, ...]:
    """``lov'd`` / ``heav'n`` / ``pow'r``: fill the elided vowel, then drop its syllable."""
    head, _, tail = key.rpartition("'")
    if tail == "d":
        full = _cmu(head + "ed") or _cmu(head + "d")
        if full:
            return tuple(dict.fromkeys(_drop_ed_syllable(p) for p in full))
        stems = _cmu(head) or _cmu(head + "e")
        return tuple(_add_suffix(p, "@D") for p in stems)
    if tail in {"s", "st", "th", "ll", "re", "ve", "t"}:
        return ()
    vowels_before = len(re.findall(r"[aeiouy]+", head))
    for filler in ("e", "o", "a", "i", "u"):
        for phones in _cmu(head + filler + tail):
            vowels = [i for i, phone in enumerate(phones.split()) if phone[-1].isdigit()]
            if len(vowels) > vowels_before and phones.split()[vowels[vowels_before]][-1] == "0":
                split = phones.split()
                removed = split.pop(vowels[vowels_before])
                if removed.startswith("ER"):
                    split.insert(vowels[vowels_before], "R")
                return (" ".join(split),)
    return ()


def _drop_ed_syllable(phones: str) -> str:
    return re.sub(r" (IH0|AH0) D$", " D", phones)


def _spelling_variants(key: str) -> list[str]:
    """Modern spellings an older spelling may stand for (single rules, then pairs of rules)."""
    single = [rule.sub(replacement, key) for rule, replacement in SPELLING_RULES]
    single = [variant for variant in dict.fromkeys(single) if variant != key]
    double = [
        rule.sub(replacement, variant) for variant in single for rule, replacement in SPELLING_RULES
    ]
    return list(dict.fromkeys([*single, *(v for v in double if v != key)]))


def _add_suffix(phones: str, suffix: str) -> str:
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


def _morphology(key: str) -> tuple[str, ...]:
    for ending, adjective, phones in _ENT_ENCE:
        if key.endswith(ending) and len(key) > len(ending) + 2:
            found = _cmu(key[: -len(ending)] + adjective)
            if found:
                return tuple(p[:-1] + phones for p in found if p.endswith(" T"))
    for suffix, stem_endings, added in sorted(SUFFIXES, key=lambda rule: -len(rule[0])):
        if not key.endswith(suffix) or len(key) - len(suffix) < 2:
            continue
        base = key[: -len(suffix)]
        if suffix == "y" and base[-1] in "aeou":
            continue  # -ay, -ey, -oy, -uy spell one vowel (roundelay), not a stem and -y
        endings = (
            _stem_endings_in_order(base, stem_endings) if suffix[0] in "aeiouy" else stem_endings
        )
        for ending in endings:
            if ending == "@double":
                if len(base) < 3 or base[-1] != base[-2]:
                    continue
                stem = base[:-1]
            else:
                stem = base + ending
            if not _VOWEL_NOT_LAST.search(stem + "."):
                continue  # no vowel letter: an abbreviation (*dr*, *st*), never a stem
            found = _stem_cmu(stem) or (_lookup(stem) if _plausible_stem(stem, key) else ())
            if found:
                return tuple(_add_suffix(p, added) for p in found)
    for prefix, phones in PREFIXES:
        rest = key[len(prefix) :]
        if key.startswith(prefix) and len(rest) >= 3:
            found = _stem_cmu(rest) or (_lookup(rest) if _plausible_stem(rest, key) else ())
            if found:
                return tuple(f"{phones} {p}" for p in found)
    return ()


#: A one-syllable stem of a single vowel letter and a single consonant letter, left when a
#: suffix that starts with a vowel goes: *plum-ed*, *slop-ed*, *gap-ing* come from *plume*,
#: *slope*, *gape* (*plum* would double its consonant: *plummed*). Not longer stems: the
#: *-ity* of *importunity* is not *importunite* + *-y*.
_MAGIC_E_STEM = re.compile(r"^[^aeiouy]*[aeiou][^aeiouwxy]$")


def _stem_endings_in_order(base: str, endings: tuple[str, ...]) -> tuple[str, ...]:
    """Stem endings to try, the silent *e* first where the spelling points to it."""
    if "e" in endings and "" in endings and _MAGIC_E_STEM.search(base):
        return ("e", *(ending for ending in endings if ending != "e"))
    return endings


def _stem_cmu(stem: str) -> tuple[str, ...]:
    """CMUdict's readings of a stem or a part of a word, without letter-by-letter ones: CMUdict
    reads *clos* as C.L.O.S., which as the stem of *unclosed* gave six syllables."""
    found = _cmu(stem)
    if len(stem) > _MAX_SPELLED:
        return found
    return tuple(phones for phones in found if not _spelled_out(stem, phones))


def _plausible_stem(stem: str, key: str) -> bool:
    """Whether a stem not in the dictionary is worth resolving in turn: three letters or more
    and a vowel letter before its last letter (*dre* of *drest* is not a stem: resolved, it
    came back as the abbreviation *Dr.*, "drive")."""
    return len(stem) >= 3 and stem != key and _VOWEL_NOT_LAST.search(stem) is not None


_VOWEL_NOT_LAST = re.compile(r"[aeiouy](?=.)")

#: Endings that CMUdict also lists as words (*ion*, *ism*), which must not end a compound:
#: *dejection* is not *deject* + *ion*.
_SUFFIX_LIKE_TAILS = frozenset(
    ["ion", "ions", "ism", "isms", "ist", "ists", "ous", "ive", "ives", "ize", "ise", "ing", "ings"]
)


def _compound(key: str) -> tuple[str, ...]:
    for adverb in ("where", "there", "here"):  # whereof, whereon, thereat: stress on the end
        rest = key[len(adverb) :]
        if key.startswith(adverb) and rest in FUNCTION_WORDS and _cmu(rest):
            heads = tuple(p.replace("1", "2") for p in _cmu(adverb)[:1])
            return tuple(f"{h} {t}" for h, t in itertools.product(heads, _cmu(rest)[:2]))
    best: tuple[str, ...] = ()
    best_balance = 0
    for cut in range(3, len(key) - 2):
        head, tail = key[:cut], key[cut:]
        shorter, longer = sorted((len(head), len(tail)))
        if shorter < 3 or (shorter == 3 and longer < 5) or tail in _SUFFIX_LIKE_TAILS:
            continue
        head_found = _stem_cmu(head)
        tail_found = tuple(p.replace("1", "2") for p in _stem_cmu(tail))
        if head_found and tail_found and min(len(head), len(tail)) > best_balance:
            best_balance = min(len(head), len(tail))
            best = tuple(
                itertools.islice(
                    (f"{h} {t}" for h, t in itertools.product(head_found, tail_found)), 6
                )
            )
    return best


def syllable_count(phones: str) -> int:
    """Number of vowels (stress-marked phones) in an ARPAbet string."""
    return sum(ch.isdigit() for ch in phones)


def stress_pattern(phones: str) -> str:
    """Stress digits of a pronunciation, e.g. '010'."""
    return "".join(ch for ch in phones if ch.isdigit())


def rhyming_part(phones: str) -> str:
    """Phones from the last primary-stressed vowel (or the last stressed, or last vowel) on."""
    split = phones.split()
    for digits in ("1", "12"):
        for index in range(len(split) - 1, -1, -1):
            if split[index][-1] in digits:
                return " ".join(split[index:])
    for index in range(len(split) - 1, -1, -1):
        if split[index][-1].isdigit():
            return " ".join(split[index:])
    return phones
