"""One `--batch` submission: its row before it is sent (`batch_intent`), the provider's answer
(retried while no batch can have been created, `batch_calls`), then the batch's own row.

A submission that failed for good leaves its row only when the provider may have accepted the
batch all the same (`batch_calls.may_have_created`: the answer was lost, or the adapter raised
something else than a `ProviderError`): the next run then stops the model instead of paying
twice. A refusal (a 4xx, a 503, a 529), a request that never left, or a stop before a retry
removes it: nothing was created, and the next run submits those jobs.

A tagged submission (`FindsBatches`: OpenAI, Gemini) is looked for in the provider's batch list
within this run (`batch_retry_search`): before each retry after a 503 or 529 (a gateway's,
maybe sent after the batch was created), and a few times after a lost answer. The batch found
is taken as the answer would have been; several found stop the model naming them.

A batch API that refuses the tag (`TagRefused`: an OpenAI-compatible server without batch
`metadata` answers 400 or 422 naming it) created no batch: the same batch is submitted again
untagged, once, and the model's later submissions in the run go untagged directly, said once
under the summary. Their lost answers are not looked for: they stop the model as before tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from poemetric.providers.base import BatchCapable, FindsBatches, ProviderError, TagRefused
from poemetric.providers.batch_api import announces_creation, announcing_creation
from poemetric.runner import stopping
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
    new_marker,
    note_submission,
)
from poemetric.runner.batch_retry_search import SeveralFound, TaggedSubmission
from poemetric.runner.batch_table import record_batch
from poemetric.runner.jobs import Job
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun


class SubmissionFailed(Exception):
    """A submission `failed` for good; `kept`, its row when the batch may exist all the same;
    `searched`, what the provider's batch list said of it in this run; `reason`, why the model
    stops when that is not the failure (`failed` None after a refusal): several batches found
    carrying its tag."""

    def __init__(
        self,
        failed: GaveUp | Stopped | AdapterBug | None,
        kept: str | None,
        *,
        searched: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(reason or str(failed))
        self.failed = failed
        self.kept = kept
        self.searched = searched
        self.reason = reason


def _record_batch(
    run: ModelRun,
    batch_id: str | None,
    jobs: Sequence[Job],
    marker: str = "",
    *,
    tagged: bool = False,
) -> str:
    """The batch's row; with no `batch_id`, the row `marker` (a new id by default) written
    before its submission (returned), `tagged` when the batch carries that row's id in the
    provider's list (`FindsBatches`)."""
    where = (run.spec.provider, run.spec.name, run.handler.table)
    keys, detail = _submission_record(run, jobs)
    if batch_id is None:
        return note_submission(
            run.store, where, keys, {**detail, TAGGED: True} if tagged else detail, marker or None
        )
    record_batch(run.store, batch_id, where, keys, detail, replacing=marker or None)
    return batch_id


def _submission_record(
    run: ModelRun, jobs: Sequence[Job]
) -> tuple[dict[str, str], dict[str, object]]:
    """A submission's request keys ({job key: cache key}) and what its batch's row records."""
    keys = {job.key: job.cache_key for job in jobs}
    return keys, {"provider_model": run.spec.model, "requests": len(jobs)}


