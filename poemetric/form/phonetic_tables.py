"""Word lists and spelling rules used by :mod:`poemetric.form.phonetics` (data only)."""

from __future__ import annotations

import re

# Poetic contractions and archaic forms whose pronunciation CMUdict lacks or gets wrong.
CONTRACTIONS: dict[str, tuple[str, ...]] = {
    "o'er": ("OW1 R", "AO1 R"),
    "e'er": ("EH1 R",),
    "ne'er": ("N EH1 R",),
    "where'er": ("W EH2 R EH1 R",),
    "whene'er": ("W EH2 N EH1 R",),
    "whate'er": ("W AH2 T EH1 R",),
    "howe'er": ("HH AW2 EH1 R",),
    "e'en": ("IY1 N",),
    "e'enin": ("IY1 V N IH0 N",),
    "'tis": ("T IH1 Z",),
    "tis": ("T IH1 Z",),
    "'twas": ("T W AH1 Z",),
    "'twere": ("T W ER1",),
    "'twill": ("T W IH1 L",),
    "'twould": ("T W UH1 D",),
    "'gainst": ("G EH1 N S T",),
    "'neath": ("N IY1 TH",),
    "'tween": ("T W IY1 N",),
    "'twixt": ("T W IH1 K S T",),
    "'mid": ("M IH1 D",),
    "'midst": ("M IH1 D S T",),
    "th'": ("DH",),
    "th": ("DH",),
    "thro'": ("TH R UW1",),
    "thro": ("TH R UW1",),
    "tho'": ("DH OW1",),
    "tho": ("DH OW1",),
    "i'": ("IH0",),
    "o'": ("AH0",),
    "ope": ("OW1 P",),
    "oft": ("AO1 F T",),
    "ere": ("EH1 R",),
    "eke": ("IY1 K",),
    "wot": ("W AA1 T",),
    "twas": ("T W AH1 Z",),
}

#: Words CMUdict lacks whose spelling no rule reads right, with their dictionary readings (the
#: commonest first, as in CMUdict). Keep this short: a word belongs here only when the general
#: rules cannot give it (say why beside it), not when a rule is merely missing.
UNLISTED_WORDS: dict[str, tuple[str, ...]] = {
    # Latin contumelia with -y for -ia (like family, memory): letter-to-sound reads -ly as the
    # adverb suffix (con-TUME-ly, three syllables). Merriam-Webster: kən-ˈtü-mə-lē,
    # ˈkän-tə-ˌmē-lē, ˈkän-tüm-lē; Hood's "Spurr'd by contumely" scans con-TU-me-ly.
    "contumely": (
        "K AH0 N T UW1 M AH0 L IY0",
        "K AA1 N T AH0 M IY2 L IY0",
        "K AA1 N T UW0 M L IY0",
    ),
    # Plain words with an f that CMUdict lacks and that read as long-s spellings of other words
    # (weſt, diſſident, ruſſian, ſettle, ſere, diſſidence): which one a word is takes the rest of
    # the poem, and in the mostly modern poems checked here the plain word is the one meant.
    # Merriam-Webster: weft ˈweft, diffident ˈdi-fə-dənt, ruffian ˈrə-fē-ən ˈrəf-yən, fettle
    # ˈfe-tᵊl, fere ˈfir (a companion, a spouse).
    "weft": ("W EH1 F T",),
    "diffident": ("D IH1 F AH0 D AH0 N T",),
    "diffidence": ("D IH1 F AH0 D AH0 N S",),
    "ruffian": ("R AH1 F IY0 AH0 N", "R AH1 F Y AH0 N"),
    "fettle": ("F EH1 T AH0 L",),
    "fere": ("F IH1 R",),
}

FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "my",
        "thy",
        "his",
        "her",
        "its",
        "our",
        "your",
        "their",
        "thine",
        "mine",
        "i",
        "me",
        "we",
        "us",
        "you",
        "ye",
        "thou",
        "thee",
        "he",
        "him",
        "she",
        "it",
        "they",
        "them",
        "who",
        "whom",
        "whose",
        "which",
        "what",
        "and",
        "or",
        "nor",
        "but",
        "if",
        "as",
        "than",
        "so",
        "yet",
        "for",
        "though",
        "tho",
        "although",
        "because",
        "while",
        "when",
        "where",
        "whence",
        "whither",
        "then",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "into",
        "onto",
        "upon",
        "unto",
        "o'er",
        "over",
        "under",
        "through",
        "thro",
        "thro'",
        "till",
        "until",
        "up",
        "down",
        "out",
        "off",
        "about",
        "above",
        "below",
        "beneath",
        "near",
        "after",
        "before",
        "against",
        "among",
        "amid",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "art",
        "wast",
        "wert",
        "hath",
        "has",
        "have",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doth",
        "dost",
        "didst",
        "shall",
        "shalt",
        "will",
        "wilt",
        "would",
        "should",
        "could",
        "can",
        "canst",
        "may",
        "mayst",
        "might",
        "must",
        "not",
        "no",
        "'tis",
        "'twas",
        "th'",
        "th",
        "o",
        "oh",
        "ah",
        "all",
        "such",
        "own",
    ]
)

