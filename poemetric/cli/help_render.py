"""`--help` folds a word too long for its column onto the next line instead of cutting it.

Typer renders each option's help in a narrow table column (about 22 characters at 80 columns,
the width of any output that is not a terminal), and Rich's tables cut a word longer than the
column with "…": `generate --help` read `'gpt-4o,qwen2.5-7b-…`, `prompts/generation.…` and
`$SLURM_ARRAY_TASK_I…`, the very names a reader copies. Typer offers no setting for this, and
the cells are Rich `Columns` whose own grid cuts too, so each help text typer puts in a
table cell is wrapped in `Folded`, which renders it with overflow "fold" whatever the cell says.

`install` swaps typer's `Columns` and `Table` for folding ones. It runs when help is first
formatted, not at import: `typer.rich_utils` pulls in Rich's Markdown, which a command that
prints no help does not need (`poemetric.cli.app` wraps typer's two `format_help` methods).
tests/test_cli_help.py walks every command's --help at 80 columns.

At that width typer's options table also starves the help: six columns (required mark, long
name, short flag, --no- name, its short flag, metavar) are laid out for every panel, mostly
empty, and the help column is what Rich shrinks, to about 20 characters: `generate --help` was
137 lines of two- and three-word ribbons. `FoldingTable` renders a table that it is not told the
columns of (typer's options tables; its commands tables declare theirs) with every cell but the
last stacked into one label column whenever typer's layout would leave the help fewer than
`MIN_HELP` columns (`generate --help`: under 110): the option's names and metavar share a line
where they fit, else take one line each, and the help keeps the rest (52 of 80 columns). Wider
tables, and rows that are not plain text, keep typer's layout.

A flag takes no value, yet typer (0.29) gives every one the metavar `<bool>` (`--progress
--no-progress <bool>`, `--help <bool>`), which reads as "--progress true"; `install` leaves a
flag's metavar out, as click's plain help does. A list parameter's metavar was its Python type
(`files... <list[Path]>`, `--rater <list[str]>`): it is its values' (`files... <path>`, `--rater
<str>`), the name's `...` (or the option's "repeatable") saying there may be several.

Typer 0.29 also writes a required argument in braces on the usage line (`poemetric form check
[OPTIONS] {input_path}`); `usage_name` writes it as click does, `INPUT_PATH`, `[TABLES]...` for
an optional list. It is set at import (it needs no Rich): the usage line above an error is not
help. Errors still name an argument as the Arguments panel lists it (`Missing argument
'input_path'`, `export`'s `tables: unknown table ...`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from typer.core import TyperArgument, TyperCommand, TyperGroup

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

MIN_HELP = 45
"""A table whose own layout would leave its help column narrower than this stacks its labels."""
LABEL_SHARE = 3
"""The stacked label column takes at most 1/LABEL_SHARE of the table; the help keeps the rest."""


class Folded:
    """`renderable` with a word wider than the space given folded, never cut with "…"."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from console.render(self.renderable, options.update(overflow="fold"))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.measure import Measurement

        return Measurement.get(console, options, self.renderable)


def _folded(renderables: Iterable[Any]) -> list[Any]:
    return [r if r is None or isinstance(r, Folded) else Folded(r) for r in renderables]


def _label_lines(parts: list[Text], width: int) -> Text:
    """`parts` joined by spaces, a new line where the next part would pass `width`."""
    from rich.text import Text

    lines: list[Text] = []
    for part in parts:
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1].append(" ")
            lines[-1].append(part)
        else:
            lines.append(part.copy())
    return Text("\n").join(lines)


