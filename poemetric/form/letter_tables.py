"""Spelling tables of the letter-to-sound rules (:mod:`poemetric.form.letter_to_sound`).

Vowel and consonant spellings with their ARPAbet phones, the prefixes and suffixes that place
stress, and the French endings that keep theirs.
"""

from __future__ import annotations

# Vowel spellings, longest first: letters -> alternative vowel phones (without stress digit,
# optionally followed by a consonant such as R). The first alternative is the most likely.
VOWEL_SPELLINGS: dict[str, tuple[str, ...]] = {
    "ough": ("AO", "OW", "UW", "AW", "AH F"),
    "augh": ("AO",),
    "eigh": ("EY",),
    "igh": ("AY",),
    "eau": ("OW",),
    "ayer": ("EY ER",),
    "aire": ("EH R",),
    "eare": ("IH R",),
    "oore": ("AO R",),
    "ower": ("AW ER", "OW ER"),
    "ire": ("AY R",),
    "ure": ("UH R",),
    "ore": ("AO R",),
    "are": ("EH R",),
    "ere": ("IH R", "EH R"),
    "air": ("EH R",),
    "ear": ("IH R", "EH R", "ER"),
    "eer": ("IH R",),
    "oar": ("AO R",),
    "our": ("AW R", "AO R", "UH R"),
    "oor": ("AO R", "UH R"),
    "ae": ("IY", "EY"),  # Latin -ae: Thermopylae, antennae
    "ai": ("EY",),
    "ay": ("EY",),
    "ee": ("IY",),
    "ea": ("IY", "EH"),
    "ei": ("EY", "IY"),
    "ey": ("EY", "IY"),
    "ie": ("IY", "AY"),
    "oa": ("OW",),
    "oe": ("OW",),
    "oo": ("UW", "UH"),
    "ou": ("AW", "UW"),
    "ow": ("AW", "OW"),
    "oi": ("OY",),
    "oy": ("OY",),
    "au": ("AO",),
    "aw": ("AO",),
    "ew": ("UW",),
    "eu": ("UW",),
    "ue": ("UW",),
    "ui": ("UW",),
    "ah": ("AA",),  # a final or pre-consonantal h is silent: Shuh-shuh-gah
    "eh": ("EY",),
    "oh": ("OW",),
    "uh": ("AH",),
    "ar": ("AA R",),
    "or": ("AO R",),
    "er": ("ER",),
    "ir": ("ER",),
    "ur": ("ER",),
    "yr": ("ER",),
}
SHORT = {"a": "AE", "e": "EH", "i": "IH", "o": "AA", "u": "AH", "y": "IH"}
LONG = {"a": "EY", "e": "IY", "i": "AY", "o": "OW", "u": "UW", "y": "AY"}

CONSONANT_SPELLINGS: dict[str, str] = {
    "tch": "CH",
    "sch": "S K",
    "dge": "JH",
    "ch": "CH",
    "sh": "SH",
    "th": "TH",
    "ph": "F",
    "ck": "K",
    "ng": "NG",
    "qu": "K W",
    "wh": "W",
    "wr": "R",
    "gh": "",
    "x": "K S",
    "j": "JH",
    "z": "Z",
    "v": "V",
    "w": "W",
    "q": "K",
    "b": "B",
    "d": "D",
    "f": "F",
    "h": "HH",
    "k": "K",
    "l": "L",
    "m": "M",
    "n": "N",
    "p": "P",
    "r": "R",
    "s": "S",
    "t": "T",
}
UNSTRESSED_PREFIXES = ("be", "de", "re", "con", "com", "dis", "ex", "mis", "pre", "pro", "un", "a")
FINAL_STRESS_SUFFIXES = ("ee", "eer", "oon", "ique", "ette", "esque", "ade")
PENULT_STRESS_SUFFIXES = (
    "tion",
    "sion",
    "ic",
    "cious",
    "tious",
    "xious",
    "ceous",
    "geous",
    "gious",
)
#: Suffixes whose ``i`` is a syllable of its own (``-i-an``): stress on the syllable before it.
ANTEPENULT_STRESS_SUFFIXES = ("ical", "ial", "ian", "ious", "eous", "ia", "ium", "ius")


FRENCH_ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("iere", ("IY0 EH1 R", "IH1 R")),  # montgolfière, portière
    ("ingue", ("AE1 NG",)),  # a final nasal vowel before silent -gue
    ("angue", ("AE1 NG",)),
    ("oire", ("W AA1 R",)),
    ("euse", ("UW1 Z", "ER1 Z")),
    ("eur", ("ER1",)),
    ("esque", ("EH1 S K",)),
    ("ette", ("EH1 T",)),
    ("ique", ("IY1 K",)),
    ("eau", ("OW1",)),
    ("aine", ("EY1 N", "EH1 N")),
    ("elle", ("EH1 L",)),
    ("ille", ("IH1 L", "IY1 L")),  # quadrille, espadrille, bastille
    ("ade", ("EY1 D", "AA1 D")),
    ("ere", ("IH1 R", "EH1 R")),  # sincere, austere: the -ere syllable is stressed
)
