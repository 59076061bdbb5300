"""What `poemetric probe` commands read, print and refuse: the poems `probe build` reads, lines
that name paths (stdout) and notes beside the results (stderr), the accuracy tables, `probe
build`'s "no pairs" error and the refusal of an `--output` that holds the other kind of probe
file."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.options import as_typed, error_exit

if TYPE_CHECKING:
    from poemetric.probes.builders import SourcePoem
    from poemetric.probes.results import ProbeTable
    from poemetric.store.probe_pairs import PairRequest

console = Console(emoji=False)
err_console = Console(emoji=False, stderr=True)


def say(text: str) -> None:
    """A line that names paths: never wrapped mid-path, never read as markup (a `[` in a name)."""
    console.print(text, soft_wrap=True, highlight=False, markup=False)


def note(text: str) -> None:
    """A note beside the results (what a rerun reused or kept, the table files written), on
    stderr as `say` words it: `probe run ... > results.md` keeps only the summary line and the
    tables, as docs/probes.md says."""
    err_console.print(text, soft_wrap=True, highlight=False, markup=False)


def no_pairs(
    output: Path, poems: str, offline: list[str], why_none: str | None, failed_calls: str | None
) -> typer.Exit:
    """`error: no pairs from POEMS; no pairs file written`, then why, a line per reason (exit 1):
    a build that found nothing wrote an empty pairs file and exited 0, which `probe run` then
    refused."""
    reasons = [why_none, failed_calls]
    if offline:
        whose = "task's" if len(offline) == 1 else "tasks'"
        reasons.insert(
            0, f"{', '.join(offline)}: no poem passed the {whose} filters (docs/probes.md)"
        )
    left = f" ({output}, already there, is left as it was)" if output.exists() else ""
    because = "\n".join(reason for reason in reasons if reason)
    return error_exit(f"no pairs from {poems}; no pairs file written{left}\n{because}", code=1)


def not_the_other_kind(output: Path, kind: str, loss: str) -> None:
    """Refuse (exit 2) an `--output` that holds the other kind of probe file: `probe build -o
    s-smol.jsonl` replaced an hour's scores with pairs, `probe run -o ll.jsonl` a beam search's
    pairs with scores. A file of the same kind is replaced, as a re-run does."""
    from poemetric.probes.pairs import file_kind

    if output.is_file() and file_kind(output) == kind:
        maker = {"scores": "probe run", "pairs": "probe build"}[kind]
        raise error_exit(
            f"{as_typed('--output')} {output} holds {kind} (from `{maker}`): {loss}; give another file name "
            "(or move it away first)"
        )


def show_tables(tables: dict[str, ProbeTable], out_dir: Path | None) -> None:
    """Print the accuracy tables (without importing pandas) and write them into `out_dir`; a
    paper-shaped table with no row of ours is not written, and a line says which tasks it
    lacks (its file held only the published rows). Its files that an earlier report wrote to
    `out_dir` are removed: left there, they read as this report's (`analyze` does the same)."""
    from poemetric.probes.results import markdown_summary, tables_without_ours, write_probe_tables

    typer.echo(tables["accuracy"].markdown(digits=3))
    typer.echo(markdown_summary(tables))
    if out_dir is not None:
        from poemetric.tables.write import remove_table_files  # pandas: only to write files

        left = tables_without_ours(tables)
        frames = {name: table.frame() for name, table in tables.items() if name not in left}
        written = write_probe_tables(frames, out_dir)
        for name, why in left.items():
            removed = remove_table_files(out_dir, f"probe_{name}")
            gone = "; its files from an earlier report were removed" if removed else ""
            note(f"probe_{name} not written: {why}{gone}")
        note(f"tables: {len(written)} files in {out_dir}")


def source_poems(poems: str, rhyme_from: str) -> tuple[str, list[SourcePoem]]:
    """The name and poems of `probe build`'s POEMS: a dataset (name, or a file with a
    dataset's columns) read by the dataset loader, else a file of just the poems. A file is
    read once: the table that tells which it is is the one validated or read for poems."""
    from poemetric.data import DatasetError, load_dataset
    from poemetric.data.io import RawTable, read_table
    from poemetric.probes.builders import SourcePoem
    from poemetric.probes.poem_file import PoemFileError, is_full_dataset, read_poem_file

    path = Path(poems)
    data: bytes | None = None
    table: RawTable | None = None
    if path.is_file():
        try:
            data = path.read_bytes()
            table = read_table(path, data)
        except (DatasetError, OSError):
            data = None  # a name (`demo`) or no dataset file: the dataset loader says which
    if table is not None and not is_full_dataset(table):
        try:
            read = read_poem_file(path, rhyme_required_to_fit=rhyme_from == "dataset", table=table)
        except PoemFileError as error:
            raise error_exit(str(error)) from error
        for warning in read.notes:
            typer.echo(f"warning: {warning}", err=True)
        return path.name, read.poems
    try:
        dataset = load_dataset(poems, data=data, table=table)
    except DatasetError as error:
        raise error_exit(str(error)) from error
    return dataset.name, [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern, str(p.form), dataset.where.get(p.poem_id))
        for p in dataset.poems
    ]


def pair_request(
    pairs_file: Path, output: Path, tasks: str | None, limit: int | None, seed: int
) -> PairRequest:
    """What `probe run --scorer chat:` records of itself in its store (`merge` repeats it in the
    command that completes a scorer): the pairs file and scores file as given, and the options
    that pick its pairs and their order."""
    from poemetric.store.probe_pairs import PairRequest

    options = (
        f"--tasks {shlex.quote(tasks)}" if tasks else "",
        f"--limit {limit}" if limit else "",
        f"--seed {seed}" if seed else "",
    )
    return PairRequest(str(pairs_file), tuple(o for o in options if o), str(output))