async def submit(run: ModelRun, provider: BatchCapable, chunk: Sequence[Job]) -> str:
    """Submit `chunk` as one batch; its id, stored before anything else (a stop that ends the
    stage next leaves it for the resume to poll). `SubmissionFailed` when it failed for good.
    A tagged submission's batch found in the provider's list (`batch_retry_search`) is taken
    as its answer."""
    items = [(job.key, job.request) for job in chunk]
    request = BatchRequest(f"batch submission ({counted(len(chunk), 'request')})")
    # Tagged, the next run can find it if the answer is lost; not where the API refused a tag.
    finds = provider if isinstance(provider, FindsBatches) and not run.untagged_batches else None
    row = _SubmissionRow(run, chunk, tagged=finds is not None)
    if not announces_creation(provider):
        row.write()  # any moment of the submission may create the batch
    marker = row.marker  # kept if the process dies once it is written
    search: TaggedSubmission | None = None
    if finds is not None:
        search = TaggedSubmission(run, finds, marker, *_submission_record(run, chunk))
        send = partial(finds.submit_tagged_batch, items, marker)
    else:
        send = partial(provider.submit_batch, items)

    async def before_retry(error: ProviderError) -> str | None:
        # A submission that never came to create its batch is not looked for.
        return None if search is None or not row.written else await search.before_retry(error)

    try:
        with announcing_creation(row.write):
            batch_id = await retried(
                run,
                send,
                request,
                also_if=surely_not_accepted,
                returns=(str, "a batch id (str)"),
                before_retry=before_retry,
            )
    except SeveralFound as several:  # a retry created a second batch: neither is taken
        keep_submission(run.store, marker, several.error)
        raise SubmissionFailed(None, marker, reason=several.reason) from several
    except (GaveUp, Stopped, AdapterBug) as failed:
        if not row.written:  # it failed before the request that creates a batch: none exists
            raise SubmissionFailed(failed, None) from failed
        if not may_have_created(failed):
            refused = failed.error if isinstance(failed, GaveUp) else None
            if search is not None and isinstance(refused, TagRefused):  # a 4xx: no batch made
                drop_submission(run.store, marker)
                return await _submit_untagged(run, provider, chunk, refused)
            if (taken := await _found_after_last_refusal(search, failed)) is not None:
                return taken
            drop_submission(run.store, marker)
            raise SubmissionFailed(failed, None) from failed
        error = failed.error if isinstance(failed, GaveUp) else failed
        said = shortened(run.redact(str(error)))
        keep_submission(run.store, marker, said)
        if search is None or not isinstance(failed, GaveUp):
            raise SubmissionFailed(failed, marker) from failed
        try:
            found = await search.after_lost_answer(said)
        except SeveralFound as several:
            raise SubmissionFailed(failed, marker, reason=several.reason) from several
        if found.adopted is None:
            raise SubmissionFailed(failed, marker, searched=found.note) from failed
        return found.adopted
    if search is not None and search.adopted == batch_id:  # its row written, its search logged
        return batch_id
    _record_batch(run, batch_id, chunk, marker)
    request.batch_id = batch_id
    log_batch_call(run, request, request.attempts, "ok", note="accepted")
    return batch_id


class _SubmissionRow:
    """The row of one submission in the `batches` table (`batch_intent`): its id, and whether
    it is written. Written before the submission, or, for an adapter that `announces_creation`,
    when it says `creating_batch()`: right before the request that may create the batch, so
    that a process killed before it (importing its SDK, uploading an input file) leaves no row,
    and the next run submits those jobs instead of stopping the model."""

    def __init__(self, run: ModelRun, chunk: Sequence[Job], *, tagged: bool) -> None:
        self.run = run
        self.chunk = chunk
        self.tagged = tagged
        self.marker = new_marker()
        self.written = False

    def write(self) -> None:
        if not self.written:  # once: a retried submission announces each attempt
            _record_batch(self.run, None, self.chunk, self.marker, tagged=self.tagged)
            self.written = True


async def _found_after_last_refusal(
    search: TaggedSubmission | None, failed: GaveUp | Stopped | AdapterBug
) -> str | None:
    """A tagged submission whose last attempt was answered 503 or 529 (no retry left): the
    batch found carrying its tag (taken), which the next run would buy again; else None."""
    if search is None or not isinstance(failed, GaveUp) or stopping.requested():
        return None
    try:
        return await search.before_retry(failed.error)
    except SeveralFound as several:
        keep_submission(search.run.store, search.marker, several.error)
        raise SubmissionFailed(None, search.marker, reason=several.reason) from several


async def _submit_untagged(
    run: ModelRun, provider: BatchCapable, chunk: Sequence[Job], refused: TagRefused
) -> str:
    """The batch API `refused` the tag of `chunk`'s submission, which created no batch: the
    same batch submitted again untagged (once: the model's submissions in this run go untagged
    from now on), said once under the summary."""
    said = shortened(run.redact(str(refused)))
    run.untagged_batches = True
    run.report.warnings.append(
        f"its batch API refused the tag sent with each batch submission ({said}); no batch "
        "came of that refusal, and its batches in this run were submitted untagged. The "
        "provider's batch list cannot be searched for them: a lost answer to a submission (a "
        "timeout, a dropped connection, a 500) stops the model, its jobs not submitted again, "
        "until you look for that batch in the provider's batch list and give its row up with "
        "`batches abandon ... --force`"
    )
    if stopping.requested():  # the resumed run submits it
        raise SubmissionFailed(Stopped(), None) from refused
    return await submit(run, provider, chunk)
