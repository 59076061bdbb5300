"""`--batch`: provider batch APIs (OpenAI Batch, Anthropic Message Batches, Gemini batch mode).

Resumable by construction:

* a batch's id and the keys of its requests go into the `batches` table right after the provider
  accepts it, before any waiting, so a restarted run finds it and polls it instead of
  resubmitting; a row written before the submission covers a process killed while it is in
  flight, or whose answer was lost (a timeout, a dropped connection, a 500), covers a batch the
  provider may have accepted (`poemetric.runner.batch_intent`, `batch_submit`): the next run
  stops the model rather than pay twice, unless it finds that batch in the provider's batch
  list by the row's id, which the batch carries (`batch_adopt`; the run that lost the answer
  searches a few times first, and before retrying after a 503 or 529: `batch_retry_search`);
* a restarted run submits only jobs that are neither done, cached, nor inside a batch still in
  flight (`poemetric.runner.open_batches`: a run without --batch leaves those to their batch);
* results are stored one by one (row + cache entry in one transaction), then the batch is marked
  'collected'; collecting twice is harmless because stored successes are never overwritten;
* a submission or status poll that fails is retried like a job (429s, 5xx, timeouts; bounded
  backoff), each attempt in the call log (`poemetric.runner.batch_calls`). One that fails for
  good stops the model alone, its jobs left pending (a batch
  already submitted stays in the table, polled by the next run; one whose poll is answered 404
  is marked 'not found (404)', `poemetric.runner.batch_unknown`). A submission is retried only
  when no batch can have been created: the provider refused it (a 4xx, a 503, a 529), or the
  request never left (`batch_calls.surely_not_accepted`); after a 503 or 529 a tagged
  submission is first looked for in the provider's batch list (`batch_retry_search`). A stop
  (Ctrl-C, SIGTERM) ends the wait for a retry and starts none.
* a finished batch whose results fail to download for good (a 5xx after the retries, a 400;
  not a refused key, which stops the model as above) was paid for: its pending jobs get error
  rows (and call-log entries) with the download's error, and the batch row keeps its state plus
  a `collect_error` in `detail`, not 'collected'. The next run therefore polls it and downloads
  the results again, never resubmitting its jobs; the results replace the error rows. Results
  gone for good (a 404 or 410, or a batch expired with nothing answered) abandon the batch
  instead: its jobs are pending again, and the next run submits them again
  (`poemetric.runner.batch_download`; `poemetric batches abandon` does the same by hand).
* a batch method of the adapter that raises something other than `ProviderError` (a bug in a
  third-party adapter) stops the model alone the same way, its traceback in the call log
  (`poemetric.runner.adapter_bugs`).

Custom ids are the jobs' stable keys (generation_id / judgment_id): 16 hex characters, valid for
every provider's id rules.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from poemetric.providers.base import (
    BatchCapable,
    BatchStatus,
    Completion,
    Provider,
    ProviderError,
)
from poemetric.runner import stopping
from poemetric.runner.adapter_bugs import (
    AdapterBug,
    check_batch_status,
    note_adapter_bug,
    shortened,
    stop_for_adapter_bug,
)
from poemetric.runner.batch_adopt import search_lost
from poemetric.runner.batch_calls import BatchRequest, GaveUp, Stopped, log_batch_call, retried
from poemetric.runner.batch_download import download_failed
from poemetric.runner.batch_intent import (
    lost_advice,
    unconfirmed_here,
    unconfirmed_reason,
)
from poemetric.runner.batch_split import split_batches
from poemetric.runner.batch_submit import SubmissionFailed, submit
from poemetric.runner.batch_table import InFlight, update_batch
from poemetric.runner.batch_unknown import UNKNOWN_STATUSES, mark_not_found, unknown_batch_advice
from poemetric.runner.completion_check import completion_problem
from poemetric.runner.cost import budget_cost
from poemetric.runner.jobs import Job, completion_to_dict
from poemetric.runner.open_batches import in_flight
from poemetric.runner.recording import (
    estimate,
    log_attempt,
    record_completion,
    record_failure,
    resolve_from_cache,
)
from poemetric.runner.retry import is_auth_failure
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun


async def run_batch_api(run: ModelRun, provider: BatchCapable, pending: Sequence[Job]) -> None:
    by_key = {job.key: job for job in pending}
    waiting: list[InFlight] = []
    covered: set[str] = set()
    unconfirmed: list[tuple[str, int]] = []
    marker_keys: dict[str, dict[str, str]] = {}
    for batch in in_flight(run):
        covered.update(batch.keys)
        if batch.unconfirmed:  # a submission whose answer was never stored
            marker_keys[batch.batch_id] = batch.keys
            if here := _pending_in(batch.keys, by_key):  # a live process leases its jobs
                unconfirmed_here(run, batch.batch_id, here, unconfirmed)
            continue
        waiting.append(batch)
    to_submit = [job for job in pending if job.key not in covered]
    unconfirmed, searched = await search_lost(run, provider, unconfirmed, marker_keys, waiting)
    run.report.batch_ids.extend(batch.batch_id for batch in waiting)
    if unconfirmed:  # submitting more could pay twice: the batches in flight are collected
        run.stop_mid_run(unconfirmed_reason(run.store, run.handler.table, unconfirmed, searched))
        run.leave_pending(sum(n for _, n in unconfirmed) + len(to_submit))
        to_submit = []
    reserved: dict[str, float] = {}
    planned = split_batches(provider, to_submit, run.options.batch_max_items)
    placed = 0  # jobs of the batches planned so far
    while True:
        try:
            batch_jobs = next(planned, None)
        except AdapterBug as bug:  # nothing more submitted: the batches in flight are collected
            _stop_model(run, bug, "submission", jobs=len(to_submit) - placed)
            break
        if batch_jobs is None:
            break
        placed += len(batch_jobs)
        chunk: list[Job] = []
        for job in batch_jobs:
            guess = estimate(run, job, batch=True, reserve=True)
            if not run.budget.try_reserve(guess.cost_usd):  # this job alone: cheaper ones run
                run.report.skip_for_budget(reask=job.turn > 0)
                run.advance()
                continue
            reserved[job.key] = guess.cost_usd
            chunk.append(job)
        if not chunk:
            continue
        if not stopping.starting_call():  # a stop (Ctrl-C, SIGTERM): submit nothing more
            _release(run, reserved, [job.key for job in chunk])
            break
        try:
            batch_id = await submit(run, provider, chunk)
        except SubmissionFailed as failure:
            # This chunk and the next stay pending; batches already submitted are still collected.
            _release(run, reserved, [job.key for job in chunk])
            left = len(chunk) + len(to_submit) - placed
            if failure.failed is None or failure.reason:  # several batches carry its tag
                run.stop_mid_run(failure.reason or str(failure))
                run.leave_pending(left)
            else:
                kept = (failure.kept, failure.searched)
                _stop_model(run, failure.failed, "submission", jobs=left, kept=kept)
            break
        finally:
            stopping.call_done()
        waiting.append(InFlight(batch_id, {job.key: job.cache_key for job in chunk}))
        run.report.batch_ids.append(batch_id)
    follow_ups: list[Job] = []
    await asyncio.gather(
        *(
            _wait_and_collect(run, provider, bid, keys, by_key, reserved, follow_ups)
            for bid, keys in waiting
        )
    )
    if follow_ups and isinstance(provider, Provider):
        # Follow-up turns (a judge re-asking an unusable answer) are few: the synchronous API
        # answers them now instead of another day-long batch round.
        from poemetric.runner.calls import run_concurrent

        await run_concurrent(run, provider, follow_ups)


def _release(run: ModelRun, reserved: dict[str, float], keys: Iterable[str]) -> None:
    """Give back the budget reserved for the jobs `keys`: nothing was paid for them."""
    for key in keys:
        run.budget.settle(reserved.pop(key, 0.0), 0.0)


def _pending_in(keys: Iterable[str], by_key: Mapping[str, Job]) -> int:
    """How many of a batch's `keys` are jobs pending in this invocation."""
    return sum(1 for key in keys if key in by_key)