SUFFIXES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # (suffix, stem endings to try in place of it, phones to add: '@S' plural/-s rule,
    #  '@D' past -ed rule, '@ILY' / '@LY' adverbs of -y and -le stems (happily, gently), else
    #  literal phones)
    ("'s", ("",), "@S"),
    ("s'", ("s",), ""),
    ("ies", ("y", "ie"), "@S"),
    ("es", ("", "e"), "@S"),
    ("s", ("",), "@S"),
    ("ied", ("y",), "@D"),
    ("ed", ("", "e", "@double"), "@D"),
    ("'d", ("", "e", "@double"), "@D"),
    ("d", ("", "e"), "@D"),
    ("ing", ("", "e", "@double"), "IH0 NG"),
    ("in'", ("", "e", "@double"), "IH0 N"),
    ("eth", ("", "e", "@double"), "IH0 TH"),
    ("'th", ("", "e"), "TH"),
    ("est", ("", "e", "@double"), "IH0 S T"),
    ("'st", ("", "e"), "S T"),
    ("st", ("e",), "S T"),
    ("iest", ("y",), "IH0 S T"),  # the stem keeps its -y vowel: happiest
    ("ier", ("y",), "ER0"),
    ("iness", ("y",), "N AH0 S"),
    ("ily", ("y",), "@ILY"),
    ("ly", ("",), "L IY0"),
    ("ly", ("le",), "@LY"),  # a syllabic -le joins the -ly: gently, invisibly
    ("ness", ("",), "N AH0 S"),
    ("less", ("",), "L AH0 S"),
    ("ful", ("",), "F AH0 L"),
    ("ment", ("",), "M AH0 N T"),
    ("er", ("", "e", "@double"), "ER0"),
    ("y", ("", "e", "@double"), "IY0"),
)

PREFIXES: tuple[tuple[str, str], ...] = (
    ("un", "AH0 N"),
    ("re", "R IY0"),
    ("dis", "D IH0 S"),
    ("mis", "M IH0 S"),
    ("in", "IH0 N"),
    ("im", "IH0 M"),
    ("be", "B IH0"),
    ("en", "EH0 N"),
    ("em", "EH0 M"),
    ("over", "OW1 V ER0"),
    ("under", "AH1 N D ER0"),
    ("out", "AW1 T"),
    ("fore", "F AO1 R"),
    ("up", "AH1 P"),
    ("self", "S EH1 L F"),
)

#: A word of one vowel letter closed by one consonant letter (*cud*, *chid*, *ded*): its vowel
#: is short, and neither `MAGIC_E_RULE` nor a *-d* ending (*cue-d*, *chi-d*) makes it long.
CLOSED_SYLLABLE_WORD = re.compile(r"[^aeiou]*[aeiou][^aeiou]")

#: ``burdensom`` -> ``burdensome``, ``beguil`` -> ``beguile``: an older spelling without the
#: final *e* that lengthens the vowel before it. Not in a word of one vowel letter closed by one
#: consonant letter (*cud*, *grot*, *tun*, *chid*, *whin*): there the missing *e* is Modern
#: English spelling for a short vowel, and *cude*, *grote*, *tune* are other words; a Middle
#: English *ston* or *lif* is read by :mod:`poemetric.form.middle_english` in its own poem. In
#: a pair of rules it may not lengthen a vowel that the other rule wrote (see
#: :func:`poemetric.form.phonetics._spelling_variants`).
MAGIC_E_RULE: tuple[re.Pattern[str], str] = (
    re.compile(rf"^(?!{CLOSED_SYLLABLE_WORD.pattern}$)(.*[aeiou][^aeiou])$"),
    r"\1e",
)

#: Long s (*ſ*) of an old print, transcribed as *f* (*praife*, *faid*, *moft*): every *f* read
#: as *s*, except where a print never set a long s: at the end of a word, or before a final *f*
#: (a long s was not set at the end nor before an *f*: *ftaff* is *staff*). Tried apart from
#: `SPELLING_RULES`, only for a word that may be such a transcription
#: (:func:`poemetric.form.phonetics._may_have_long_s`).
LONG_S_RULE: tuple[re.Pattern[str], str] = (re.compile(r"f(?!f?$)"), "s")

#: A round *s* where a print with long s would have set a long one: anywhere but at the end of a
#: word, next to an *f* (*satisfy*, *offset*) or before *b* or *k* (*husband*). A word with one
#: (*sifter*, *resift*) is not spelled with long s, and its *f* is an *f*.
ROUND_S_INSIDE = re.compile(r"(?<!f)s(?![fbk]|$)")

SPELLING_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"ie$", "y"),  # majestie
        (r"ye$", "y"),
        (r"y$", "ie"),
        (r"ck$", "c"),  # publick
        (r"([^aeiou])\1$", r"\1"),  # untill
        # olde, harte, sunne: an e that older spelling added; not the magic e of a one-vowel word
        # (smite, clime, kine are not smit, clim, kin) nor the e that softens a c (dunce)
        (r"^(?![^aeiouy]*[aeiouy][^aeiouy]e$)(.*[bdfgklmnprstvz])e$", r"\1"),
        (r"^v([^aeiou])", r"u\1"),  # vnto
        (r"([aeiou])u([aeiour])", r"\1v\2"),  # haue, reuiue
        (r"^i([aeiou])", r"j\1"),  # ioy
        (r"y", "i"),  # wyse
        (r"i", "y"),
        (r"our$", "or"),
        (r"([^aeiou])re$", r"\1er"),  # British -re: sombre, spectre
        (r"yng$", "ing"),
        (MAGIC_E_RULE[0].pattern, MAGIC_E_RULE[1]),  # ston -> stone
        (r"z", "s"),  # surprize
        (r"ence$", "ense"),  # offence
    )
)
