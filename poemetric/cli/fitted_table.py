"""A table of name columns (a judge, an author, a file) and number columns fitted to the
terminal's width: `ghostwriting score` and `ghostwriting metrics` print theirs so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from poemetric.cli.markup import plain_cells

if TYPE_CHECKING:
    from rich.console import JustifyMethod

NAME_HEADERS = {"judge", "author", "file"}
#: Columns a name column needs before the lines between columns give way to spaces: a file
#: `drafts/a.txt` or a model `gemini-2.5-pro` on one line.
NAME_ROOM = 14
#: Where a long header word may break, with a hyphen, when a table is too narrow for it whole.
HYPHENATED = {
    "syllables": ("syl-", "lables"),
    "unweighted": ("un-", "weighted"),
    "uniqueness": ("unique-", "ness"),
    "Raplyzer": ("Rap-", "lyzer"),
}


def fitted_table(title: str | None, headers: list[str], rows: list[list[str]], width: int) -> Table:
    """A table of name columns (judge, author, file: left, folded) and number columns (right)
    that never cuts a header with '…': at 80 columns rich cut `unweighted` and `near-copies` to
    `unweight…` and `near-copi…` to give the name column room it then folded anyway. When the
    table is wider than `width`, each number column is as wide as its header's longest word or
    its widest cell (`rhyme density` wraps, `unweighted` stays whole) and the names take the
    rest. Where the lines between columns leave the names too little room (`score --reference`:
    eight columns, the file names folded 7 characters a line and every header word cut in two),
    the cells lose their padding (the lines stay); where even that is too wide (`score
    --reference` with its TTR: nine columns), the long header words break where a hyphen may
    (`syl-`/`lables`, `HYPHENATED`); narrower still, every header folds."""
    names = [i for i, header in enumerate(headers) if header in NAME_HEADERS]
    numbers = [i for i in range(len(headers)) if i not in names]

    def widest(i: int, header: list[str]) -> int:
        return max([*map(len, header), *(len(row[i]) for row in rows)])

    def hyphenated(header: str) -> list[str]:
        return [part for word in header.split() for part in HYPHENATED.get(word, (word,))]

    framed = 3 * len(headers) + 1  # "│ " before each cell, " │" after the last
    light = len(headers) + 1  # the lines alone, no space beside them
    frame, fixed, shown = framed, {}, list(headers)
    if sum(widest(i, [headers[i]]) for i in range(len(headers))) + framed > width:
        least = {i: widest(i, headers[i].split()) for i in numbers}
        room = width - sum(least.values())  # for the frame and the names
        name_room = min(NAME_ROOM, *(widest(i, [headers[i]]) for i in names)) if names else 0
        broken = {i: widest(i, hyphenated(headers[i])) for i in numbers}
        if room - framed >= len(names) * name_room:
            fixed = least
        elif room - light >= len(names) * name_room:
            frame, fixed = light, least
        elif width - sum(broken.values()) - light >= len(names) * name_room:
            frame, fixed = light, broken
            shown = [
                header if i in names else "\n".join(hyphenated(header))
                for i, header in enumerate(headers)
            ]
    table = Table(title=title, header_style="bold", padding=(0, 0) if frame == light else (0, 1))
    for i, header in enumerate(shown):
        justify: JustifyMethod = "left" if i in names else "right"
        table.add_column(header, justify=justify, overflow="fold", width=fixed.get(i))
    for row in rows:
        table.add_row(*plain_cells(*row))
    return table
