"""One `--batch` submission: its row before it is sent (`batch_intent`), the provider's answer
(retried while no batch can have been created, `batch_calls`), then the batch's own row.

A submission that failed for good leaves its row only when the provider may have accepted the
batch all the same (`batch_calls.may_have_created`: the answer was lost, or the adapter raised
something else than a `ProviderError`): the next run then stops the model instead of paying
twice. A refusal (a 4xx, a 503, a 529), a request that never left, or a stop before a retry
removes it: nothing was created, and the next run submits those jobs.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from poemetric.providers.base import BatchCapable, FindsBatches
from poemetric.runner.adapter_bugs import AdapterBug, shortened
from poemetric.runner.batch_calls import (
    BatchRequest,
    GaveUp,
    Stopped,
    log_batch_call,
    may_have_created,
    retried,
    surely_not_accepted,
)
from poemetric.runner.batch_intent import (
    TAGGED,
    drop_submission,
    keep_submission,
    note_submission,
)
from poemetric.runner.batch_table import record_batch
from poemetric.runner.jobs import Job
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun


class SubmissionFailed(Exception):
    """A submission `failed` for good; `kept`, its row when the batch may exist all the same."""

    def __init__(self, failed: GaveUp | Stopped | AdapterBug, kept: str | None) -> None:
        super().__init__(str(failed))
        self.failed = failed
        self.kept = kept


def _record_batch(
    run: ModelRun,
    batch_id: str | None,
    jobs: Sequence[Job],
    marker: str = "",
    *,
    tagged: bool = False,
) -> str:
    """The batch's row; with no `batch_id`, the row written before its submission (returned),
    `tagged` when the batch carries that row's id in the provider's list (`FindsBatches`)."""
    where = (run.spec.provider, run.spec.name, run.handler.table)
    keys = {job.key: job.cache_key for job in jobs}
    detail: dict[str, object] = {"provider_model": run.spec.model, "requests": len(jobs)}
    if batch_id is None:
        return note_submission(
            run.store, where, keys, {**detail, TAGGED: True} if tagged else detail
        )
    record_batch(run.store, batch_id, where, keys, detail, replacing=marker or None)
    return batch_id


async def submit(run: ModelRun, provider: BatchCapable, chunk: Sequence[Job]) -> str:
    """Submit `chunk` as one batch; its id, stored before anything else (a stop that ends the
    stage next leaves it for the resume to poll). `SubmissionFailed` when it failed for good."""
    items = [(job.key, job.request) for job in chunk]
    request = BatchRequest(f"batch submission ({counted(len(chunk), 'request')})")
    tagged = isinstance(provider, FindsBatches)  # the next run can find it if the answer is lost
    marker = _record_batch(run, None, chunk, tagged=tagged)  # kept if the process dies meanwhile
    send = (
        partial(provider.submit_tagged_batch, items, marker)
        if isinstance(provider, FindsBatches)
        else partial(provider.submit_batch, items)
    )
    try:
        batch_id = await retried(
            run,
            send,
            request,
            also_if=surely_not_accepted,
            returns=(str, "a batch id (str)"),
        )
    except (GaveUp, Stopped, AdapterBug) as failed:
        if not may_have_created(failed):
            drop_submission(run.store, marker)
            raise SubmissionFailed(failed, None) from failed
        error = failed.error if isinstance(failed, GaveUp) else failed
        keep_submission(run.store, marker, shortened(run.redact(str(error))))
        raise SubmissionFailed(failed, marker) from failed
    _record_batch(run, batch_id, chunk, marker)
    request.batch_id = batch_id
    log_batch_call(run, request, request.attempts, "ok", note="accepted")
    return batch_id
