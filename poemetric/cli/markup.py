"""Data printed through Rich, kept as it is.

Rich reads `[word]` in a printed string, a table cell or title as a style tag and drops it (and
stops at a `[/word]` that closes nothing): a run folder `runs/[exp1]` was printed `runs//`, a
poem line `[chorus]` as an empty cell. Values that come from the user or the data (paths, names,
poem lines, error messages) go through `plain` where they meet our own markup; a line with no
markup of ours is printed with `markup=False` instead.

Rich also replaces emoji codes (`:100:`, `:smile:`) in everything a console prints, markup
or not: `poems.csv:100: form: ...` was printed `poems.csv💯 form: ...`. Every console is
therefore made with `emoji=False` (tests/test_cli_markup.py checks it).
"""

from __future__ import annotations

from rich.markup import escape


def plain(value: object) -> str:
    """`value` as markup that prints exactly `str(value)`."""
    return escape(str(value))


def plain_cells(*values: object) -> list[str]:
    """Table cells (`Table.add_row(*plain_cells(...))`) printed as they are."""
    return [plain(value) for value in values]
