"""Pronunciations of English words for meter and rhyme, from CMUdict with offline fallbacks.

Lookup order for a word (every step cached):

1. spelling normalisation (:func:`normalize_word`): case, curly quotes, diacritics
   (``naïve`` -> ``naive``, ``Thermopylæ`` -> ``thermopylae``), outer punctuation; a grave accent
   on ``è`` is kept because it marks a sounded syllable (``belovèd``);
2. poetic contractions (``o'er``, ``e'er``, ``ne'er``, ``'tis``, ``th'``, ``thro'`` ...);
3. CMUdict, all pronunciations (:mod:`poemetric.form.lexicon`: a precomputed table on disk,
   a user's own pronunciations of a word first, in place of all others, even the contractions'
   (:mod:`poemetric.form.user_lexicon`),
   read one word at a time), and a short table of words it lacks that no rule below reads right
   (``UNLISTED_WORDS``: *contumely*; *weft*, *fettle*, which the long-s rule read as *west*,
   *settle*);
4. marked endings: ``lov'd`` (non-syllabic -ed), ``belovèd`` (syllabic -ed), other elisions
   (``heav'n``, ``pow'r``: the elided vowel is dropped), possessives;
5. hyphenated words: parts pronounced separately and joined;
6. older spellings (``majestie``, ``musick``, ``vnto``, ``hye``...) looked up again; long s
   printed as ``f`` (``praife``, ``faid``) only in a word that such a print may have set and that
   no dictionary word derives (:func:`_may_have_long_s`);
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

from poemetric.form import morphology, user_lexicon
from poemetric.form.dictionary import cmu
from poemetric.form.letter_to_sound import guess_pronunciations
from poemetric.form.phonetic_tables import (
    CONTRACTIONS,
    FUNCTION_WORDS,
    LONG_S_RULE,
    MAGIC_E_RULE,
    ROUND_S_INSIDE,
    SPELLING_RULES,
    UNLISTED_WORDS,
)
from poemetric.text.apostrophes import apostrophe_table

#: The shared apostrophes and the grave and acute accents typed for one (`tis, o´er).
_APOSTROPHES = apostrophe_table({"`": "'", "\u00b4": "'"})
_LIGATURES = str.maketrans(
    {"æ": "ae", "œ": "oe", "ß": "ss", "ø": "o", "đ": "d", "ð": "th", "þ": "th"}
)
_OUTER_JUNK = re.compile(r"^[^a-zè']+|[^a-zè']+$")
_ALLOWED = re.compile(r"[^a-zè'\-]")


@lru_cache(maxsize=1 << 18)
def normalize_word(word: str) -> str:
    """Lower-case spelling with quotes, diacritics and outer punctuation removed.

    Internal apostrophes and hyphens are kept; a leading apostrophe is kept only for known
    contractions (``'tis``); ``è`` is kept because it marks a sounded ``-èd`` syllable.
    """
    text = word.translate(_APOSTROPHES).lower().translate(_LIGATURES)
    if not text.isascii() or "\0" in text:  # NFKD leaves ASCII as it is, unmarked
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
        found = tuple(dict.fromkeys((*found, *cmu(key + "e"))))
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
    """True when CMUdict (or the user lexicon, the contraction or unlisted-word table) knows
    the normalised word."""
    key = normalize_word(word)
    return key in CONTRACTIONS or key in UNLISTED_WORDS or bool(cmu(key.replace("è", "e")))


def clear_lookup_cache() -> None:
    """Forget cached dictionary routes (pronunciations() has its own cache_clear)."""
    _lookup.cache_clear()
    normalize_word.cache_clear()


@cache
def _lookup(key: str, long_s: bool = True) -> tuple[str, ...]:
    """Dictionary-backed pronunciations of a normalised key; () when all dictionary routes fail.
    Without `long_s`, neither the key nor its stems are read as spellings with long s."""
    own = user_lexicon.phones(key)
    if own:
        return own
    if key in CONTRACTIONS:
        return CONTRACTIONS[key]
    if key in UNLISTED_WORDS:
        return UNLISTED_WORDS[key]
    if "-" in key:
        return _join_parts(key)
    if key.endswith("èd"):
        return _sounded_ed(key)
    key = key.replace("è", "e")  # a stress mark elsewhere (persèver): the plain spelling
    direct = cmu(key)
    if direct:
        return direct
    if "'" in key:
        elided = _elision(key)
        if elided:
            return elided
        key = key.replace("'", "")
        direct = cmu(key)
        if direct:
            return direct
    for variant in _spelling_variants(key, SPELLING_RULES):
        found = cmu(variant)
        if found:
            return found
    if long_s and _may_have_long_s(key):
        return _long_s(key) or morphology.derive(key, _lookup) or morphology.compound(key)
    return morphology.derive(key, _lookup_without_long_s) or morphology.compound(key)


def _lookup_without_long_s(key: str) -> tuple[str, ...]:
    return _lookup(key, long_s=False)


def _may_have_long_s(key: str) -> bool:
    """Whether a word may come from a print with long s, its *f* standing for *s*.

    CMUdict lacks many plain words with an *f*, and read as long-s spellings they became other
    words: *faints* "saints", *griefs* "griess", *sifter* "sister", *falser* (*fals*) "salser".
    So the reading is only for a word that such a print could have set and that is no English
    word the dictionary accounts for: an *f* where a long s could stand (`LONG_S_RULE`), no
    round *s* inside (`ROUND_S_INSIDE`: the print would have set a long one), and no inflection
    or derivative of a CMUdict word (*faint* + *-s*, *wife* + *-ly*, *un-* + *lifted*), which the
    morphology step reads as that word, its stem read without long s too. What is left is
    ambiguous without the rest of the poem (*weft* or *west*, *diffident* or *dissident*) and
    keeps the long-s reading, which a print's commonest words need (*fo*, *faid*, *thefe*),
    except the plain words of `UNLISTED_WORDS` (*weft*, *fettle*), looked up before it, and
    their inflections (*wefts*)."""
    return (
        LONG_S_RULE[0].search(key) is not None
        and ROUND_S_INSIDE.search(key) is None
        and not morphology.derive(key, _unlisted)
    )


def _long_s(key: str) -> tuple[str, ...]:
    """``praife``, ``faid``, ``moft``: a word transcribed from a print with long s, read with
    *s* for each *f* that may stand for one (`LONG_S_RULE`), alone or with another older
    spelling (*ftriue*, strive); then, in a word with a real *f* too (*firft*, first), with *s*
    for some of them only, the most first; () when no such reading is a CMUdict word."""
    plain = set(_spelling_variants(key, SPELLING_RULES))
    for variant in _spelling_variants(key, (*SPELLING_RULES, LONG_S_RULE)):
        found = () if variant in plain else cmu(variant)
        if found:
            return found
    for partial in _partly_long_s(key):
        for variant in (partial, *_spelling_variants(partial, SPELLING_RULES)):
            found = cmu(variant)
            if found:
                return found
    return ()


def _partly_long_s(key: str) -> list[str]:
    """`key` with some but not all of the *f*s that may stand for a long s read as *s*, the
    most first (at most `MAX_LONG_S_LETTERS` such *f*s are tried)."""
    places = [match.start() for match in LONG_S_RULE[0].finditer(key)]
    tried = places[:MAX_LONG_S_LETTERS]
    return [
        "".join("s" if k in chosen else letter for k, letter in enumerate(key))
        for size in range(min(len(tried), len(places) - 1), 0, -1)
        for chosen in itertools.combinations(tried, size)
    ]


#: A word with more *f*s that may stand for a long s has only its first ones tried one by one.
MAX_LONG_S_LETTERS = 4


def _unlisted(stem: str) -> tuple[str, ...]:
    """A stem lookup in `UNLISTED_WORDS` only: morphology then takes CMUdict's stems and those
    (*ruffians* is *ruffian* + *-s*, not a long-s spelling)."""
    return UNLISTED_WORDS.get(stem, ())


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
    listed = cmu(plain)
    syllabic = tuple(p for p in listed if re.search(r"(IH0|AH0) D$", p))
    if syllabic:
        return syllabic
    if listed:  # plumed P L UW1 M D -> plumèd P L UW1 M IH0 D
        return tuple(dict.fromkeys(re.sub(r" [DT]$", " IH0 D", p) for p in listed))
    stem = plain[:-2] if plain.endswith("ed") else plain
    first, second = morphology.stem_endings_in_order(stem, ("", "e"))
    stems = cmu(stem + first) or cmu(stem + second) or pronunciations(stem)
    return tuple(f"{phones} IH0 D" for phones in stems)


def _elision(key: str) -> tuple[str, ...]:
    """``lov'd`` / ``heav'n`` / ``pow'r``: fill the elided vowel, then drop its syllable."""
    head, _, tail = key.rpartition("'")
    if tail == "d":
        full = cmu(head + "ed") or cmu(head + "d")
        if full:
            return tuple(dict.fromkeys(_drop_ed_syllable(p) for p in full))
        stems = cmu(head) or cmu(head + "e")
        return tuple(morphology.add_suffix(p, "@D") for p in stems)
    if tail in {"s", "st", "th", "ll", "re", "ve", "t"}:
        return ()
    vowels_before = len(re.findall(r"[aeiouy]+", head))
    for filler in ("e", "o", "a", "i", "u"):
        for phones in cmu(head + filler + tail):
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


def _spelling_variants(key: str, rules: tuple[tuple[re.Pattern[str], str], ...]) -> list[str]:
    """Modern spellings an older spelling may stand for by `rules` (single, then pairs of rules).

    A pair stands for two separate older spellings in one word (*vnseene*, *trayne*), so its
    second rule may not change a letter that the first one wrote, which would read one letter
    twice over: *yews* y -> i -> j (*Jews*), *vii* i -> y then yy -> y, *satyr* y -> i and then
    a magic *e* that lengthens that *i* (*satire*)."""
    single = [_apply(rule, replacement, key) for rule, replacement in rules]
    single = [variant for variant in dict.fromkeys(single) if variant != key]
    double = []
    for variant in single:
        written = _edited(key, variant)[1]
        for rule, replacement in rules:
            changed = _apply(rule, replacement, variant)
            if changed == variant:
                continue
            touched = _edited(variant, changed)[0]
            if (rule, replacement) == MAGIC_E_RULE:
                touched = {len(variant) - 2}  # the vowel that the new e lengthens
            if not written & touched:
                double.append(changed)
    return list(dict.fromkeys([*single, *(v for v in double if v != key)]))


def _apply(rule: re.Pattern[str], replacement: str, text: str) -> str:
    """`rule.sub(replacement, text)`, without its cost where the rule does not match: a
    replacement with group references (``\\1``) is parsed on every `sub` call, even a no-op."""
    return rule.sub(replacement, text) if rule.search(text) else text


def _edited(before: str, after: str) -> tuple[set[int], set[int]]:
    """Positions of `before` that a rule replaced or deleted, and of `after` that it wrote. A rule
    either keeps the length (letters swapped, wherever they are) or edits one stretch."""
    if len(before) == len(after):
        swapped = {index for index, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}
        return swapped, swapped
    head = _common_length(before, after)
    tail = _common_length(before[head:][::-1], after[head:][::-1])
    return set(range(head, len(before) - tail)), set(range(head, len(after) - tail))


def _common_length(first: str, second: str) -> int:
    """Length of the common beginning of two strings."""
    return next(
        (index for index, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
        min(len(first), len(second)),
    )


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
