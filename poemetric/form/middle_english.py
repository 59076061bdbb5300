"""Poems in Middle English spelling: recognise them and hear their rhymes as their poets did.

A lyric such as *I have a yong suster* (15th century) rhymes *ston* with *bon* and *rinde* with
*longing*. CMUdict knows none of these spellings, and the modern pronunciations it gives their
descendants (*stone*, *bone*, *rind* /raɪnd/) are the ones the Great Vowel Shift made: read that
way the poem hardly rhymes. This module does two things:

* `is_middle_english(tokens)` tells a poem written in Middle English spelling from a modern one:
  it uses at least two word forms that Modern English has lost (*whan*, *hadde*, *withouten*,
  *ony*, *myn*, *suster*), and a fifth or more of its words are such forms or spellings that
  CMUdict does not know (*nyght*, *resoun*, *soote*). Early Modern archaisms (*thee*, *hath*,
  *doth*, *-eth*) are not counted: Shakespeare and the King James Bible are read with modern
  pronunciations; nor are Scots forms (*doon*, *spak*), whose poems are read as before.
* `middle_english_phones(word)` reads a word by Middle English spelling rules, as a
  pronunciation in CMUdict's ARPAbet: letters keep their continental values (*i* /i/, *e* /e/,
  *o* /o/, *ou* /u/), short in closed syllables and long in open ones; final *-e* and the weak
  endings (*-es*, *-en*, *-ed*, *-er*, *-el*, *-eth*) are unstressed; and the last full syllable
  carries the rhyme, since Middle English verse rhymes on suffixes that carry a secondary
  stress (*longinge* : *singe*, *gladnesse* : *distresse*).

Background on Middle English spelling, sounds and rhyme: J. A. Burrow and T. Turville-Petre,
*A Book of Middle English* (Oxford: Blackwell); F. Mossé, *A Handbook of Middle English*
(Baltimore: Johns Hopkins, 1952).

The form checker uses the reading for rhyme only, and only in a poem that `is_middle_english`
recognises: a pair that rhymes in Middle English earns the historical rhyme's credit (a rhyme
for its poet, not for a modern reader), and a pair that is assonant there earns a near rhyme's.
Metre is still scanned with modern pronunciations (the sounded final *-e* is not modelled).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache

from poemetric.form.dictionary import cmu

#: Common word forms of Middle English that Modern English has lost (function words, frequent
#: verb forms and a few nouns), compiled for this module; none is an Early Modern archaism.
_GLOSSARY = """
    ich ik hir hise hem myn thyn oure youre thise swich swiche ech eche ilke everich
    ony eny nat noght nis nys nas nere nolde nyste hadde hadden sholde shulde
    shuld shulden schal schulde shul shullen wolde wolden wolt coude kan dide dede
    seyde seide sayde sente wente yaf yeve herde seigh saugh wiste woot goon seyn
    whan whanne thanne wher ther eek ek withouten withoute biforn bifore aboven ofte
    ayein ayeyn hider thider yif ywis iwis suster yong lemman maide wyf lyf tyme nyght
    knyght myght ryght lyght herte sonne mone erthe hond lond londe kyng quene hous toun
