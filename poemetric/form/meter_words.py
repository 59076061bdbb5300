"""Words of a verse line and the ways each can be said: syllable counts and stress classes.

Each syllable gets a *stress class* (one letter):

``S`` primary stress of a polysyllable, ``U`` unstressed syllable of a polysyllable,
``T`` secondary stress (flexible), ``P`` stressed syllable of a polysyllabic function word
(``upon``, ``into``), ``M`` monosyllabic content word (usually strong, may be demoted),
``F`` monosyllabic function word (usually weak, may be promoted), ``N`` a content monosyllable
right before another stress (phrase stress: *old MAN*).

A word offers several options (dictionary pronunciations, slurred or syncopated forms, a sounded
``-ed``, synaloepha with the next word), each with a cost; the meter search picks among them.
Pronunciations come from :mod:`poemetric.form.phonetics`; everything meter-specific (which vowels
may be elided, how costly that is) lives here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import product

from poemetric.form import phonetics, user_lexicon
from poemetric.form.table_store import DiskTable

# Cost of choosing a shorter (or, for -ed, longer) syllabification than the dictionary's.
ELISION_COSTS: dict[str, float] = {
    "slur": 0.3,
    "syncope": 0.7,
    "synaloepha": 0.8,
    "sounded -ed": 0.9,
}
CLASS_LETTERS = "NSUTPMF"  # index = integer code of a stress class

_LOCAL_FUNCTION_WORD_TEXT = """
    a an the and but or nor for yet so if as than that though while when whence where whose who
    whom which what whate'er wherein whereof i me my mine we us our ours you your yours ye thou
    thee thy thine he him his she her hers it its they them their theirs 'tis 'twas o'er this
    these those am is are was were be been being have has had do does did shall should will would
    can could may might must at by from in into of off on onto to till up upon with within without
    o oh ah not no e'er ne'er 'twill 'em th' t' i'm i'll i'd it's there here then thus too such
"""
_LOCAL_FUNCTION_WORDS = frozenset(_LOCAL_FUNCTION_WORD_TEXT.split())

_TOKEN = re.compile(r"[A-Za-zÀ-ÿ]+(?:['’-][A-Za-zÀ-ÿ]+)*'?|'[A-Za-z]+(?:['’-][A-Za-z]+)*")
# A diphthong followed by a weak -er (F AY1 ER0): when the dictionary also has a one-syllable
# form, the two-syllable one costs this much.
GLIDE_ER_COST = 0.3
_GLIDE_ER = re.compile(r"\b(AY|AW|OW|OY|EY)[12] ER0\b")
_VOWEL_STARTS = frozenset(
    ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]
)
_VOWEL_GROUP = re.compile(r"[aeiouyàâäèéêëìîïòôöùûü]+")


def is_function_word(word: str) -> bool:
    """Whether `word` is a grammatical (function) word: the phonetics module's list plus ours."""
    key = phonetics.normalize_word(word)
    return phonetics.is_function_word(key) or key in _LOCAL_FUNCTION_WORDS


def tokenize(line: str) -> list[str]:
    """Words of a line: keeps hyphenated compounds and apostrophe forms (o'er, lov'd, 'tis)."""
    text = line.replace("’", "'").replace("‘", "'")
    return _TOKEN.findall(text)  # every token contains a letter


@dataclass(frozen=True)
class WordOption:
    """One way to say a word: stress classes (one letter per syllable), cost, note."""

    classes: str
    cost: float
    note: str | None = None


def _classes_from_stress(stress: str, function: bool) -> str:
    if len(stress) == 1:
        return "F" if function else "M"
    return "".join(
        ("P" if function else "S") if digit == "1" else "T" if digit == "2" else "U"
        for digit in stress
    )


def _before_vowel(rest: list[str]) -> bool:
    return bool(rest) and rest[0][-1].isdigit()


def _closes_syllable(rest: list[str]) -> bool:
    """Whether a sonorant followed by `rest` can close or join a syllable once the vowel before
    it is dropped: word-final (heav'n), before a vowel (wand'ring, list'ning) or before a final
    inflection (heav'ns, op'nd); not before a consonant and another syllable (*bal'nces*,
    *vi'l'nce*: over-elisions that made regular lines look unmetrical), nor before a final S or
    T, which after a sonorant belong to the stem (*moment*, *silence*, *talent*): an inflection
    there is voiced (Z, D)."""
    if not rest or _before_vowel(rest):
        return True
    return len(rest) == 1 and rest[0] in {"Z", "D"}


#: Consonants after which a final -en / -le / -er stays a syllable of its own (*written*,
#: *often*, *listen*, *single*, *people*), unlike *heav'n*, *ev'n*, *fall'n*, *ris'n*.
_STOPS_AND_VOICELESS = frozenset({"P", "B", "T", "D", "K", "G", "F", "TH", "S", "SH", "CH", "JH"})