def _stop_model(
    run: ModelRun,
    failed: GaveUp | Stopped | AdapterBug,
    step: str,
    batch_id: str | None = None,
    *,
    jobs: int,
    kept: tuple[str | None, str | None] = (None, None),
) -> None:
    """After a batch `step` ('submission', 'status poll' of `batch_id`; 'results' for a refused
    key only) failed: stop the model, its `jobs` left for the next run, when the adapter has a
    bug (`AdapterBug`), the provider refused the key or the step failed for good (`GaveUp`).
    Nothing after a stop (`Stopped`): the resumed run does those jobs. `kept`: the row of a
    submission that may have created a batch all the same, said with what to do, and what the
    provider's batch list said of it in this run (`batch_retry_search`)."""
    marker, searched = kept
    advice = lost_advice(run.store, marker) if marker else None
    if advice and searched:
        advice = f"{searched}; {advice}"
    if isinstance(failed, AdapterBug):
        stop_for_adapter_bug(run, failed, batch_id, jobs=jobs, kept=advice)
        return
    if isinstance(failed, Stopped):
        return
    error = failed.error
    if is_auth_failure(error):
        run.stop_for_auth(error.status or 0)
    else:
        message = shortened(run.redact(str(error)))
        tries = f" after {failed.attempts} attempts" if failed.attempts > 1 else ""
        status = (
            f" (HTTP {error.status})"
            if error.status and f"HTTP {error.status}" not in message
            else ""
        )
        reason = f"batch {step} failed{tries}{status}: {message}"
        if step == "status poll" and batch_id and error.status in UNKNOWN_STATUSES:
            since = mark_not_found(run.store, batch_id, error.status, message)
            reason += unknown_batch_advice(
                run.spec, (batch_id, error.status), run.store.run_dir, since
            )
        if advice:
            reason += f" ({advice})"
        run.stop_mid_run(reason)
    run.leave_pending(jobs)


