"""Poem ids derived from a record (`derive_poem_id`): `{form}-{author}-{title}` as an ASCII slug
and a hash of the normalised text, the same on every machine. `poemetric.data.schema` gives
them to records without an id of their own."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import TYPE_CHECKING

from poemetric.data.normalize import normalize_content

if TYPE_CHECKING:
    from poemetric.data.schema import PoemForm

_TRANSLITERATIONS = str.maketrans({"æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss"})

ID_SLUG_LENGTH = 60
ID_HASH_LENGTH = 8


def slugify(text: str) -> str:
    """ASCII, lower-case, words joined by '-': `'Thermopylæ'` → `'thermopylae'`."""
    ascii_text = (
        unicodedata.normalize("NFKD", text.translate(_TRANSLITERATIONS))
        .encode("ascii", "ignore")
        .decode("ascii")
    )
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def content_hash(content: str, length: int = ID_HASH_LENGTH) -> str:
    return hashlib.sha256(normalize_content(content).encode("utf-8")).hexdigest()[:length]


def derive_poem_id(form: PoemForm | str, author: str, title: str, content: str) -> str:
    """`{form}-{author}-{title}` slug (truncated) plus a hash of the normalised content.

    Deterministic across runs and machines. Two poems with the same form, author and title but
    different text get different ids (the hash differs); identical records get the same id, which
    the loader reports as a duplicate.
    """
    form_value = str(form)  # a PoemForm (a StrEnum) is its value
    slug = "-".join(part for part in (slugify(author) or "anonymous", slugify(title)) if part)
    if len(slug) > ID_SLUG_LENGTH:  # cut at a word boundary when there is one
        cut = slug[: ID_SLUG_LENGTH + 1]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else slug[:ID_SLUG_LENGTH]
    return f"{form_value}-{slug}-{content_hash(content)}"