def _syncope_variants(phones: str) -> list[tuple[str, str]]:
    """Stress strings with one weak unstressed vowel dropped, with the kind of elision.

    ``slur``: a weak vowel right after another vowel or gliding into one (power -> pow'r,
    flower, being, Assyrian, -ious); ``syncope``: a schwa-like vowel before r/l/n/m or
    between consonants (heaven -> heav'n, every -> ev'ry, wandering -> wand'ring).
    """
    items = phones.split()
    vowel_idx = [i for i, p in enumerate(items) if p[-1].isdigit()]
    if len(vowel_idx) < 2 or len(vowel_idx) == len(items):
        return []  # one syllable, or a spelling-based guess with no consonants to reason about
    stress = [items[i][-1] for i in vowel_idx]
    variants = []
    for k, i in enumerate(vowel_idx):
        vowel, digit = items[i][:-1], items[i][-1]
        if digit != "0" or vowel not in {"AH", "ER", "IH", "IY", "UW"}:
            continue
        before = items[i - 1] if i > 0 else ""
        after = items[i + 1] if i + 1 < len(items) else ""
        before_vowel = before[-1:].isdigit() and not before.startswith("ER")
        after_vowel = after[-1:].isdigit()
        shorter = "".join(stress[:k] + stress[k + 1 :])
        if (vowel in {"IY", "UW", "IH"} and after_vowel) or (before_vowel and vowel == "ER"):
            variants.append((shorter, "slur"))  # Assyrian, glorious; power, flower, fire
        elif before_vowel:
            variants.append((shorter, "syncope"))  # being, violet, joyous
        elif (
            k > 0
            and vowel in {"AH", "ER"}
            and after in {"R", "L", "N", "M"}
            and _closes_syllable(items[i + 2 :])
            and (before not in _STOPS_AND_VOICELESS or _before_vowel(items[i + 2 :]))
        ) or (k > 0 and vowel == "ER" and after_vowel):
            variants.append((shorter, "syncope"))
    return variants


@cache
def word_options(word: str) -> tuple[WordOption, ...]:
    """All syllabification / stress options of one word (hyphenated compounds combined)."""
    parts = [p for p in re.split(r"-+", word) if p]
    if len(parts) > 1:
        combos: dict[str, WordOption] = {}
        for choice in product(*(_word_entry(p)[0] for p in parts)):  # parts from the table
            classes = "".join(o.classes for o in choice)
            cost = sum(o.cost for o in choice)
            notes = [o.note for o in choice if o.note]
            if classes not in combos or combos[classes].cost > cost:
                combos[classes] = WordOption(classes, cost, notes[0] if notes else None)
        return tuple(sorted(combos.values(), key=lambda o: o.cost)[:6])
    return _single_word_options(word)


def _single_word_options(word: str) -> tuple[WordOption, ...]:
    key = phonetics.normalize_word(word)
    if not key:
        return ()
    function = is_function_word(key)
    options: dict[str, WordOption] = {}

    def add(stress: str, cost: float, note: str | None = None) -> None:
        classes = _classes_from_stress(stress, function) if stress else ""
        if classes not in options or options[classes].cost > cost:
            options[classes] = WordOption(classes, cost, note)

    if not _VOWEL_GROUP.search(key) and "'" in word.replace("’", "'"):
        add("", 0.0, "elided")  # th', t', 's (abbreviations such as St, Mr, W are pronounced)
    else:
        prons = phonetics.pronunciations(key)
        longest = max(phonetics.syllable_count(p) for p in prons)
        shortest = min(phonetics.syllable_count(p) for p in prons)
        for phones in prons:
            stress = phonetics.stress_pattern(phones)
            # fire, hour, our: verse normally counts the diphthong + r as one syllable
            long_glide = len(stress) > shortest and _GLIDE_ER.search(phones) is not None
            add(stress, GLIDE_ER_COST if long_glide else 0.0)
            if len(stress) == longest and "'" not in key:
                for shorter, kind in _syncope_variants(phones):
                    add(shorter, ELISION_COSTS[kind], kind)
    accented_ed = word.lower().endswith(("èd", "éd"))
    if key.endswith("ed") and not key.endswith(("eed", "'d")) and len(key) > 3:
        for classes in list(options):
            if options[classes].cost == 0.0 and classes:
                stress = "".join("1" if c in "SMP" else "2" if c == "T" else "0" for c in classes)
                add(
                    stress + "0",
                    0.0 if accented_ed else ELISION_COSTS["sounded -ed"],
                    "sounded -ed",
                )
    return tuple(sorted(options.values(), key=lambda o: o.cost))


WordEntry = tuple[tuple[WordOption, ...], bool, bool, bool]


@cache
def _word_entry(word: str) -> WordEntry:
    """Options of a token, whether it ends / starts with a vowel sound, may start stressed.

    Dictionary words come from the precomputed table (`word_entry_table`), also when quoted or
    capitalised (*'If*, *Man's*: `_table_key`); other tokens (elisions, hyphenated compounds,
    whose parts are read here in turn, accents, unknown words) and the words of a user lexicon
    (which the table, built from CMUdict alone, does not know) are computed here.
    """
    key = _table_key(word)
    if key is not None and not user_lexicon.touches(key):
        stored = word_entry_table().get(key)
        if stored is not None:
            return decode_entry(stored)
    return _compute_word_entry(word)


