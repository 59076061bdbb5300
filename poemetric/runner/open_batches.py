"""The jobs of a model that sit in a batch an earlier `--batch` run submitted and that is still
open (not collected or abandoned): which they are, and what a command does with them. A run
with `--batch` collects them (`batch_mode`); one without leaves them to their batch, said in one
line, since calling them again would pay for them twice."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from poemetric.runner.batch_intent import split_unconfirmed, unconfirmed_warnings
from poemetric.runner.batch_table import (
    InFlight,
    abandon_command,
    batch_statuses,
    in_flight_batches,
)
from poemetric.runner.jobs import Job
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun


def in_flight(run: ModelRun) -> list[InFlight]:
    return in_flight_batches(run.store, run.handler.table, run.spec.name, run.spec.provider)


def open_batch_jobs(run: ModelRun) -> dict[str, str]:
    """The model's jobs in a batch an earlier `--batch` run submitted that is still open (not
    collected or abandoned): {job key: batch id}. That batch pays for them: a run with --batch
    collects them, one without it leaves them to it; no call of this command pays for them."""
    return {key: batch_id for batch_id, keys in in_flight(run) for key in keys}


def in_batches_text(left: int, ids: Sequence[str]) -> str:
    """`2 jobs are in a batch an earlier --batch run submitted and not collected yet (b-1)`."""
    return (
        f"{counted(left, 'job')} {plural(left, 'is', 'are')} in "
        f"{plural(len(ids), 'a batch', 'batches')} an earlier --batch run submitted and not "
        f"collected yet ({', '.join(ids)})"
    )


def abandon_hint(run: ModelRun, ids: Sequence[str]) -> str:
    """How to call the jobs of the open batches `ids` directly instead of collecting them."""
    command = abandon_command(run.store.run_dir, batch_statuses(run.store, ids))
    return (
        f"to call them now instead, cancel the batch in the provider's batch list, then `{command}`"
    )


def warn_open_batches(
    run: ModelRun,
    left: Sequence[str],
    said: Callable[[Sequence[str]], str],
    unconfirmed_said: str,
) -> None:
    """Count the jobs pending in open batches (`left`: the batch id of each) and say what this
    command does with them: `said(ids)` follows `in_batches_text` for the batches; for the rows
    written before a submission, which are no batch, `unconfirmed_warnings` with
    `unconfirmed_said`."""
    run.report.in_open_batches = len(left)
    ids, unconfirmed = split_unconfirmed(left)
    if ids:
        jobs = len(left) - sum(unconfirmed.values())
        run.report.warnings.append(f"{in_batches_text(jobs, ids)}{said(ids)}")
    run.report.warnings.extend(
        unconfirmed_warnings(run.store, run.handler.table, unconfirmed, unconfirmed_said)
    )


def outside_open_batches(run: ModelRun, pending: Sequence[Job]) -> list[Job]:
    """Without --batch: the jobs not in a batch an earlier `--batch` run submitted and that is
    still open (not collected or abandoned). Called now, they were paid twice: once by this call
    and once by the batch, which the provider still answers and charges. The others are left to
    their batches, said in one line."""
    open_batches = open_batch_jobs(run)
    left = [open_batches[job.key] for job in pending if job.key in open_batches]
    if not left:
        return list(pending)
    warn_open_batches(
        run,
        left,
        lambda ids: (
            f": left to {plural(len(ids), 'it', 'them')}, not called again, which would pay for "
            "them twice. Run the command with --batch to collect them; "
            f"{abandon_hint(run, ids)}"
        ),
        "left to it, not called again, which could pay for them twice (a run with --batch "
        "stops the model on it)",
    )
    calls = [job for job in pending if job.key not in open_batches]
    if run.progress is not None and run.task is not None:
        # The bar counts what this command calls: the jobs left to their batches read `0/N`,
        # and a log reported the model as under way as long as another model ran.
        run.progress.update(run.task, total=len(calls))
    return calls
