"""What `form check` writes besides its rows: the output's format from its name
(`output_separator`), the progress of the rows checked (`row_progress`) and the rows it could
not check, or that failed as no poem, named on stderr (`list_rows`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from poemetric.cli.options import as_typed, error_exit
from poemetric.text.plural import counted


def output_separator(output: Path) -> str | None:
    """The separator of a CSV/TSV output (None: JSON lines); a Parquet name is refused (it got
    JSON lines, which no Parquet reader opens, as a `.csv` name got JSON lines before)."""
    from poemetric.data.io import PARQUET_SUFFIXES
    from poemetric.form.io_csv import TABLE_SUFFIXES

    suffix = output.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        raise error_exit(
            f"{as_typed('--output')} {output}: form check writes JSON lines (.jsonl) or a CSV/TSV table "
            "(.csv, .tsv), not Parquet; give one of those names"
        )
    return TABLE_SUFFIXES.get(suffix)


def list_rows(err_console: Console, what: str, count: int, listed: list[str]) -> None:
    """Name the rows (file:line, id, why) on stderr: a count alone sent users into the output."""
    if not count:
        return
    style = "red" if what == "could not be checked" else None
    err_console.print(
        f"{counted(count, 'row')} {what}:", style=style, markup=False, highlight=False
    )
    for line in listed:
        err_console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
    if count > len(listed):
        err_console.print(
            f"  ... and {count - len(listed)} more (their `error` field says why)",
            markup=False,
            highlight=False,
        )


@contextmanager
def row_progress(
    err_console: Console, shown: bool = True
) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr when it is a terminal (rows done of all rows), else a line
    now and then (`poemetric.progress_lines`); neither when not `shown` (--no-progress)."""
    from poemetric.progress_lines import Count, draws_bars, progress_lines

    if not shown:
        yield None
        return
    if not draws_bars(err_console):
        started = time.monotonic()
        rows = [0, 0]  # done, total

        def counts() -> list[Count]:
            return [Count("form check", rows[0], rows[1] or None, time.monotonic() - started)]

        def advance(done: int, total: int) -> None:
            rows[:] = [done, total]

        with progress_lines(err_console, counts):
            yield advance
        return
    from rich.progress import Progress

    with Progress(console=err_console, transient=True) as bar:
        task = bar.add_task("form check", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