def _table_key(word: str) -> str | None:
    """The table key whose entry is `word`'s, if any: the lower-case word when plain, else its
    normalised spelling (*'If* is *if*, *Man's* is *man's*) when the entry depends on that alone.

    An ASCII token without a hyphen has the entry of its normalised key, except a token with an
    apostrophe whose key has no vowel letter (*'s* is elided, *s* is said)."""
    if not word.isascii():
        return None
    if word.isalpha():
        return word.lower()
    if "-" in word:
        return None
    key = phonetics.normalize_word(word)
    if not key or (not _VOWEL_GROUP.search(key) and ("'" not in key or "'" not in word)):
        return None
    return key if _is_table_word(key) else None


def _is_table_word(word: str) -> bool:
    """Whether `word` may be a key of the table: letters and inner or outer apostrophes."""
    return word.replace("'", "").isalpha()


def _compute_word_entry(word: str) -> WordEntry:
    key = phonetics.normalize_word(word)
    options = word_options(word)
    prons = phonetics.pronunciations(key) if key else ()
    # synaloepha: a weak final vowel (many a, glory of) or th', t' before a vowel sound
    ends_vowel = key in {"the", "to"} or (
        bool(prons) and all(p.endswith("0") for p in prons) and len(options[0].classes) > 1
    )
    starts_vowel = bool(prons) and all(p[:2] in _VOWEL_STARTS for p in prons)
    starts_stressed = any(o.classes[:1] in ("S", "M") for o in options)
    return options, ends_vowel, starts_vowel, starts_stressed


def encode_entry(entry: WordEntry) -> str:
    """A word entry as a short string: three flag digits, then ``classes,cost,note`` by ``;``."""
    options, *flags = entry
    head = "".join("1" if flag else "0" for flag in flags)
    return head + ";".join(f"{o.classes},{o.cost!r},{o.note or ''}" for o in options)


def decode_entry(text: str) -> WordEntry:
    options = []
    for item in text[3:].split(";") if len(text) > 3 else ():
        classes, cost, note = item.split(",")
        options.append(WordOption(classes, float(cost), note or None))
    return tuple(options), text[0] == "1", text[1] == "1", text[2] == "1"


#: Modules whose code decides a word entry: a change to any of them rebuilds the table.
_ENTRY_SOURCES = (
    "meter_words.py",
    "phonetics.py",
    "dictionary.py",
    "morphology.py",
    "phonetic_tables.py",
    "letter_to_sound.py",
    "letter_tables.py",
    "lexicon.py",
)


@cache
def word_entry_table() -> DiskTable:
    """Encoded entries of every CMUdict word of letters and apostrophes, built once per machine
    (about 3 s) and kept on disk; the version tag holds a hash of the code that made it (a change
    to it rebuilds the table) and the lexicon's tag."""
    import hashlib
    from pathlib import Path

    from poemetric.form import lexicon

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in _ENTRY_SOURCES:
        digest.update((here / name).read_bytes())
    tag = f"word entries {digest.hexdigest()[:16]}, {lexicon.store().tag}"

    def build() -> list[tuple[str, str]]:
        # CMUdict alone: the table is every user's. `user_lexicon.use_lexicon` builds it before
        # a user lexicon is read; were one in use, the words it touches are left out (the
        # entries of the others do not depend on it), to be computed where they are wanted.
        # Words with an apostrophe (*man's*, *didn't*) are there under their normalised form.
        return [
            (word, encode_entry(_compute_word_entry(word)))
            for word, _phones in lexicon.store().items()
            if word.isascii()
            and (
                word.isalpha() or (_is_table_word(word) and phonetics.normalize_word(word) == word)
            )
            and not user_lexicon.touches(word)
        ]

    return DiskTable("word-entries", tag, build)


@lru_cache(maxsize=4096)
def line_options(line: str) -> tuple[tuple[str, ...], tuple[tuple[WordOption, ...], ...]]:
    """Tokens of a line and, per token, its options including cross-word synaloepha."""
    words = tokenize(line)
    if not words:
        return (), ()
    entries = [_word_entry(word) for word in words]
    per_word = [
        _options_before(word, following[2], following[3])
        for word, following in zip(words, entries[1:], strict=False)
    ]
    per_word.append(entries[-1][0])
    return tuple(words), tuple(per_word)


@lru_cache(maxsize=1 << 14)
def _options_before(
    word: str, next_starts_vowel: bool, next_starts_stressed: bool
) -> tuple[WordOption, ...]:
    """Options of a word that another follows (starting with a vowel sound / stressed or not)."""
    opts, ends_vowel, _starts, _stressed = _word_entry(word)
    if ends_vowel and next_starts_vowel:
        opts = opts + tuple(
            WordOption(o.classes[:-1], ELISION_COSTS["synaloepha"], "synaloepha")
            for o in opts
            if o.classes and o.classes[-1] in "UF" and o.cost == 0.0
        )
    if next_starts_stressed and any(o.classes == "M" for o in opts):
        # phrase stress: of two adjacent stressed monosyllables the first yields (old MAN)
        opts = tuple(WordOption("N", o.cost, o.note) if o.classes == "M" else o for o in opts)
    return opts