def _detail(run: ModelRun, status: BatchStatus) -> dict[str, Any]:
    detail: dict[str, Any] = {
        "state": status.state,
        "total": status.total,
        "completed": status.completed,
        "failed": status.failed,
    }
    if status.error:  # why it failed, where the provider says (Gemini)
        detail["error"] = run.redact(status.error)
    return detail


async def _wait_and_collect(
    run: ModelRun,
    provider: BatchCapable,
    batch_id: str,
    keys: dict[str, str],
    by_key: dict[str, Job],
    reserved: dict[str, float],
    follow_ups: list[Job],
) -> None:
    delay = run.options.batch_poll_s
    while True:
        try:
            status: BatchStatus = await retried(
                run,
                partial(provider.batch_status, batch_id),
                BatchRequest("batch status poll", batch_id),
                returns=(BatchStatus, "a poemetric.providers.BatchStatus"),
            )
            check_batch_status(status)  # an unknown state is stored nowhere
        except (GaveUp, Stopped, AdapterBug) as failed:
            # Left uncollected: the next run polls it again instead of paying twice.
            _release(run, reserved, keys)
            _stop_model(run, failed, "status poll", batch_id, jobs=_pending_in(keys, by_key))
            return
        detail = _detail(run, status)
        update_batch(run.store, batch_id, status.state, detail)
        if status.done:
            break
        await asyncio.sleep(delay)
        delay = min(run.options.batch_poll_max_s, delay * 1.5)
    if not stopping.starting_call():  # a stop: the provider keeps the results for the next run
        return
    try:
        await _collect(run, provider, batch_id, keys, (by_key, reserved, follow_ups), status)
    finally:
        stopping.call_done()


async def _collect(
    run: ModelRun,
    provider: BatchCapable,
    batch_id: str,
    keys: dict[str, str],
    pending: tuple[dict[str, Job], dict[str, float], list[Job]],
    status: BatchStatus,
) -> None:
    """Fetch a finished batch's results and store them; mark the batch 'collected'."""
    by_key, reserved, follow_ups = pending
    detail = _detail(run, status)
    request = BatchRequest("batch results download", batch_id)
    try:
        results = await retried(
            run,
            partial(provider.batch_results, batch_id),
            request,
            returns=(Mapping, "a dict of results by custom id"),
        )
    except Stopped:  # the provider keeps the results for the resume
        _release(run, reserved, keys)
        return
    except AdapterBug as bug:  # left uncollected: the next run (a fixed adapter) collects it
        _release(run, reserved, keys)
        stop_for_adapter_bug(run, bug, batch_id, jobs=_pending_in(keys, by_key))
        return
    except GaveUp as failed:
        if is_auth_failure(failed.error):  # a refused key stops the model, as at submission
            _release(run, reserved, keys)
            _stop_model(run, failed, "results", batch_id, jobs=_pending_in(keys, by_key))
            return
        _release(run, reserved, keys)
        jobs = [by_key[key] for key in keys if key in by_key]
        download_failed(run, batch_id, jobs, (status, detail), failed.error)
        return
    log_batch_call(run, request, request.attempts, "ok", note=counted(len(results), "result"))
    for key, cache_key in keys.items():
        result = results.get(key)
        job = by_key.get(key)
        if result is None:
            why = f" (the batch {status.state}: {run.redact(status.error)})" if status.error else ""
            result = ProviderError(
                f"batch {batch_id} returned no result for {key}{why}", retryable=True
            )
        elif isinstance(result, ProviderError):
            note_adapter_bug(run, "batch_results", result, cache_key)  # its status checked
        elif not isinstance(result, Completion | ProviderError):  # the adapter's bug: this job
            result = ProviderError(
                f"provider {run.spec.provider!r} returned {type(result).__name__} for {key} in "
                "batch_results, not a poemetric.providers.Completion or ProviderError",
                retryable=False,
            )
        elif (problem := completion_problem(result)) is not None:  # the adapter's bug too
            result = ProviderError(
                f"provider {run.spec.provider!r} returned {problem} for {key} in batch_results",
                retryable=False,
            )
        if job is None:
            # Not pending in this invocation (done meanwhile, or outside this shard): keep
            # the paid response in the cache so that whoever needs it replays it.
            if isinstance(result, Completion):
                run.store.cache_completion(
                    cache_key,
                    run.spec.provider,
                    run.spec.model,
                    run.redact_completion(completion_to_dict(result)),
                )
            continue
        if isinstance(result, Completion):
            held = reserved.pop(key, 0.0)
            run.budget.settle(held, budget_cost(run.spec, result.usage, held, batch=True))
            log_attempt(run, job, 1, "ok", latency_s=result.latency_s)
            follow_up = resolve_from_cache(
                run, record_completion(run, job, result, batch_id=batch_id)
            )
            if follow_up is not None:
                follow_ups.append(follow_up)
        else:
            run.budget.settle(reserved.pop(key, 0.0), 0.0)
            log_attempt(run, job, 1, "error", error=result)
            record_failure(run, job, result, batch_id=batch_id)
    update_batch(run.store, batch_id, "collected", detail)
