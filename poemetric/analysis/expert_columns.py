"""The item and comment columns of a wide expert-ratings file under the other names POEMetric
gives them: a table's or figure's label (`Emotion`, `Devices`, `Quality`), or the key spelled
otherwise (`Emotional Resonance`, `Comment_overall_quality`), and a long file's `Comment`.
Column names are exact and other columns are ignored, so such a column was left out without a
word: its ratings (or comments) were never imported and the agreement was computed without
them."""

from __future__ import annotations

from collections.abc import Sequence

from poemetric.data.column_names import key
from poemetric.questionnaire import COMMENTS, DIMENSIONS
from poemetric.reliability.header_hints import header_renames, rename_hint
from poemetric.text.plural import plural

#: Per item or comment column: the spellings looked for (as `key` writes them), each renamed to
#: the column's exact name.
ITEM_SPELLINGS: dict[str, tuple[tuple[str, str], ...]] = {
    **{
        d.key: tuple((spelling, d.key) for spelling in dict.fromkeys(map(key, (d.key, d.short_label, d.label))))
        for d in DIMENSIONS
    },
    **{c.key: ((key(c.key), c.key),) for c in COMMENTS},
}  # fmt: skip


#: A long file's one comment column (`Comment`, `Comments`).
COMMENT_SPELLINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "comment": (("comment", "comment"), ("comments", "comment"))
}


def item_renames(columns: Sequence[str], long_format: bool) -> dict[str, str]:
    """The file's column -> the item or comment column it names (a long file's: its comment
    column), for each such column whose exact name the header lacks."""
    return header_renames(columns, COMMENT_SPELLINGS if long_format else ITEM_SPELLINGS)


def misnamed_items_message(path: object, renames: dict[str, str]) -> str:
    """Why a wide file with item or comment columns under other names is refused."""
    count = len(renames)
    return (
        f"{path}: {count} {plural(count, 'column names', 'columns name')} an item or comment "
        f"spelled otherwise and would be left out: "
        + rename_hint(renames, "docs/survey.md").removeprefix("; ")
    )
