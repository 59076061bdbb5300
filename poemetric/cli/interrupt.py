"""Ctrl-C during a long command: say that nothing is lost and how to resume."""

from __future__ import annotations

import shlex
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.closed_output import OutputClosed
from poemetric.cli.markup import plain
from poemetric.hints import make_command, program, recorded_dataset, run_by_make
from poemetric.runner import stopping
from poemetric.runner.batch_table import BatchRow, abandon_command, batch_rows
from poemetric.runner.report import StageInterrupted
from poemetric.store.db import RunStore, StoreError
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.probes.scorers.cache import ScoreCache

#: The end of `generate --help` and `judge --help`: what a stop costs, and the exit statuses.
STOPPING_HELP = (
    "Ctrl-C or SIGTERM (a scheduler's time limit) lets the requests in flight be answered and "
    "stored first, for at most POEMETRIC_STOP_GRACE seconds (default 20); a second one stops at "
    "once. Exit status: 0 every job stored; 1 jobs left undone (error rows, a model that cannot "
    "run, --max-cost): run the same command again; 2 unusable input, nothing done; 130 / 143 "
    "stopped by Ctrl-C / SIGTERM (SIGHUP, SIGUSR1: 129, 138); 141 the reader of its output "
    "went away (`| head`): what was answered is stored, the same command again does the rest. "
    "See docs/running.md."
)


def resume_command() -> str:
    """The command line that was run (what to type to resume): under make, the make command
    that runs it (`make generate RUN=... MODELS=...`: a make user's venv is not activated, so
    `poemetric` is not on their PATH), or `.venv/bin/poemetric ...` for a command with no make
    target; else `poemetric ...`."""
    return command_line(sys.argv[1:])


def command_line(arguments: list[str]) -> str:
    """poemetric's `arguments` as the command to type: under make, the make command that runs
    them (`make generate RUN=... MODELS=...`), or `.venv/bin/poemetric ...` for a command with no
    make target; else `poemetric ...`."""
    if run_by_make():
        return make_command(arguments) or shlex.join([program(), *arguments])
    return shlex.join(["poemetric", *arguments])


#: A stage's table in the `batches` table: the command that collects its batches, and the
#: option naming its models.
STAGE_COMMANDS = {"generations": ("generate", "--models"), "judgments": ("judge", "--judge")}


@contextmanager
def interruptible(
    run: Path, stage: str | None = None, models: Iterable[str] | None = None
) -> Iterator[None]:
    """Turn Ctrl-C or SIGTERM into a clear message and exit status 130 or 143 (the run store
    stays consistent: every answer received was stored with its row; the requests in flight
    were let finish, within the grace, unless a second signal stopped them: those are asked
    again; `poemetric.runner.stopping`). Batches still open at the provider (`--batch`) are
    named: the resume collects those of `stage` (the stage's table, e.g. 'judgments') and
    `models` (spec names; None: every stage and model), `batches list` / `abandon` give them
    up; the others are left to the command that collects them, named."""
    open_batches: list[BatchRow] = []
    names = None if models is None else set(models)

    def ours(row: BatchRow) -> bool:
        return stage in (None, row.stage) and (names is None or row.model in names)

    def then() -> str:
        found = _open_batches(run)
        open_batches.extend(row for row in found if ours(row))
        others = [row for row in found if not ours(row)]
        dataset = _run_dataset(run) if any(r.stage == "generations" for r in others) else None
        return (
            f"{_saved_line(run)}{_open_batches_line(open_batches)}"
            f"{_other_stages_line(others, run, dataset)} Resume with:"
        )

    with _stopped(then, lambda: _giving_up(open_batches, run)):
        yield


def _saved_line(run: Path) -> str:
    """What the stop kept; and the requests it dropped in flight, whose answers are lost."""
    dropped, because = stopping.dropped_requests()
    if not dropped:
        return (
            f"Every answer received so far is saved in {plain(run)}; nothing is lost and nothing "
            "stored is paid for twice."
        )
    them = plural(dropped, "it", "them")
    return (
        f"Every answer received so far is saved in {plain(run)}, and nothing stored is paid for "
        f"twice; but {counted(dropped, 'request')} still in flight {plural(dropped, 'was', 'were')} "
        f"dropped ({plain(because)}): the provider may charge for {them}, and the resume asks "
        f"{them} again."
    )


def _open_batches(run: Path) -> list[BatchRow]:
    """The run's batches not collected nor abandoned (none when the run cannot be read)."""
    try:
        with RunStore(run, create=False) as store:
            return [row for row in batch_rows(store) if row.in_flight]
    except (StoreError, sqlite3.Error, OSError):
        return []


