"""Hints for a dataset file whose columns are named otherwise than the schema's: spelled
otherwise (`Form`, `Meter Pattern`) or called by another usual name (`poet` for `author`,
`poem` for `content`), so that `dataset validate` says what to rename."""

from __future__ import annotations

import re
from collections.abc import Iterable

from poemetric.data.schema import KNOWN_COLUMNS

#: Poem-text columns that `form check` reads but this schema calls `content`.
TEXT_COLUMNS = ("text", "poem")
#: Other usual names of the required columns, as `key` writes them (`Poem Name` is
#: `poem_name`); `content`'s `TEXT_COLUMNS` have a hint of their own (`content_hint`). A bare
#: `name` is left out: it is the poet's as often as the poem's.
OTHER_NAMES: dict[str, tuple[str, ...]] = {
    "content": ("poem_text", "poem_content", "full_text", "body"),
    "form": ("poem_form", "poetic_form"),
    "title": ("poem_title", "poem_name"),
    "author": ("poet", "poet_name", "author_name", "writer"),
    "meter_pattern": ("meter", "metre", "metre_pattern"),
    "rhyme_pattern": ("rhyme", "rhyme_scheme", "scheme", "rhymes"),
    "theme": ("topic", "subject"),
}


def key(name: str) -> str:
    """`name` in lower case with spaces, `-` and `_` runs as one `_` (`Meter Pattern`)."""
    return re.sub(r"[\s_-]+", "_", name.strip().lower())


def spelled_otherwise(missing: Iterable[str], columns: list[str]) -> dict[str, str]:
    """Each missing column → the file's column that differs from it only in case, spaces or
    `-`/`_` ('Form', 'Meter Pattern'), else one of its `OTHER_NAMES` ('poet', 'Poem Name'); a
    header of capitalised names was "missing column headers" of every required column, all of
    which it has."""
    found: dict[str, str] = {}
    for column in columns:
        if column not in KNOWN_COLUMNS:
            found.setdefault(key(column), column)
    renames: dict[str, str] = {}
    for column in missing:
        for name in (key(column), *OTHER_NAMES.get(column, ())):
            if name in found and found[name] not in renames.values():
                renames[column] = found[name]
                break
    return renames


def rename_hint(renames: dict[str, str]) -> str:
    """`; column names are exact ...: rename 'Form' to 'form'` and `; the dataset schema names
    these columns differently: rename 'poet' to 'author'`, or "" when none."""
    spelled = {wanted: found for wanted, found in renames.items() if key(found) == wanted}
    called = {wanted: found for wanted, found in renames.items() if wanted not in spelled}
    hint = ""
    if spelled:
        hint += f"; column names are exact (lower case, as in the schema): rename {_pairs(spelled)}"
    if called:
        which = "these columns" if len(called) > 1 else "this column"
        hint += f"; the dataset schema names {which} differently: rename {_pairs(called)}"
    return hint


def content_hint(columns: list[str]) -> str:
    """Why a file with a `text` (or `poem`) column has no poem text here, or ""."""
    found = next((column for column in TEXT_COLUMNS if column in columns), None)
    if found is None:
        return ""
    return (
        f"; the dataset schema calls the poem column 'content' ({found!r} is the column "
        f"`form check` reads): rename {found!r} to 'content'"
    )


def _pairs(renames: dict[str, str]) -> str:
    return ", ".join(f"{found!r} to {wanted!r}" for wanted, found in renames.items())
