"""`--batch`'s own requests to the provider (submission, status poll, results download):
retried as the runner retries a job, and logged in the run's call log (the `calls` table),
beside the jobs' rows.

Every submission attempt (accepted, refused, retried), every status poll that failed, and every
results download (its failures and the download itself) gets a row, so that `poemetric export
calls` shows a refused key or a failing batch API as it shows a failing direct call. Such a row
has the batch id as `cache_key` (`-` for a submission no batch came of) and a `detail` that
starts with what was asked: `batch submission (N requests)`, `batch status poll`, `batch results
download`; its `outcome` is `batch-ok`, `batch-retry` or `batch-error` (the `ok` rows stay one per
answer received: what was paid for), `http_status` and `latency_s` as for a job, the error
redacted (no key is ever written). Status polls that succeed are not logged (a day-long batch is
polled hundreds of times, for free; the `batches` table keeps its last state). Each job of a
collected batch gets its own row, as a direct call does.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from poemetric.providers.base import ProviderError
from poemetric.providers.remote_errors import never_sent
from poemetric.runner import stopping
from poemetric.runner.adapter_bugs import Expected, adapter_call

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun

T = TypeVar("T")

#: The `cache_key` of a submission no batch came of (refused, or failed before an answer).
NO_BATCH = "-"
#: Before the `calls` outcome of a batch request: `batch-ok`, `batch-retry`, `batch-error`.
OUTCOME_PREFIX = "batch-"
#: The longest error kept in a row's detail, as for a job.
DETAIL_CHARS = 500


@dataclass
class BatchRequest:
    """One batch request as the call log names it: `what` it asked (`batch status poll`), of
    `batch_id` (None before a submission is accepted); its `attempts` so far, and the
    `latency_s` of the last one."""

    what: str
    batch_id: str | None = None
    attempts: int = 0
    latency_s: float | None = None


def log_batch_call(
    run: ModelRun,
    request: BatchRequest,
    attempt: int,
    outcome: str,
    *,
    error: ProviderError | None = None,
    note: str | None = None,
) -> None:
    """One row for an attempt of `request`: its `outcome` (`ok`, `retry`, `error`; stored as
    `batch-ok` ...), the provider's `error` (redacted) or a `note` on what came back."""
    if run.options.dry_run:
        return
    said = run.redact(str(error)) if error is not None else note
    detail = request.what if not said else f"{request.what}: {said}"
    run.store.log_call(
        cache_key=request.batch_id or NO_BATCH,
        provider=run.spec.provider,
        model=run.spec.model,
        attempt=attempt,
        outcome=f"{OUTCOME_PREFIX}{outcome}",
        http_status=None if error is None else error.status,
        detail=detail[:DETAIL_CHARS],
        latency_s=request.latency_s,
    )


class GaveUp(Exception):
    """A batch request failed for good: not retryable, or still failing after the retries."""

    def __init__(self, error: ProviderError, attempts: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.attempts = attempts


class Stopped(Exception):
    """A stop (Ctrl-C, SIGTERM) began while a failed batch request waited for its retry: it is
    not retried (the resume does it), as a job is not retried once the runner is stopping."""


async def retried(
    run: ModelRun,
    call: Callable[[], Awaitable[T]],
    request: BatchRequest,
    *,
    returns: Expected,
    also_if: Callable[[ProviderError], bool] | None = None,
    before_retry: Callable[[ProviderError], Awaitable[T | None]] | None = None,
) -> T:
    """`call()` (an adapter's batch method) retried as the runner retries a job (429s, 5xx,
    timeouts; bounded backoff), each failed attempt logged as `request` (`retry`, or `error`
    for the last one; the caller logs what succeeded). `GaveUp` when it fails for good;
    `Stopped` when a stop begins before a retry (the wait for it ends at once); `AdapterBug`
    when it raises anything but a `ProviderError`, or returns something that is not of the type
    `returns` names (logged as an `adapter-error`). `before_retry(error)` runs after the wait
    for each retry (`error`: the failure retried), before the attempt: a value it returns is
    returned instead of calling again (a tagged submission's batch found in the provider's
    list, `batch_retry_search`); what it raises ends the retries."""
    from poemetric.runner.calls import retry_policy

    retrying_after: list[ProviderError] = []

    def before_sleep(error: ProviderError, attempt: int) -> None:
        log_batch_call(run, request, attempt, "retry", error=error)
        retrying_after[:] = [error]

    rng = random.Random(f"{run.options.seed}:{run.spec.name}:batch")
    attempts = 0
    try:
        retrying = retry_policy(run).retrying(
            rng, before_sleep=before_sleep, also_if=also_if, sleep=stopping.pause
        )
        async for attempt in retrying:
            with attempt:
                if attempts and stopping.requested():
                    raise Stopped
                if attempts and before_retry is not None and retrying_after:
                    instead = await before_retry(retrying_after[0])
                    if instead is not None:
                        return instead
                    if stopping.requested():
                        raise Stopped
                attempts += 1
                request.attempts = attempts
                started = time.monotonic()
                try:
                    return await adapter_call(run, call, returns)
                finally:
                    request.latency_s = time.monotonic() - started
    except ProviderError as error:
        log_batch_call(run, request, attempts, "error", error=error)
        raise GaveUp(error, attempts) from error
    raise AssertionError("unreachable: tenacity re-raises the last failure")  # pragma: no cover


#: Error statuses of a server that turned a request away before doing anything with it: too many
#: requests, unavailable, overloaded (Anthropic's 529). Any other 5xx (500, 502, 504: a server or
#: a gateway failing while it handled the request) may come after the batch was created.
REFUSED_5XX = frozenset({503, 529})


def surely_not_accepted(error: ProviderError) -> bool:
    """No batch can have come of the failed submission, so submitting again cannot buy one
    twice: the request never left this machine (connection refused, unknown host, connect or
    pool timeout; `ProviderError.not_sent`), or the provider refused it with a 4xx, a 503 or a
    529. After a read timeout, a dropped connection, an unreadable answer (even a 200's) or a
    500, 502 or 504 the batch may exist (no SDK sends an idempotency key): it is not submitted
    again. A gateway's 503 may come after the batch was created too: a tagged submission
    (`FindsBatches`) looks for its batch in the provider's list before each such retry
    (`batch_retry_search`); an untagged one is retried as it is."""
    if error.not_sent or never_sent(error):
        return True
    status = error.status
    return status is not None and (400 <= status < 500 or status in REFUSED_5XX)


def may_have_created(failed: Exception) -> bool:
    """A submission that failed for good (`GaveUp`, `Stopped`, `AdapterBug`) may have created a
    batch: its answer was lost (`surely_not_accepted` says no), or the adapter raised something
    else than a `ProviderError`, maybe after the batch was created. A stop (`Stopped`) comes
    only before a retry, which follows only failures that surely created none."""
    if isinstance(failed, GaveUp):
        return not surely_not_accepted(failed.error)
    return not isinstance(failed, Stopped)
