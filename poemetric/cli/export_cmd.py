"""`poemetric export`: write run-store tables to CSV, JSONL or Parquet."""

from __future__ import annotations

import shlex
from enum import StrEnum
from pathlib import Path

import typer
from rich.console import Console

from poemetric.cli.app import app
from poemetric.cli.options import RunOption, as_typed, error_exit, existing_run, unknown_choice
from poemetric.cli.output_paths import (
    file_suffix,
    folder_form,
    output_file,
    output_option,
    run_output_folder,
)
from poemetric.hints import stage_command
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
    ctx: typer.Context,
    tables: list[str] = typer.Argument(None, help=TABLES_HELP),
    run: Path = RunOption,
    to: str | None = output_option(
        None,
        "--to",
        "Output directory (default: RUN/export); with one table, a file name (calls.csv, "
        "calls.jsonl, calls.parquet) writes that file, in the format its suffix names.",
        metavar="<path>",
    ),
    format_name: str = typer.Option(
        ExportFormat.csv.value,
        "--format",
        "-f",
        metavar="<csv|jsonl|parquet>",
        help="File format (of a folder's files). The analysis tables for a paper (LaTeX, "
        "Markdown) are written by poemetric analyze, to RUN/analysis/.",
    ),
) -> None:
    """Export tables of a run store, one file per table.

    Each table's rows come in the order of its key (generations by prompt, author and sample;
    judgments by generation, judge and sample; docs/running.md lists them), whatever order a
    merge stored them in, so two exports of one run can be diffed.

    Values are as stored, but for one: an N/A answer on imagery or literary devices (a judge's in
    `judgments`, an expert's `score` in `survey_answers`), stored as 0, is written `NA` in CSV,
    which pandas, R and a spreadsheet's AVERAGE leave out of a mean, as `analyze` does (a blank
    cell: no score). JSONL and Parquet keep the 0: leave it out of a mean yourself.

    Examples:

        poemetric export --run runs/demo

        poemetric export generations judgments --run runs/paper --to out/

        poemetric export --run runs/paper --format parquet

        poemetric export calls --run runs/paper -o calls.csv
    """
    from poemetric.store import StoreError

    fmt = _export_format(format_name, run)
    chosen = list(dict.fromkeys(tables or EXPORTABLE_TABLES))  # each table once, in order
    unknown = [t for t in chosen if t not in EXPORTABLE_TABLES]
    if unknown:
        _refuse_a_run_folder(ctx, unknown, chosen)
        raise unknown_choice("tables", unknown, EXPORTABLE_TABLES, "table")  # as --help names it
    one_file = to is not None and file_suffix(to) is not None  # `-o calls.csv`: a file
    if to is not None and one_file:
        destination = _one_file(to, chosen, fmt if given(ctx, "format_name") else None)
    else:
        out_dir = run_output_folder(run, None if to is None else Path(to), "export", "--to")
    with existing_run(run) as store, store.snapshot():  # the files agree with one another
        width = max(map(len, chosen))
        for table in chosen:
            rows = store.count(table)
            wanted = destination if one_file else out_dir / f"{table}.{fmt.value}"
            try:
                path = store.export(table, wanted)
            except StoreError as error:  # a table Parquet cannot hold (`export_file`)
                raise error_exit(error) from None
            console.print(
                f"{table:<{width}} {rows:>7} {plural(rows, 'row'):<4} → {path}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )


#: Formats of the analysis tables, which `analyze` writes: asked of `export`, they were refused
#: as "not one of 'csv', 'jsonl', 'parquet'", with no word of where the LaTeX tables are.
ANALYSIS_FORMATS = {"latex", "tex", "md", "markdown"}


def _export_format(name: str, run: Path) -> ExportFormat:
    word = name.strip().lower().lstrip(".")
    if word in ANALYSIS_FORMATS:
        raise error_exit(
            f"--format {name}: export writes the run store's raw tables (csv, jsonl, parquet); "
            f"the analysis tables for a paper, in LaTeX and Markdown, are written by "
            f"`{stage_command('analyze', run)}` to {run / 'analysis'} (tables.tex includes "
            "every one)"
        )
    try:
        return ExportFormat(word)
    except ValueError:
        raise unknown_choice("--format", name, [f.value for f in ExportFormat], "format") from None


#: The suffixes `--to` may name one table's file by, and the format each writes.
FILE_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}


def _refuse_a_run_folder(ctx: typer.Context, unknown: list[str], chosen: list[str]) -> None:
    """`poemetric export runs/x` said "unknown table 'runs/x'": a run folder (or its
    poemetric.sqlite) where a table goes is said to be one, with the line to write."""
    folder = next((word for word in unknown if _holds_a_run(Path(word))), None)
    if folder is None or given(ctx, "run"):
        return
    tables = [table for table in chosen if table != folder]
    line = shlex.join(["poemetric", "export", *tables, "--run", folder])
    raise error_exit(f"tables: {folder!r} is a run, not a table; a run is given with --run: {line}")


def _holds_a_run(path: Path) -> bool:
    return (path / "poemetric.sqlite").is_file() or (
        path.name == "poemetric.sqlite" and path.is_file()
    )


def given(ctx: typer.Context, param: str) -> bool:
    """Whether `param` was given (on the command line or in the environment), not defaulted."""
    source = ctx.get_parameter_source(param)
    return source is not None and source.name != "DEFAULT"


def _one_file(to: str, chosen: list[str], fmt: ExportFormat | None) -> Path:
    """`--to` naming a file (`calls.csv`): that file, for exactly one table in a format its
    suffix names (and `--format`, if given, agrees with). Before, `export calls -o calls.csv`
    made a folder `calls.csv/` holding `calls.csv`. Anything else is refused (exit 2), naming
    the folder form."""
    option = as_typed("--to")  # `--out`, `-o`: as given
    suffix = Path(to).suffix.lower()
    folder = f"{option} {folder_form(to)}"
    if len(chosen) != 1:
        stem = Path(to).stem
        table = stem if stem in chosen else chosen[0]
        raise error_exit(
            f"{option} {to}: a file name, but {len(chosen)} tables are exported, one file each, "
            f"into a folder: give a folder ({folder}), or one table (poemetric export {table} "
            f"{option} {to})"
        )
    if suffix not in FILE_FORMATS:
        raise error_exit(
            f"{option} {to}: export writes .csv, .jsonl or .parquet files; give one of those names, "
            f"or a folder ({folder})"
        )
    if fmt is not None and fmt.value != FILE_FORMATS[suffix]:
        raise error_exit(
            f"{option} {to} is a {FILE_FORMATS[suffix]} file name but --format is {fmt.value}: "
            "give one or the other (the suffix names the format of a single file)"
        )
    return output_file(Path(to), option)
