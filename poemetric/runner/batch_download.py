"""A finished batch whose results fail to download for good (`--batch`): kept uncollected for
the next run to download again, or abandoned when the provider can never serve them again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from poemetric.providers.base import BatchStatus, ProviderError
from poemetric.runner.batch_table import abandon_batch, update_batch
from poemetric.runner.jobs import Job
from poemetric.runner.recording import log_attempt, record_failure

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun

#: A results download answered with these: the results file expired or was deleted.
GONE_STATUSES = (404, 410)


def results_gone(error: ProviderError, status: BatchStatus) -> str | None:
    """Why the provider can never serve a batch's results again, if it cannot: it answered the
    download with 404 or 410 (the results file expired or was deleted), or the batch expired
    with no request answered (nothing in it was paid for). Giving it up buys nothing twice."""
    if error.status in GONE_STATUSES:
        return "the provider no longer has its results"
    if status.state == "expired" and not status.completed:
        return "it expired before any request was answered"
    return None


def download_failed(
    run: ModelRun,
    batch_id: str,
    jobs: Sequence[Job],
    state: tuple[BatchStatus, dict[str, Any]],
    error: ProviderError,
) -> None:
    """A finished batch's results failed to download for good (not a refused key). It was paid
    for, so it stays uncollected and the next run downloads it again, never resubmitting its
    jobs; unless the results are gone for good (`results_gone`): the batch is then abandoned,
    its jobs pending again. Either way each job gets an error row (and a call-log entry) that
    says which."""
    status, detail = state
    reason = run.redact(str(error))
    latest = {**detail, "collect_error": reason}
    gone = results_gone(error, status)
    if gone is None:
        update_batch(run.store, batch_id, status.state, latest)
        note = (
            f"batch {batch_id}: results download failed ({reason}); the next run downloads the "
            "batch again (nothing is sent again)"
        )
        run.report.download_failed += len(jobs)
        run.report.uncollected_batches.append(batch_id)
    else:
        abandon_batch(run.store, batch_id, f"{gone}: {reason}", latest)  # one write
        note = (
            f"batch {batch_id}: {gone} ({reason}); batch abandoned: the next run submits this "
            "job again (paid again)"
        )
        run.report.abandoned += len(jobs)
        run.report.abandoned_batches.append(batch_id)
    # Retryable: the next run downloads the batch or submits the job again (`batched` errors,
    # said apart from the calls that fail again as they are).
    described = ProviderError(note, retryable=True, status=error.status)
    for job in jobs:  # logged like any other outcome of a job sent in the batch
        log_attempt(run, job, 1, "error", error=described)
        record_failure(run, job, described, batch_id=batch_id)
