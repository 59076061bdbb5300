"""`poemetric batches ...`: the provider batches a run submitted with `--batch`; list them, and
abandon one whose results cannot be downloaded so that the next run submits its jobs again."""

from __future__ import annotations

import textwrap
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.markup import plain_cells
from poemetric.cli.options import RunOption, error_exit, existing_run
from poemetric.runner.batch_intent import TAGGED, SubmissionState, submission_state
from poemetric.runner.batch_table import (
    ENDED_STATES,
    UNCONFIRMED_PREFIX,
    BatchRow,
    abandon_batch,
    abandon_command,
    batch_rows,
    needs_force,
)
from poemetric.runner.batch_unknown import shown_time
from poemetric.text.plural import counted, plural

batches_app = typer.Typer(
    help="Provider batches of a run (--batch): list them, abandon one whose results cannot be "
    "downloaded so that the next run submits its jobs again.\n\n"
    "  poemetric batches list --run runs/paper\n\n"
    "  poemetric batches abandon batch_6820f0a3c1 --run runs/paper",
    no_args_is_help=True,
)
app.add_typer(batches_app, name="batches")

#: The longest note (a download's error) shown in the list.
NOTE_CHARS = 120


def _console() -> Console:
    return Console(emoji=False, highlight=False, soft_wrap=True)


def _not_found(row: BatchRow) -> bool:
    return row.status.startswith("not found")


def _note(row: BatchRow, submissions: dict[str, SubmissionState]) -> str:
    if row.batch_id in submissions:
        return submissions[row.batch_id].note
    if _not_found(row):
        since = shown_time(str(row.detail.get("not_found_since") or row.updated_at))
        return f"not found on every poll since {since}"
    note = str(row.detail.get("abandoned") or row.detail.get("collect_error") or "")
    return note if len(note) <= NOTE_CHARS else note[: NOTE_CHARS - 1] + "…"


def _commands(rows: list[BatchRow], run: Path) -> str:
    """One `batches abandon` command a line, for each of `rows`."""
    return "\n".join(f"  {abandon_command(run, {row.batch_id: row.status})}" for row in rows)


def _not_found_advice(rows: list[BatchRow], run: Path) -> str:
    """What to do about the batches whose status polls the provider answered 404 or 410."""
    found = [row for row in rows if _not_found(row)]
    if not found:
        return ""
    ids = ", ".join(row.batch_id for row in found)
    return (
        f"\n'not found': the provider knows no such batch for this API key ({ids}): "
        "deleted, or submitted with another key or project (the same answer). Waiting does not "
        "help: each run polls it once more (free), goes on if it is found, else stops that "
        "model. If the key changed, put back the one that submitted it; else cancel the batch "
        "in the provider's batch list if it is still there, then give it up (the next run "
        f"submits its jobs again, paying again):\n{_commands(found, run)}"
    )


def _unconfirmed_advice(
    rows: list[BatchRow], submissions: dict[str, SubmissionState], run: Path
) -> str:
    """What to do about the rows written before a submission whose process is gone or lost the
    provider's answer (one still under way is left to its process)."""
    live = any(state.under_way for state in submissions.values())
    gone = [
        row
        for row in rows
        if row.batch_id in submissions and not submissions[row.batch_id].under_way
    ]
    if not gone:
        return ""
    tagged = [row.batch_id for row in gone if row.detail.get(TAGGED)]
    found = (
        f"\nThe batch of {', '.join(tagged)} carries that id in the provider's batch list "
        "(OpenAI, Gemini): the next run with --batch looks for it there first, and collects it "
        "if it finds exactly one; it stops only if it finds none or several."
        if tagged
        else ""
    )
    return (
        f"\n'{UNCONFIRMED_PREFIX}...': a submission whose batch id never reached the store "
        f"({', '.join(row.batch_id for row in gone)}): the provider may have accepted that "
        "batch and charges for it, so runs do not submit its jobs again. Look for it in the "
        "provider's batch list (created about the time shown) and cancel it there if it is; "
        f"then give the row up (the next run submits its jobs again):\n{_commands(gone, run)}"
        + found
        + (
            "\nA row whose submission is under way belongs to a live process: leave it."
            if live
            else ""
        )
    )


#: Narrowest note column worth a table; below it the batches are listed one block each.
NOTE_MIN = 24


def _cells(row: BatchRow) -> list[str]:
    """batch, stage, model, status, jobs, updated (UTC)."""
    status = row.status
    if row.in_flight and status in ENDED_STATES:  # its results are still to be downloaded
        status += ", not collected"
    updated = row.updated_at[:19].replace("T", " ")
    return [row.batch_id, row.stage, row.model, status, f"{row.jobs:,}", updated]


