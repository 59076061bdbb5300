"""The typographic apostrophes read as an ASCII apostrophe wherever words are compared.

The right and left single quotation marks (’ ‘) and the modifier letter apostrophe (ʼ): the
forms a model or an editor types for the ' of *summer’s*, *o’er* or *’tis*. Each reader of text
adds the characters only it folds (`apostrophe_table`); this table is what all of them share.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Each typographic apostrophe and the ASCII character it is read as.
APOSTROPHES: Mapping[str, str] = MappingProxyType({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def apostrophe_table(extra: Mapping[str, str] | None = None) -> dict[int, str]:
    """A `str.translate` table: the shared `APOSTROPHES` and then `extra` (which may add
    characters or read one differently)."""
    return str.maketrans({**APOSTROPHES, **(extra or {})})