def _run_dataset(run: Path) -> str | None:
    """The dataset `run` was prepared from, as `--dataset` takes it (None when the run cannot be
    read or records none): `generate` without it takes the demo dataset, which the run refuses."""
    try:
        with RunStore(run, create=False) as store:
            return recorded_dataset(store)
    except (StoreError, sqlite3.Error, OSError):
        return None


def _open_batches_line(rows: list[BatchRow]) -> str:
    """The open batches the resume collects; a submission cut before the provider's answer was
    stored (`unconfirmed-...`) is no batch the resume can collect: it stops the model instead."""
    cut = [row for row in rows if row.unconfirmed]
    rows = [row for row in rows if not row.unconfirmed]
    said = ""
    if rows:
        n, jobs = len(rows), sum(row.jobs for row in rows)
        them = plural(n, "it", "them")
        said = (
            f" {counted(n, 'batch', 'batches')} ({counted(jobs, 'job')}) {plural(n, 'is', 'are')} "
            f"still open at the provider, which answers {them} and charges for {them} meanwhile: "
            f"resuming with --batch collects {them} (nothing is submitted again)."
        )
    if cut:
        jobs = sum(row.jobs for row in cut)
        said += (
            f" A batch submission ({counted(jobs, 'job')}) was cut before the provider's answer "
            "was stored: the provider may have accepted it, so the resume does not submit those "
            "jobs again but stops the model and says how to check (`poemetric batches list`)."
        )
    return said


def _other_stages_line(rows: list[BatchRow], run: Path, dataset: str | None = None) -> str:
    """The open batches of the other stages or models than those stopped, by the command that
    collects them (this command's resume does not): as `command_line` writes it, under make the
    make target (`generate`'s with the run's `dataset` unless it is the default demo one)."""
    said = []
    for stage in sorted({row.stage for row in rows}):
        mine = [row for row in rows if row.stage == stage]
        n, jobs = len(mine), sum(row.jobs for row in mine)
        them = plural(n, "it", "them")
        command, option = STAGE_COMMANDS.get(stage, (None, ""))
        models = ",".join(dict.fromkeys(row.model for row in mine))
        if command:
            named = (
                ["--dataset", dataset]
                if command == "generate" and dataset not in (None, "demo")
                else []
            )
            line = [command, "--run", str(run), *named, option, models, "--batch"]
            collect = f"`{plain(command_line(line))}` does, with the other options it was run with"
        else:
            collect = f"the {plain(stage)} stage's command with --batch does"
        said.append(
            f" {counted(n, 'other batch', 'other batches')} ({counted(jobs, 'job')}), of the "
            f"{plain(stage)} stage, {plural(n, 'is', 'are')} open at the provider too: "
            f"resuming this command does not collect {them}; {collect}."
        )
    return "".join(said)


def _giving_up(rows: list[BatchRow], run: Path) -> str:
    """For whoever wants to stop for good: how to give the open batches up."""
    if not rows:
        return ""
    n = len(rows)
    them = plural(n, "it", "them")
    where = shlex.quote(str(run))
    abandon = abandon_command(run, {row.batch_id: row.status for row in rows})
    return (
        f"To stop for good instead, cancel {them} in the provider's batch list, then give "
        f"{them} up: `{program()} batches list --run {where}` lists {them}, `{abandon}` gives "
        f"{plural(n, 'it', 'one')} up (a later run submits {plural(n, 'its', 'their')} jobs "
        "again)."
    )


@contextmanager
def nothing_written(output: Path, until: str, cache: ScoreCache | None = None) -> Iterator[None]:
    """Ctrl-C or SIGTERM in a command that writes `output` only at its end (`probe build`, a
    local scorer of `probe run`, `until` "every pair is scored"): say that nothing was written,
    how many texts scored so far `cache` keeps for the rerun, and how to run it again; exit
    status 130 or 143, as `interruptible` does."""

    def then() -> str:
        kept = cache.kept() if cache is not None else 0
        held = (
            f" {counted(kept, 'scored text')} {plural(kept, 'is', 'are')} kept "
            f"in {plain(cache.path)}: the rerun scores only the others."
            if cache is not None and kept
            else ""
        )
        return (
            f"Nothing was written: {plain(output)} is written once {until}.{held} Run it again "
            "with:"
        )

    with _stopped(then):
        yield