def _print_batches(
    console: Console, rows: list[BatchRow], submissions: dict[str, SubmissionState]
) -> None:
    """The batches as a table where every cell fits whole on its line, else (at 80 columns, in
    a log, with ids such as `batch_6820f0a3c1b48190a1b2c3d4e5f60718`) one block per batch: the
    id whole on its own line, as `batches abandon` takes it, never cut to `batch_0011…`."""
    headers = ["batch", "stage", "model", "status", "jobs", "updated (UTC)"]
    cells = [_cells(row) for row in rows]
    notes = [_note(row, submissions) for row in rows]
    widths = [
        max(max(map(len, header.split())), *(len(line[i]) for line in cells))
        for i, header in enumerate(headers)
    ]
    columns = len(headers) + any(notes)
    needed = sum(widths) + (NOTE_MIN if any(notes) else 0) + 3 * columns + 1
    if needed <= console.width:
        table = Table(*headers[:4])
        table.add_column(headers[4], justify="right")
        table.add_column(headers[5], no_wrap=True)
        if any(notes):
            table.add_column("note", overflow="fold")
        for line, note in zip(cells, notes, strict=True):
            table.add_row(*plain_cells(*line, *([note] if any(notes) else [])))
        console.print(table)
        return
    for line, note in zip(cells, notes, strict=True):
        batch_id, stage, model, status, jobs, updated = line
        console.print(batch_id, markup=False, soft_wrap=True)
        jobs_text = f"{jobs} job" + ("" if jobs == "1" else "s")
        details = [f"{stage}, {model}: {status}, {jobs_text}, updated {updated} UTC"]
        for text in [*details, *([f"note: {note}"] if note else [])]:
            console.print(_indented(text, console.width), markup=False)


def _indented(text: str, width: int) -> str:
    """`text` indented under its batch id, wrapped at spaces to `width` (a word longer than
    the line stays whole)."""
    return textwrap.fill(
        text,
        width=max(width, 20),
        initial_indent="  ",
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    )


@batches_app.command("list")
def list_batches(run: Path = RunOption) -> None:
    """The run's provider batches, oldest first: stage, model, status ('collected': results
    stored; 'abandoned': given up, its jobs submitted again by the next run; 'not found (404)':
    the provider knows no such batch for this key, what to do said below the list; any other:
    in flight, polled and downloaded by the next run), jobs, and the last download error; for
    a submission whose answer never reached the store ('unconfirmed-...'), its process (pid,
    host, start) and whether it is still under way, was killed, or lost the answer.

    Examples:

        poemetric batches list --run runs/paper
    """
    with existing_run(run) as store:
        rows = batch_rows(store)
        submissions = {
            row.batch_id: submission_state(store, row.detail)
            for row in rows
            if row.unconfirmed and row.in_flight
        }
    if not rows:
        typer.echo(f"run {run} has no provider batches (they come from --batch)")
        return
    _print_batches(_console(), rows, submissions)
    for advice in (_not_found_advice(rows, run), _unconfirmed_advice(rows, submissions, run)):
        if advice:
            _console().print(advice, markup=False)


@batches_app.command("abandon")
def abandon(
    batch_id: str = typer.Argument(
        ..., metavar="BATCH_ID", help="A batch id, as `poemetric batches list` shows it."
    ),
    run: Path = RunOption,
    force: bool = typer.Option(
        False,
        "--force",
        help="Abandon a batch not known to have ended (cancel it at the provider first, or its "
        "answers are paid for twice).",
    ),
) -> None:
    """Give up a batch whose results keep failing to download: its jobs become pending again,
    and the next run submits them again, paying for them again. Until then every run downloads
    the batch again instead (nothing is sent twice). A batch whose results the provider no
    longer has (HTTP 404/410) is abandoned by the run itself; one whose status poll is answered
    404 (deleted, or submitted with another key) needs --force.

    Examples:

        poemetric batches abandon batch_6820f0a3c1 --run runs/paper
    """
    with existing_run(run) as store:
        found = batch_rows(store, batch_id)
        if not found:
            open_ids = [row.batch_id for row in batch_rows(store) if row.in_flight]
            listed = ", ".join(open_ids) if open_ids else "none"
            raise error_exit(f"run {run} has no batch {batch_id!r}; its open batches: {listed}")
        (row,) = found
        if row.status == "collected":
            raise error_exit(f"batch {batch_id} is collected: its results are stored")
        if row.status == "abandoned":
            typer.echo(f"batch {batch_id} is already abandoned")
            return
        if needs_force(row.status) and not force:
            raise error_exit(
                f"batch {batch_id} was last seen {row.status}: the provider may still answer it "
                "and charge for it; cancel it in the provider's batch list, then abandon it "
                "with --force"
            )
        abandon_batch(store, batch_id, "abandoned by hand (poemetric batches abandon)")
    _console().print(
        f"batch {batch_id} abandoned ({row.stage}, {row.model}, last seen {row.status}): the "
        f"next run of that stage submits its {counted(row.jobs, 'job')} again, and pays for "
        f"{plural(row.jobs, 'it', 'them')} again.",
        markup=False,
    )
