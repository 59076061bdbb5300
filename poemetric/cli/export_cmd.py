"""`poemetric export`: write run-store tables to CSV, JSONL or Parquet."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer
from rich.console import Console

from poemetric.cli.app import app
from poemetric.cli.options import (
    RunOption,
    existing_run,
    output_option,
    run_output_folder,
    unknown_choice,
)
from poemetric.store.schema import EXPORTABLE_TABLES
from poemetric.text.plural import plural

console = Console(emoji=False)
TABLES_HELP = f"Tables to export (default: all): {', '.join(EXPORTABLE_TABLES)}."


class ExportFormat(StrEnum):
    csv = "csv"
    jsonl = "jsonl"
    parquet = "parquet"


@app.command("export")
def export(
    tables: list[str] = typer.Argument(None, help=TABLES_HELP),
    run: Path = RunOption,
    to: Path | None = output_option(None, "--to", "Output directory (default: RUN/export)."),
    fmt: ExportFormat = typer.Option(ExportFormat.csv, "--format", "-f", help="File format."),
) -> None:
    """Export tables of a run store, one file per table.

    Examples:

        poemetric export --run runs/demo

        poemetric export generations judgments --run runs/paper --to out/

        poemetric export --run runs/paper --format parquet
    """
    chosen = list(dict.fromkeys(tables or EXPORTABLE_TABLES))  # each table once, in order
    unknown = [t for t in chosen if t not in EXPORTABLE_TABLES]
    if unknown:
        raise unknown_choice("tables", unknown, EXPORTABLE_TABLES, "table")  # as --help names it
    out_dir = run_output_folder(run, to, "export", "--to")
    with existing_run(run) as store, store.snapshot():  # the files agree with one another
        width = max(map(len, chosen))
        for table in chosen:
            rows = store.count(table)
            path = store.export(table, out_dir / f"{table}.{fmt.value}")
            console.print(
                f"{table:<{width}} {rows:>7} {plural(rows, 'row'):<4} → {path}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
