"""`poemetric dataset ...`: validate, list, show and fetch human poem datasets."""

from __future__ import annotations

import textwrap
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.markup import plain, plain_cells
from poemetric.cli.options import error_exit
from poemetric.cli.run_limit import _limit_text
from poemetric.data import (
    Dataset,
    DatasetError,
    Poem,
    dataset_registry,
    get_entry,
    load_dataset,
    resolve_dataset,
    validate_file,
)
from poemetric.data.dataset import pinned_hash_mismatch
from poemetric.data.io import ValidationIssue
from poemetric.data.validation import ValidationReport
from poemetric.hints import program
from poemetric.text.plural import counted

dataset_app = typer.Typer(
    help="Human poem datasets: validate a file, list and show known datasets, fetch the release."
    "\n\n  poemetric dataset list\n\n  poemetric dataset fetch poemetric\n\n"
    "  poemetric dataset show demo\n\n  poemetric dataset validate my_poems.csv",
    no_args_is_help=True,
)
app.add_typer(dataset_app, name="dataset")

DEFAULT_SHOW_LIMIT = 20


def _console() -> Console:
    return Console(emoji=False, highlight=False, soft_wrap=True)


@dataset_app.command("validate")
def validate(
    spec: str = typer.Argument(
        ...,
        metavar="PATH",
        help="A CSV/TSV/JSONL/Parquet file, or a dataset name (demo, lear-limericks, poemetric).",
    ),
) -> None:
    """Check every record of a dataset file; list all problems as `file:line: column: reason`.

    Examples:

        poemetric dataset validate my_poems.csv

        poemetric dataset validate poemetric
    """
    try:
        _, path = resolve_dataset(spec)
        report = validate_file(path)
    except (DatasetError, OSError) as error:
        raise error_exit(error) from None
    mismatch = pinned_hash_mismatch(spec, report.sha256)
    if mismatch is not None:  # every other command refuses this file by the dataset's name
        report.issues.insert(0, ValidationIssue(str(path), None, None, mismatch))
    for warning in report.warnings:  # `FILE:LINE: ...` (or `FILE: ...`), as the problems
        typer.echo(f"warning: {warning}")
    if not report.ok:
        for issue in report.issues:
            typer.echo(str(issue))
        typer.echo(_problems_line(report, path))
        raise typer.Exit(1)
    table = Table("form", "poems", title=f"{plain(path.name)} (sha256 {report.sha256[:12]}…)")
    for form, count in report.form_counts().items():
        table.add_row(form.value, str(count))
    console = _console()
    console.print(counted(len(report.poems), "valid poem"))
    console.print(table)


def _problems_line(report: ValidationReport, path: Path) -> str:
    """The last line of `validate` with problems: how many records are valid, or, when the
    problem is the whole file's, that none was checked ("0 of 0 records valid" of a UTF-16 file,
    "0 of 259" of a semicolon-separated 19-poem file)."""
    count = len(report.issues)
    if report.whole_file is None:
        unreadable = f" ({report.unreadable} could not be read)" if report.unreadable else ""
        return (
            f"{counted(count, 'problem')} in {path}: {report.valid_records} of "
            f"{report.records + report.unreadable} records valid{unreadable}"
        )
    found = report.records_found
    records = {
        None: "no record was checked",
        0: "it holds no record",
        1: "its one record was not checked",
    }.get(found, f"none of its {found} records was checked")
    what = f"{counted(count, 'problem')} in {path}, with the whole file"
    return f"{what}: {report.whole_file}, so {records}"


@dataset_app.command("list")
def list_datasets() -> None:
    """Known datasets and whether each is present on this machine.

    Examples:

        poemetric dataset list
    """
    try:  # a registry that is not there ($POEMETRIC_HOME's datasets/ without it): a traceback
        registry = dataset_registry()
    except DatasetError as error:
        raise error_exit(error) from None
    rows: list[tuple[str, ...]] = [
        (
            entry.name,
            "yes" if entry.present else f"no ({program()} dataset fetch {entry.name})",
            str(entry.poems or ""),
            "bundled" if entry.bundled else str(entry.path),
            entry.description,
        )
        for entry in registry.values()
    ]
    console = _console()
    if _list_table_fits(rows, console.width):
        console.print(_list_table(rows))
    else:
        _print_dataset_blocks(console, rows)
    from poemetric.data.errata import broken_errata

    broken = broken_errata()  # they stop only the commands on their own dataset
    if broken:
        console.print(
            "errata that cannot be read (a command on that dataset stops until it is fixed):",
            markup=False,
        )
        for problem in broken:
            console.print(f"  {problem}", markup=False)


LIST_COLUMNS = ("name", "present", "poems", "where", "description")
#: The narrowest description column `dataset list` prints as a table: at 80 columns the
#: descriptions folded into columns of 15 characters, a table of 46 lines for three datasets;
#: where the other columns leave less, each dataset is a block of lines instead (as in `show`).
LIST_DESCRIPTION = 30


