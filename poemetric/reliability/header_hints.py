"""What to rename in a ratings file whose header a spreadsheet wrote: `Rater, Poem, Item, Score`
(capitalised), `Expert Name` or `Rating`. Column names are exact, so such a file was "missing
columns" it visibly has; `agree`, `survey import` and `analyze --experts` now say which of its
columns to rename to what."""

from __future__ import annotations

from collections.abc import Iterable

from poemetric.data.column_names import key

#: Per column a ratings file may need: the spellings looked for (as `key` writes them) and the
#: name each is to be renamed to. A spelling that is itself a column name (`poem`) is renamed to
#: itself, spelled exactly; another usual name (`rating`) to the column it stands for.
RATINGS_SPELLINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "unit": (("unit", "unit"), ("poem", "poem"), ("poem_id", "poem"), ("unit_id", "unit")),
    "rater": (
        ("rater", "rater"),
        ("expert", "rater"),
        ("rater_id", "rater"),
        ("rater_name", "rater"),
        ("expert_name", "rater"),
        ("expert_id", "rater"),
        ("annotator", "rater"),
        ("coder", "rater"),
    ),
    "item": (("item", "item"), ("question", "item"), ("dimension", "item"), ("criterion", "item")),
    "score": (("score", "score"), ("rating", "score"), ("value", "score"), ("answer", "score")),
}

#: The same for `survey import` and `analyze --experts`, whose rater may be `expert` and whose
#: poem may be a generation id.
EXPERT_SPELLINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "poem": (
        ("poem", "poem"),
        ("generation_id", "generation_id"),
        ("poem_id", "poem"),
        ("generation", "generation_id"),
    ),
    "rater": (
        ("rater", "rater"),
        ("expert", "expert"),
        ("rater_name", "rater"),
        ("expert_name", "expert"),
        ("rater_id", "rater"),
        ("expert_id", "expert"),
        ("annotator", "rater"),
        ("coder", "rater"),
    ),
    "item": RATINGS_SPELLINGS["item"],
    "score": RATINGS_SPELLINGS["score"],
}


def header_renames(
    columns: Iterable[str], spellings: dict[str, tuple[tuple[str, str], ...]]
) -> dict[str, str]:
    """The file's column → the name to give it, for each column of `spellings` the header lacks
    under any of its exact names but has spelled otherwise or under another usual name."""
    present = list(columns)
    exact = set(present)
    by_key: dict[str, str] = {}
    for column in present:
        by_key.setdefault(key(column), column)
    renames: dict[str, str] = {}
    for candidates in spellings.values():
        if any(target in exact for _, target in candidates):
            continue
        for spelling, target in candidates:
            found = by_key.get(spelling)
            if found is not None and found not in renames and found != target:
                renames[found] = target
                break
    return renames


def rename_hint(renames: dict[str, str], doc: str) -> str:
    """`; rename 'Rater' to 'rater', 'Rating' to 'score' (column names are exact, lower case:
    DOC)` or "" when there is nothing to rename."""
    if not renames:
        return ""
    pairs = ", ".join(f"{found!r} to {wanted!r}" for found, wanted in renames.items())
    return f"; rename {pairs} in the header line (column names are exact, lower case: {doc})"
