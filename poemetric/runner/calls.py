"""Executing one model's pending jobs: concurrent API calls with retries, or offline chunks."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from poemetric.providers.base import Completion, Provider, ProviderError
from poemetric.runner import feed, loading, stopping
from poemetric.runner.adapter_bugs import (
    AdapterBug,
    batch_answers,
    chunk_limit,
    note_adapter_bug,
    stop_for_adapter_bug,
)
from poemetric.runner.completion_check import completion_problem
from poemetric.runner.cost import budget_cost
from poemetric.runner.jobs import Job
from poemetric.runner.ratelimit import ModelLimiter
from poemetric.runner.recording import (
    Estimate,
    as_provider_error,
    estimate,
    log_attempt,
    record_completion,
    record_failure,
    resolve_from_cache,
)
from poemetric.runner.retry import (
    RetryPolicy,
    is_auth_failure,
    is_model_not_found,
    is_rate_limit,
    model_not_found_reason,
)

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun

log = logging.getLogger(__name__)


class _NotCalled(Exception):
    """The job is left for later: over the --max-cost budget, or its model was stopped."""


class _Stopping(_NotCalled):
    """The job is left for the resumed run: the command is stopping (Ctrl-C, SIGTERM)."""


@dataclass
class _JobState:
    guess: Estimate
    reserved: bool = False
    latency_s: float | None = None


def retry_policy(run: ModelRun) -> RetryPolicy:
    """The model's retry policy: its `limits.max_retries`, the run's backoff options."""
    return RetryPolicy(
        max_retries=run.spec.limits.max_retries,
        base_s=run.options.retry_base_s,
        cap_s=run.options.retry_cap_s,
    )


async def run_concurrent(run: ModelRun, provider: Provider, jobs: Sequence[Job]) -> None:
    """Every job, begun in order a bounded number at a time (`feed`), paced by the model's
    adaptive limiter; each retried per the policy."""
    policy = retry_policy(run)
    limiter = ModelLimiter(
        run.spec.limits,
        concurrency=run.options.concurrency,
        max_hold_s=policy.max_retry_after_s,
        outage_base_s=policy.base_s,
        outage_cap_s=policy.cap_s,
    )
    rng = random.Random(f"{run.options.seed}:{run.spec.name}")
    if jobs:
        await _warm_up(run, provider)

    async def work(job: Job, place: feed.Place) -> None:
        await _run_job(run, provider, limiter, policy, rng, job, place)

    await feed.in_order(jobs, work, feed.places_for(limiter.concurrency))
    run.report.rate_decreases += limiter.requests.decreases
    if limiter.requests.rate is not None:
        run.report.final_rate_per_s = limiter.requests.rate


async def _warm_up(run: ModelRun, provider: Provider) -> None:
    """The provider's `warm_up()` (its SDK imported, its client built) before the first call,
    so that the per-request timeout times requests, not the set-up. Not once a stop began (the
    jobs are left for the next run). A failure is left to the first call, which meets it
    again and stores it with its job, as it did without a warm-up."""
    if stopping.requested() or run.stopped is not None:
        return
    try:
        await provider.warm_up()
    except Exception as error:
        log.debug("warming up %s failed: %s", run.spec.name, run.redact(str(error)))


async def _run_job(
    run: ModelRun,
    provider: Provider,
    limiter: ModelLimiter,
    policy: RetryPolicy,
    rng: random.Random,
    job: Job,
    place: feed.Place,
) -> None:
    """One job and the follow-up turns its stage asks for (cached turns are not called);
    `place` is given up when a call waits to be retried."""
    current: Job | None = job
    while current is not None:
        completion = await _call(run, provider, limiter, policy, rng, current, place)
        if completion is None:
            return
        try:
            current = resolve_from_cache(run, record_completion(run, current, completion))
        finally:
            stopping.call_done()  # the answer is stored: a stop may now end the stage


async def _call(
    run: ModelRun,
    provider: Provider,
    limiter: ModelLimiter,
    policy: RetryPolicy,
    rng: random.Random,
    job: Job,
    place: feed.Place,
) -> Completion | None:
    """The job's response, or None after storing its failure (or leaving it for later). While
    it waits to be retried, its `place` goes to the next job."""
    state = _JobState(estimate(run, job, reserve=True))

    def before_sleep(error: ProviderError, attempt: int) -> None:
        place.give_up()
        log_attempt(run, job, attempt, "retry", error=error, latency_s=state.latency_s)
        run.note_retry(rate_limited=is_rate_limit(error))

    attempt_number = 0
    try:
        async for attempt in policy.retrying(rng, before_sleep=before_sleep):
            with attempt:
                attempt_number = attempt.retry_state.attempt_number
                completion = await _attempt(run, provider, limiter, state, job)
    except _NotCalled as left:
        if state.reserved:
            run.budget.settle(state.guess.cost_usd, 0.0)
        if not isinstance(left, _Stopping) and run.stopped is None:
            run.advance()  # a skipped job; a stopped run's or model's progress shows what was done
        return None
    except ProviderError as error:
        run.budget.settle(state.guess.cost_usd, 0.0)
        refused_key = is_auth_failure(error)
        unknown_model = not error.fatal and is_model_not_found(error)
        if error.fatal or refused_key or unknown_model:
            # The model cannot run now (nothing listens at its local endpoint, its key was
            # refused, or the provider knows no such model id, as it would for every other
            # job): stop it, leave its jobs pending.
            if refused_key or unknown_model or error.status is not None:  # an answered call
                log_attempt(
                    run, job, attempt_number, "error", error=error, latency_s=state.latency_s
                )
            if refused_key:
                run.stop_for_auth(error.status or 0)
            elif unknown_model:
                run.stop_mid_run(model_not_found_reason(run.spec, run.redact(str(error))))
            else:
                run.stop(run.redact(str(error)))
            run.leave_pending(1)
            return None
        log_attempt(run, job, attempt_number, "error", error=error, latency_s=state.latency_s)
        record_failure(run, job, error)
        return None
    if completion.latency_s is None:
        completion.latency_s = state.latency_s
    used = completion.usage.input_tokens + completion.usage.output_tokens
    limiter.correct_tokens(state.guess.tokens, used or state.guess.tokens)
    spent = budget_cost(run.spec, completion.usage, state.guess.cost_usd)
    run.budget.settle(state.guess.cost_usd, spent)
    log_attempt(run, job, attempt_number, "ok", latency_s=state.latency_s)
    return completion


async def _attempt(
    run: ModelRun, provider: Provider, limiter: ModelLimiter, state: _JobState, job: Job
) -> Completion:
    timeout_s = run.spec.limits.timeout_s
    if not state.reserved:
        # Before taking a slot: a call waiting for the budget must not hold up the retries of
        # the calls in flight, whose reservations it waits for.
        _not_stopped(run)
        if not await run.budget.reserve(state.guess.cost_usd):
            run.report.skip_for_budget(reask=job.turn > 0)
            raise _NotCalled
        state.reserved = True
    async with limiter.concurrency_slot():
        _not_stopped(run)
        await limiter.pace(state.guess.tokens)
        _not_stopped(run)  # stopped during a hold (a 401, a 404): the job is not sent
        if not stopping.starting_call():  # a stop: the job is left for the next run
            raise _Stopping
        started = time.monotonic()
        try:
            completion = await asyncio.wait_for(provider.generate(job.request), timeout_s)
        except Exception as caught:
            stopping.call_done()
            state.latency_s = time.monotonic() - started
            note_adapter_bug(run, "generate", caught, job.cache_key)  # not a ProviderError
            error = as_provider_error(caught, timeout_s)
            if is_rate_limit(error):
                limiter.on_rate_limited(error.retry_after_s)
            elif error.retryable and not error.fatal:
                limiter.on_transient_failure()
            raise error from caught
        except BaseException:  # cancelled
            stopping.call_done()
            stopping.request_dropped()
            raise
        state.latency_s = time.monotonic() - started
    problem = completion_problem(completion)
    if problem is not None:  # a third-party adapter's bug: this job fails
        stopping.call_done()
        raise _not_a_completion(run, problem)
    limiter.on_success()
    return completion


def _not_stopped(run: ModelRun) -> None:
    """Leave the job pending when its model was stopped (key refused, no server)."""
    if run.stopped is not None:
        run.report.left_pending += 1
        raise _NotCalled


def _not_a_completion(run: ModelRun, problem: str) -> ProviderError:
    """The error of a job whose adapter returned no well-formed `Completion` (`problem`)."""
    return ProviderError(f"provider {run.spec.provider!r} returned {problem}", retryable=False)


async def run_offline_chunks(run: ModelRun, provider: Provider, jobs: Sequence[Job]) -> None:
    """Providers that prefer batches (vLLM offline engine): `generate_batch` on large chunks
    (no larger than the provider's `chunk_limit()`, where it has one); follow-up turns go into
    later chunks. Each chunk's answers are stored as soon as it returns. A `chunk_limit` that
    raises (or returns neither an int nor None) stops the model: an adapter's bug. An
    in-process engine loads first (`loading`): a stop during its load leaves every job."""
    try:
        limit = chunk_limit(provider)
    except AdapterBug as bug:
        stop_for_adapter_bug(run, bug, None, jobs=len(jobs))
        return
    if not await loading.loaded_unless_stopped(provider, run.spec.name):
        return  # a stop while the model loaded: its jobs are left for the next run
    size = max(1, min(run.options.chunk_size, limit or run.options.chunk_size))
    queue = list(jobs)
    while queue:
        chunk: list[Job] = []
        reserved: list[Estimate] = []
        for job in queue[:size]:
            guess = estimate(run, job, reserve=True)
            if not run.budget.try_reserve(guess.cost_usd):  # this call alone: cheaper ones run
                run.report.skip_for_budget(reask=job.turn > 0)
                run.advance()
                continue
            chunk.append(job)
            reserved.append(guess)
        queue = queue[size:]
        if not chunk:
            continue
        if not stopping.starting_call():  # a stop: the rest is left for the next run
            for guess in reserved:
                run.budget.settle(guess.cost_usd, 0.0)
            return
        try:
            _store_chunk(run, chunk, reserved, queue, await _answers(run, provider, chunk))
        finally:
            stopping.call_done()


async def _answers(
    run: ModelRun, provider: Provider, chunk: Sequence[Job]
) -> tuple[Sequence[Any], float]:
    """One `generate_batch` call: its results (a failure for every job when it raised, or
    returned anything but one result per request) and the latency per job."""
    started = time.monotonic()
    answers: Sequence[Any] | Exception
    try:
        answers = batch_answers(
            await provider.generate_batch([j.request for j in chunk]), len(chunk)
        )
    except Exception as caught:
        answers = caught
    if isinstance(answers, BaseException):
        note_adapter_bug(run, "generate_batch", answers, chunk[0].cache_key)
        answers = [as_provider_error(answers, run.spec.limits.timeout_s)] * len(chunk)
    return answers, (time.monotonic() - started) / len(chunk)


def _store_chunk(
    run: ModelRun,
    chunk: Sequence[Job],
    reserved: Sequence[Estimate],
    queue: list[Job],
    answers: tuple[Sequence[Any], float],
) -> None:
    """Store a chunk's results; follow-up turns go to the end of `queue`."""
    results, latency = answers
    for job, guess, result in zip(chunk, reserved, results, strict=True):
        problem = None if isinstance(result, BaseException) else completion_problem(result)
        if isinstance(result, Completion) and problem is None:
            if result.latency_s is None:
                result.latency_s = latency
            run.budget.settle(guess.cost_usd, budget_cost(run.spec, result.usage, guess.cost_usd))
            log_attempt(run, job, 1, "ok", latency_s=latency)
            follow_up = resolve_from_cache(run, record_completion(run, job, result))
            if follow_up is not None:
                queue.append(follow_up)
        else:
            if isinstance(result, BaseException):
                note_adapter_bug(run, "generate_batch", result, job.cache_key)
            error = (
                as_provider_error(result, run.spec.limits.timeout_s)
                if isinstance(result, BaseException)
                else _not_a_completion(run, problem or type(result).__name__)
            )
            run.budget.settle(guess.cost_usd, 0.0)
            log_attempt(run, job, 1, "error", error=error, latency_s=latency)
            record_failure(run, job, error)