def _list_table_fits(rows: list[tuple[str, ...]], width: int) -> bool:
    """Whether a table `width` wide holds the name, present, poems and where columns whole and
    leaves the description at least `LIST_DESCRIPTION` characters."""
    widths = [max([len(header), *(len(row[k]) for row in rows)]) for k, header in
              enumerate(LIST_COLUMNS[:-1])]  # fmt: skip
    return sum(widths) + LIST_DESCRIPTION + 3 * len(LIST_COLUMNS) + 1 <= width


def _list_table(rows: list[tuple[str, ...]]) -> Table:
    table = Table()
    # Only the description folds (`_list_table_fits` leaves the others their whole width): the
    # data folder's path was cut with "…" (`/root/.local/s…`), then folded at 200 columns.
    for column in LIST_COLUMNS:
        table.add_column(column, overflow="fold", no_wrap=column != "description")
    for row in rows:
        table.add_row(*plain_cells(*row))  # the data folder's path is text: `[` in it stays
    return table


def _print_dataset_blocks(console: Console, rows: list[tuple[str, ...]]) -> None:
    """Each dataset's name, poems and presence on a line, its file (unless bundled) and its
    description indented below: where a table would fold the descriptions into a narrow column.
    The file's path is folded only when wider than the terminal, never cut."""
    width = max(console.width - BLOCK_INDENT, 20)
    indent = " " * BLOCK_INDENT
    for name, present, poems, where, description in rows:
        count = f" ({counted(int(poems), 'poem')})" if poems else ""
        if where == "bundled":
            state = "bundled"
        elif present == "yes":
            state = "present"
        else:
            state = f"not present, fetch it: {program()} dataset fetch {name}"
        for part in textwrap.wrap(f"{name}{count}: {state}", console.width, subsequent_indent=indent,
                                  break_on_hyphens=False):  # fmt: skip
            console.print(part, markup=False)
        if where != "bundled":
            fits = len(where) <= width
            console.print(
                indent + where if fits else where, markup=False, soft_wrap=False, overflow="fold"
            )
        for part in textwrap.wrap(description, width, break_on_hyphens=False):
            console.print(indent + part, markup=False)


@dataset_app.command("show")
def show(
    name: str = typer.Argument(
        ...,
        help="A dataset name (demo, lear-limericks, poemetric), or a CSV/TSV/JSONL/Parquet file.",
    ),
    limit: str | None = typer.Option(
        None,
        "--limit",
        "-n",
        parser=_limit_text,
        metavar="N|all",
        help=f"Poems to show (default: the first {DEFAULT_SHOW_LIMIT}); all: every poem.",
    ),
) -> None:
    """A table of a dataset's poems (first 20 unless --limit).

    Examples:

        poemetric dataset show demo

        poemetric dataset show poemetric --limit 50
    """
    try:
        dataset = load_dataset(name)
    except (DatasetError, OSError) as error:
        raise error_exit(error) from None
    shown = dataset.head(
        len(dataset) if limit == "all" else int(limit) if limit else DEFAULT_SHOW_LIMIT
    )
    # Before the table: an errata file that cannot be read stops the command with nothing printed
    # (the table was printed, then the error).
    notes = _errata_notes(dataset, len(shown))
    console = _console()
    title = f"{dataset.name}: {len(shown)} of {counted(len(dataset), 'poem')}"
    if limit is None and len(shown) < len(dataset):  # said nothing of how to see the others
        title += " (--limit all shows every one)"
    rows = [_show_row(poem) for poem in shown.poems]
    if _table_keeps_ids_whole(rows, console.width):
        console.print(_show_table(title, rows))
    else:
        _print_poem_blocks(console, title, rows)
    for line in notes:
        console.print(line, markup=False)


SHOW_COLUMNS = ("poem_id", "form", "title", "author", "lines", "meter", "rhyme")
#: The longest word `dataset show`'s table keeps whole in a column other than the id (a longer
#: one may fold): where the ids would leave the other columns less than their words (or than
#: this), each poem's id gets a line of its own instead of a table.
SHOW_WORD = 16
#: A table's borders and padding beside its columns' text: `│ ` + ` │ ` between + ` │`.
_TABLE_CHROME = 3 * len(SHOW_COLUMNS) + 1
#: How far `dataset show` indents a poem's values below its id, where the ids have lines of
#: their own.
BLOCK_INDENT = 4


def _show_row(poem: Poem) -> tuple[str, ...]:
    return (
        poem.poem_id,
        poem.form.value,
        poem.title,
        poem.author,
        str(len(poem.lines)),
        poem.meter_pattern or "",
        poem.rhyme_pattern or "",
    )


def _table_keeps_ids_whole(rows: list[tuple[str, ...]], width: int) -> bool:
    """Whether a table `width` wide gives every id its whole length and each other column room
    for its header and its longest word (up to `SHOW_WORD`)."""
    ids = max((len(row[0]) for row in rows), default=0)
    words = [
        max([len(header), *(min(len(word), SHOW_WORD) for row in rows for word in row[k].split())])
        for k, header in enumerate(SHOW_COLUMNS)
    ]
    return max(ids, words[0]) + sum(words[1:]) + _TABLE_CHROME <= width