"""
MIDDLE_ENGLISH_WORDS = frozenset(_GLOSSARY.split())
#: The same in lower case, capitalised and upper case: tokens are matched without lowering each.
_ANY_CASE = MIDDLE_ENGLISH_WORDS.union(
    variant for word in MIDDLE_ENGLISH_WORDS for variant in (word.capitalize(), word.upper())
)

#: A Middle English poem has at least this many distinct `MIDDLE_ENGLISH_WORDS` ...
MIN_FUNCTION_WORDS = 2
#: ... and at least this share of its words are those or spellings CMUdict does not know. Modern
#: poems stay under it, and so do dialect poems (Burns, Scots ballads: up to 24% unknown
#: spellings, but at most one of the words above).
MIN_SHARE = 0.2


def is_middle_english(tokens: Iterable[str]) -> bool:
    """Whether a poem's word tokens are written in Middle English spelling (see the module
    docstring)."""
    tokens = list(tokens)
    if len({word.lower() for word in _ANY_CASE.intersection(tokens)}) < MIN_FUNCTION_WORDS:
        return False  # every Middle English poem has some; this spares modern poems the rest
    words = [token.lower() for token in tokens if token.isalpha()]
    unknown = sum(word in MIDDLE_ENGLISH_WORDS or not cmu(word) for word in words)
    return unknown >= MIN_SHARE * len(words)


# -- reading a word -------------------------------------------------------------------------------

#: Vowel spellings -> (short, long) ARPAbet vowels, continental values.
_VOWELS: dict[str, tuple[str, str]] = {
    "a": ("AA", "AA"),
    "aa": ("AA", "AA"),
    "ai": ("EY", "EY"),
    "ei": ("EY", "EY"),
    "au": ("AW", "AW"),
    "e": ("EH", "EY"),
    "ee": ("EY", "EY"),
    "ea": ("EH", "EY"),
    "ie": ("IY", "IY"),
    "i": ("IH", "IY"),
    "o": ("AO", "OW"),
    "oo": ("OW", "OW"),
    "ou": ("UW", "UW"),
    "oi": ("OY", "OY"),
    "u": ("UH", "UW"),
    "eu": ("UW", "UW"),
    "ue": ("UW", "UW"),
    "ui": ("UW", "UW"),
}
#: Consonant spellings -> ARPAbet, longest first when matching.
_CONSONANTS: dict[str, str] = {
    "sch": "SH",
    "sh": "SH",
    "ch": "CH",
    "th": "TH",
    "gh": "HH",
    "ng": "NG",
    "ph": "F",
    "wh": "W",
    "qu": "K W",
    "ck": "K",
    "dg": "JH",
    "b": "B",
    "c": "K",
    "d": "D",
    "f": "F",
    "g": "G",
    "h": "HH",
    "j": "JH",
    "k": "K",
    "l": "L",
    "m": "M",
    "n": "N",
    "p": "P",
    "q": "K",
    "r": "R",
    "s": "S",
    "t": "T",
    "v": "V",
    "w": "W",
    "x": "K S",
    "y": "Y",
    "z": "Z",
}


@cache
def _grapheme() -> re.Pattern[str]:
    """Spellings of one sound, longest first (compiled on first use: few poems need it)."""
    return re.compile("|".join(sorted((*_VOWELS, *_CONSONANTS), key=len, reverse=True)) + "|.")


#: Endings whose vowel is a weak schwa (plural, infinitive, participle, comparative, -el, -eth).
_WEAK_ENDING = re.compile(r"e(?:s|n|d|r|l|th)$")


def _spelled(word: str) -> str:
    """The word with *y* as a vowel written *i*, *w* after a vowel written *u*, and doubled
    consonants single."""
    text = re.sub(r"(?<=[^aeiouy])y|y(?=[^aeiou]|$)", "i", word)
    text = re.sub(r"(?<=[aeiou])w", "u", text)
    text = re.sub(r"([b-df-hj-np-tv-z])\1", r"\1", text)
    return text.replace("ye", "ie") if text.endswith("ye") else text


@lru_cache(maxsize=1 << 14)
def middle_english_phones(word: str) -> str:
    """A pronunciation (ARPAbet, stress digits on vowels) of a word by Middle English spelling
    rules; "" when the word has no vowel. See the module docstring."""
    text = _spelled(re.sub(r"[^a-z]", "", word.lower()))
    vowel_count = len(re.findall(r"[aeiou]+", text))
    weak_tail = ""
    if vowel_count > 1 and text.endswith("e") and not text.endswith(("ee", "ie")):
        text = text[:-1]  # final -e: unstressed, and silent before a vowel or at a pause
    elif vowel_count > 1 and (ending := _WEAK_ENDING.search(text)):
        weak_tail = ending.group()[1:]
        text = text[: ending.start()]
    graphemes = _grapheme().findall(text)
    vowel_indices = [i for i, g in enumerate(graphemes) if g in _VOWELS]
    if not vowel_indices:
        return ""
    stressed = vowel_indices[-1]
    phones: list[str] = []
    for index, grapheme in enumerate(graphemes):
        if grapheme in _VOWELS:
            short, long = _VOWELS[grapheme]
            following = graphemes[index + 1 : index + 3]
            is_open = not following or (
                len(following) == 2 and following[0] in _CONSONANTS and following[1] in _VOWELS
            )
            stress = "1" if index == stressed else "0"
            phones.append((long if is_open or len(grapheme) > 1 else short) + stress)
        elif grapheme in _CONSONANTS:
            sound = _CONSONANTS[grapheme]
            if grapheme == "c" and graphemes[index + 1 : index + 2] in (["e"], ["i"]):
                sound = "S"
            phones.append(sound)
    if weak_tail:
        phones.append("AH0")
        phones.extend(_CONSONANTS[c] for c in re.findall("th|.", weak_tail))
    return " ".join(phones)