def stacked(rows: list[tuple[Any, ...]], width: int) -> tuple[int, list[Text]] | None:
    """For a table `width` wide: the label column's width and each row's label, its cells but the
    last packed into one column. None where the table keeps its own layout: one column per cell
    (each as wide as its widest cell, 1 if empty, plus 2 of padding) leaves the last at least
    MIN_HELP, a row has fewer than three cells, or a label cell is not plain text (typer's
    layout changed: keep it rather than guess)."""
    from rich.text import Text

    if not rows or any(len(row) < 3 for row in rows):
        return None
    labels: list[list[Text]] = []
    columns: dict[int, int] = {}
    for row in rows:
        if not all(isinstance(cell, str | Text) for cell in row[:-1]):
            return None
        cells = [Text(cell) if isinstance(cell, str) else cell for cell in row[:-1]]
        for index, cell in enumerate(cells):
            columns[index] = max(columns.get(index, 1), len(cell))
        labels.append([cell for cell in cells if cell.plain.strip()])
    if width - sum(columns.values()) - 2 * len(columns) >= MIN_HELP:
        return None
    widest = max((len(cell) for cells in labels for cell in cells), default=1)
    joined = max(sum(len(cell) + 1 for cell in cells) - 1 for cells in labels)
    most = max(width // LABEL_SHARE, 1)
    label_width = max(joined if joined <= most else min(widest, most), 1)
    return label_width, [_label_lines(cells, label_width) for cells in labels]


def element_metavar(metavar: str | None) -> str | None:
    """`<path>` for typer's `<list[Path]>`, `<a|b>` for `<list[a|b]>`; any other as it is."""
    if metavar is None:
        return None
    listed = re.fullmatch(r"<list\[(.*)\]>(\.\.\.)?", metavar)
    if listed is None:
        return metavar
    inner = listed.group(1)  # `Path`, `str`: typer's scalar metavars are lower case (`<path>`)
    return f"<{inner.lower()}>" if inner.isidentifier() else f"<{inner}>"


def argument_label(argument: TyperArgument) -> str:
    """`INPUT_PATH`: the argument's metavar, else its name in capitals."""
    return argument.metavar or (argument.name or "").upper()


def usage_name(argument: TyperArgument) -> str:
    """An argument on the usage line as click writes it: `INPUT_PATH`, `[TABLES]...`, `FILES...`
    (typer 0.29: `{input_path}`, `[tables]...`, `{files}...`); a metavar given stays as it is."""
    name = argument_label(argument)
    if not argument.required:
        name = f"[{name}]"
    return f"{name}..." if argument.nargs != 1 else name


_installed = False


def install() -> None:
    """Make typer's help tables fold long words, stack an options table's labels when it is
    narrow, and show no metavar for a flag (once; later calls do nothing)."""
    global _installed
    if _installed:
        return
    from rich.columns import Columns
    from rich.measure import Measurement
    from rich.table import Table
    from typer import rich_utils
    from typer.core import TyperOption

    class FoldingColumns(Columns):
        def __init__(
            self, renderables: Iterable[RenderableType] | None = None, *args: Any, **kwargs: Any
        ) -> None:
            super().__init__(_folded(renderables or ()), *args, **kwargs)

    class FoldingTable(Table):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._settings = (args, kwargs)
            self._rows_given: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
            self._own_columns = False
            super().__init__(*args, **kwargs)

        def add_column(self, *args: Any, **kwargs: Any) -> None:
            self._own_columns = True
            super().add_column(*args, **kwargs)

        def add_row(self, *renderables: RenderableType | None, **kwargs: Any) -> None:
            self._rows_given.append((renderables, kwargs))
            super().add_row(*_folded(renderables), **kwargs)

        def _stacked(self, width: int) -> Table | None:
            layout = None
            if not self._own_columns:
                layout = stacked([row for row, _ in self._rows_given], width)
            if layout is None:
                return None
            label_width, labels = layout
            args, kwargs = self._settings
            table = Table(*args, **kwargs)
            table.add_column(width=label_width, overflow="fold")
            table.add_column(ratio=1)
            for label, (row, row_kwargs) in zip(labels, self._rows_given, strict=True):
                table.add_row(label, *_folded(row[-1:]), **row_kwargs)
            return table

        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            table = self._stacked(options.max_width)
            if table is None:
                yield from super().__rich_console__(console, options)
            else:
                yield table

        def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
            table = self._stacked(options.max_width)
            if table is None:
                return super().__rich_measure__(console, options)
            return Measurement.get(console, options, table)

    typed = TyperOption.display_type_rich
    argument_typed = TyperArgument.display_type_rich

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        """No metavar for a flag (`--force`, `--progress/--no-progress`, `--help`); a list's
        values' metavar (`<str>`, not `<list[str]>`)."""
        return None if self.is_flag else element_metavar(typed(self, ctx))

    def argument_type_rich(self: TyperArgument, ctx: Any) -> str | None:
        return element_metavar(argument_typed(self, ctx))

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
    TyperArgument.display_type_rich = argument_type_rich  # type: ignore[method-assign,assignment]
    rich_utils.Columns = FoldingColumns  # type: ignore[misc]
    rich_utils.Table = FoldingTable  # type: ignore[misc]
    _installed = True


def _installing(format_help: Callable[..., None]) -> Callable[..., None]:
    def format_help_folded(self: Any, ctx: Any, formatter: Any) -> None:
        install()
        format_help(self, ctx, formatter)

    format_help_folded.__wrapped__ = format_help  # type: ignore[attr-defined]
    return format_help_folded


def install_on_help() -> None:
    """`install` just before typer first formats a command's or a group's help; usage lines in
    click's spelling (`usage_name`) from now on."""
    TyperArgument._usage_display_name = usage_name  # type: ignore[method-assign,assignment]
    for cls in (TyperCommand, TyperGroup):
        if not hasattr(cls.format_help, "__wrapped__"):
            cls.format_help = _installing(cls.format_help)  # type: ignore[method-assign]