def _show_table(title: str, rows: list[tuple[str, ...]]) -> Table:
    """The poems as a table: the ids whole (no_wrap), the other columns folding what does not fit
    (at 80 columns the id column folded each id over eight lines, and author, meter and rhyme
    were cut with "…")."""
    table = Table(title=plain(title))
    table.add_column("poem_id", no_wrap=True, overflow="fold")  # folds only an id wider than all
    for column in SHOW_COLUMNS[1:]:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*plain_cells(*row))  # a title `[Untitled]` or `Sonnet [sic]` is text
    return table


def _print_poem_blocks(console: Console, title: str, rows: list[tuple[str, ...]]) -> None:
    """Each poem's id on a line of its own (folded only when wider than the terminal), its other
    values indented below it: where a table would fold the ids (76 characters in the release)."""
    width = max(console.width - BLOCK_INDENT, 20)
    console.print(title, markup=False)
    for poem_id, form, poem_title, author, lines, meter, rhyme in rows:
        console.print(poem_id, markup=False, soft_wrap=False, overflow="fold")
        facts = [f"{form}, {lines} line{'' if lines == '1' else 's'}"]
        facts += [f"meter {meter}"] if meter else []
        facts += [f"rhyme {rhyme}"] if rhyme else []
        for line in (f"{poem_title}, by {author}", ", ".join(facts)):
            for part in textwrap.wrap(line, width, break_on_hyphens=False):
                console.print(" " * BLOCK_INDENT + part, markup=False)


def _errata_notes(dataset: Dataset, shown: int) -> list[str]:
    """The file's known annotation errors (datasets/<name>/errata.yaml, found by the file's
    sha256) among its first `shown` rows: the table shows the annotation as released, and a row
    known to be wrong was shown without a word."""
    from poemetric.data.errata import correction_for, errata_for_release

    errata = errata_for_release(dataset.sha256, dataset.name)
    if errata is None:
        return []
    notes = []
    for erratum in sorted(errata.errata, key=lambda e: e.row):
        if erratum.row > shown:
            continue
        poem = dataset.poems[erratum.row - 1]
        values = {
            "form": poem.form.value,
            "meter_pattern": poem.meter_pattern,
            "rhyme_pattern": poem.rhyme_pattern,
        }
        value = values[erratum.field]
        correction = correction_for(errata, erratum.row, poem.content, value)
        if correction is None or correction.status == "mismatch":
            continue
        fix = repr(erratum.corrected) if erratum.corrected is not None else "no value fits"
        notes.append(f"  row {erratum.row} ({poem.poem_id}): {erratum.field} {value!r} -> {fix}")
    if not notes:
        return []
    folder = next(
        (e.name for e in dataset_registry().values() if e.sha256 == errata.release_sha256),
        dataset.name,
    )
    head = (
        f"known annotation errors in these rows, {len(notes)} of the file's "
        f"{len(errata.errata)} (datasets/{folder}/errata.yaml; the table shows the data as "
        "released, the errata are not applied):"
    )
    return [head, *notes]


@dataset_app.command("fetch")
def fetch(
    name: str = typer.Argument(
        "poemetric", help="Dataset to fetch (see `poemetric dataset list`)."
    ),
    source: Path | None = typer.Option(
        None, "--from", help="Copy this local file instead of downloading (same hash check)."
    ),
    url: str | None = typer.Option(
        None, "--url", help="Download from this URL ('{commit}' is replaced) instead."
    ),
    commit: str | None = typer.Option(None, "--commit", help="Pin a different commit."),
    sha256: str | None = typer.Option(
        None, "--sha256", help="Expected sha256 when you deliberately pin another release."
    ),
    force: bool = typer.Option(False, "--force", help="Fetch again even if the file is present."),
) -> None:
    """Download the authors' release into the user data dir (pinned commit, sha256-verified).

    The file goes to datasets/NAME/ in $POEMETRIC_DATA_DIR, else in the per-user data folder
    (~/.local/share/poemetric on Linux); the command prints its path, and `poemetric dataset
    list` shows where each dataset is. `--dataset NAME` then finds it there.

    Examples:

        poemetric dataset fetch poemetric

        poemetric dataset fetch --from POEMetric_human_poems_annotated.csv
    """
    from poemetric.data.fetch import fetch_dataset  # httpx: only when fetching

    # An unknown or bundled name and a missing --from file are unusable input (exit 2); a failed
    # download or a file with the wrong hash is a fetch that ran and failed (exit 1).
    try:
        bundled = get_entry(name).bundled
    except DatasetError as error:
        raise error_exit(error) from None
    if bundled:
        raise error_exit(f"dataset {name!r} is bundled with POEMetric; nothing to fetch")
    if source is not None and not source.is_file():
        raise error_exit(f"--from {source}: no such file")
    try:
        path = fetch_dataset(
            name,
            source=source,
            url=url,
            commit=commit,
            sha256=sha256,
            force=force,
            validate=load_dataset,
        )
        dataset = load_dataset(path)
    except (DatasetError, OSError) as error:
        raise error_exit(error, code=1) from None
    typer.echo(f"{name}: {counted(len(dataset), 'poem')} at {path} (sha256 {dataset.sha256})")
