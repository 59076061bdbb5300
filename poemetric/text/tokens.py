"""Word tokens of a text, as every lexical and ghostwriting measure counts them (docs/analysis.md):
Unicode words, lower-cased after NFC normalisation ("wingèd" is one token); inner apostrophes and
hyphens kept ("o'er", "sun-lit"); curly apostrophes normalised; a leading apostrophe kept only for
the elided forms in `ELISIONS` ("'tis", "'twas"), otherwise it is an opening quote and dropped;
digits and punctuation dropped."""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from poemetric.text.apostrophes import apostrophe_table

#: Words written with a leading apostrophe for an elided first syllable. Any other leading
#: apostrophe is an opening single quote and is not part of the word.
ELISIONS: frozenset[str] = frozenset(
    [
        "'tis",
        "'twas",
        "'twere",
        "'twill",
        "'twould",
        "'twixt",
        "'tween",
        "'gainst",
        "'neath",
        "'mid",
        "'midst",
        "'til",
        "'em",
        "'round",
        "'scape",
        "'prentice",
        "'cause",
        "'bout",
    ]
)

_LETTER = r"(?:[^\W\d_][\u0300-\u036f]*)"  # a letter and any combining marks left after NFC
_TOKEN = re.compile(rf"'?{_LETTER}+(?:['\-]{_LETTER}+)*")
#: The shared apostrophes, the prime (′, typed for one in some sources) and the Unicode hyphen
#: and non-breaking hyphen as ASCII ones.
_APOSTROPHES = apostrophe_table({"\u2032": "'", "\u2010": "-", "\u2011": "-"})


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens of a text (see module docstring)."""
    return list(_tokens(text))


def type_token_ratio(tokens: Sequence[str]) -> float:
    """Distinct tokens / tokens of one poem (the paper's TTR; NaN without a token): what
    `analyze` reports per poem and author, and `ghostwriting score` per file."""
    return len(set(tokens)) / len(tokens) if tokens else math.nan


def normalize_text(text: str) -> str:
    """`text` in NFC, lower-cased, with typographic apostrophes and hyphens as ASCII ones (what
    every measure compares, so that *summer’s* and *summer's* are one word)."""
    return unicodedata.normalize("NFC", text).translate(_APOSTROPHES).lower()


@lru_cache(maxsize=20_000)
def _tokens(text: str) -> tuple[str, ...]:
    # Cached: one analysis tokenizes each poem for several measures (6,293 poems in the paper).
    # Each word is interned: the cached poems share one object per distinct word. Uninterned,
    # a cached token was a string of its own (about 55 bytes against an 8-byte reference), and
    # the full cache of `analyze` at 14,833 poems held 70 MB more.
    tokens = _TOKEN.findall(normalize_text(text))
    return tuple(sys.intern(t if not t.startswith("'") or t in ELISIONS else t[1:]) for t in tokens)
