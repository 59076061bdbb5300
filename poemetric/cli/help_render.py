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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.measure import Measurement


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


_installed = False


def install() -> None:
    """Make typer's help tables fold long words (once; later calls do nothing)."""
    global _installed
    if _installed:
        return
    from rich.columns import Columns
    from rich.table import Table
    from typer import rich_utils

    class FoldingColumns(Columns):
        def __init__(
            self, renderables: Iterable[RenderableType] | None = None, *args: Any, **kwargs: Any
        ) -> None:
            super().__init__(_folded(renderables or ()), *args, **kwargs)

    class FoldingTable(Table):
        def add_row(self, *renderables: RenderableType | None, **kwargs: Any) -> None:
            super().add_row(*_folded(renderables), **kwargs)

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
    """`install` just before typer first formats a command's or a group's help."""
    for cls in (TyperCommand, TyperGroup):
        if not hasattr(cls.format_help, "__wrapped__"):
            cls.format_help = _installing(cls.format_help)  # type: ignore[method-assign]