@contextmanager
def files_interrupted(folder: Path, what: str) -> Iterator[None]:
    """Ctrl-C or SIGTERM in a command that writes `what` (analyze's tables, the figures) into
    `folder` one file at a time: name the files written (or removed) before the stop, and say
    that none is half-written (each is written aside and moved into place,
    `poemetric.paths.replaced_when_done`), so that the folder then mixes this command's files
    with an earlier run's; exit status 130 or 143, as `interruptible` does."""
    before = _file_stamps(folder)

    def then() -> str:
        now = _file_stamps(folder)
        written = sorted(name for name, stamp in now.items() if before.get(name) != stamp)
        removed = sorted(set(before) - set(now))
        if not written and not removed:
            return f"Nothing was written: {plain(folder)} is as it was. Run it again with:"
        said = f"{counted(len(written), 'file')} of {what} {plural(len(written), 'was', 'were')} "
        said += f"written in {plain(folder)} before the stop{_some(written)}"
        if removed:
            said += f", {counted(len(removed), 'earlier file')} removed{_some(removed)}"
        others = (
            "the others are an earlier run's or missing, so the folder mixes two runs"
            if set(before) - set(written)
            else "the others are missing"
        )
        return (
            f"{said}; none is half-written (each file is written aside, then moved into place), "
            f"but {others}. Run it again with:"
        )

    with _stopped(then):
        yield


@contextmanager
def file_interrupted(path: Path, until: str) -> Iterator[None]:
    """Ctrl-C or SIGTERM in a command that writes one file, whole, at its end (the report,
    `until` "the report is built"): say whether it was written; exit status 130 or 143."""
    before = _file_stamps(path.parent, [path])

    def then() -> str:
        if _file_stamps(path.parent, [path]) != before:
            return f"{plain(path)} was written, whole, just before the stop. Run it again with:"
        kept = " (the earlier one is kept, whole)" if before else ""
        return (
            f"Nothing was written: {plain(path)} is written once {until}{kept}. Run it again with:"
        )

    with _stopped(then):
        yield


@contextmanager
def checks_interrupted(run: Path, force: bool) -> Iterator[None]:
    """Ctrl-C or SIGTERM in `form run`, which stores each verdict as it is made: say that those
    made are kept and what the same command does; exit status 130 or 143."""
    again = (
        "the same command with --force checks them all again, without --force only the others"
        if force
        else "the same command checks only the others"
    )
    with _stopped(
        f"The form checks made before the stop are stored in {plain(run)}, each as it was made; "
        f"{again}. Run it again with:"
    ):
        yield


def _file_stamps(folder: Path, files: Iterable[Path] | None = None) -> dict[str, tuple[int, int]]:
    """Each file directly in `folder` (or each of `files`) by its path relative to `folder`: its
    modification time and size; none for a folder that cannot be read. Not the files of its
    subfolders: analyze and figures write theirs at the top, and an `--out` pointed at a big
    tree (a project folder) was walked in full, twice, its other files named as written."""
    stamps: dict[str, tuple[int, int]] = {}
    with suppress(OSError):
        for path in folder.iterdir() if files is None else files:
            with suppress(OSError):
                if path.is_file() and not path.name.endswith(".tmp"):
                    stat = path.stat()
                    stamps[str(path.relative_to(folder))] = (stat.st_mtime_ns, stat.st_size)
    return stamps


def _some(names: list[str], shown: int = 4) -> str:
    """` (a.csv, b.csv, ...)`: the first `shown` of `names`."""
    more = ", …" if len(names) > shown else ""
    return f" ({', '.join(plain(name) for name in names[:shown])}{more})" if names else ""


@contextmanager
def _stopped(
    then: str | Callable[[], str], after: Callable[[], str] | None = None
) -> Iterator[None]:
    """Ctrl-C or SIGTERM: the stopped stage's summary (`StageInterrupted`), "Interrupted." and
    `then` (Rich markup; a function is called then), the command to type again, `after()`
    (plain text) when it says anything, and exit status 130 or 143."""
    try:
        yield
    except KeyboardInterrupt as stop:
        if isinstance(stop, StageInterrupted):
            # What the stage did and spent until the stop, as after a finished run: counts kept
            # in memory, printed once the stage's calls ended (not in the signal handler). A
            # further signal while it prints skips the rest of it, not the resume hint; so does
            # a stdout whose reader is gone (Ctrl-C stopped `| tee log` too): the summary is
            # lost there, as a finished stage's is, and the hint still goes to stderr.
            with suppress(KeyboardInterrupt, OutputClosed):
                stop.report.render(Console(emoji=False))
        console = Console(emoji=False, stderr=True)
        said = then() if callable(then) else then
        # stderr gone too (`2>&1 | tee log`): nothing can be said, the status still tells the
        # stop (130 / 143: run again), not 141.
        with suppress(OutputClosed):
            console.print(
                f"\n[yellow]Interrupted{stopping.by_signal()}.[/yellow] {said}",
                highlight=False,
                soft_wrap=True,
            )
            console.print(f"  {resume_command()}", highlight=False, markup=False, soft_wrap=True)
            if after is not None and (more := after()):
                console.print(more, highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=stopping.exit_status(stopping.received())) from None
