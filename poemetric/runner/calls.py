"""Executing one model's pending jobs: concurrent API calls with retries, or offline chunks."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from poemetric.providers.base import Completion, Provider, ProviderError
from poemetric.runner.cost import estimate_input_tokens, estimate_output_tokens, usage_cost
from poemetric.runner.jobs import Job, completion_from_dict, completion_to_dict
from poemetric.runner.ratelimit import ModelLimiter
from poemetric.runner.retry import RetryPolicy

if TYPE_CHECKING:
    from poemetric.runner.runner import ModelRun


@dataclass
class Estimate:
    input_tokens: int
    output_tokens: int
    cost_usd: float

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def estimate(run: ModelRun, job: Job, *, batch: bool = False) -> Estimate:
    spec = run.spec
    input_tokens = estimate_input_tokens(job.request.messages)
    output_tokens = estimate_output_tokens(spec, run.options.output_tokens_estimate)
    return Estimate(
        input_tokens, output_tokens, spec.pricing.cost(input_tokens, output_tokens, batch=batch)
    )


def as_provider_error(error: BaseException, timeout_s: float) -> ProviderError:
    if isinstance(error, ProviderError):
        return error
    if isinstance(error, TimeoutError):
        return ProviderError(f"no response within {timeout_s:g} s (timeout)", retryable=True)
    return ProviderError(f"{type(error).__name__}: {error}", retryable=False)


def record_completion(
    run: ModelRun, job: Job, completion: Completion, *, batch_id: str | None = None
) -> None:
    """Cost, store (row + cache in one transaction), report and progress for one response."""
    cost = usage_cost(run.spec, completion.usage, batch=batch_id is not None)
    # Redact before anything is derived from the response: the row (raw response, text, poem)
    # is stored beside the cache entry and must be as clean as it.
    original = completion_to_dict(completion)
    completion_data = run.redact_completion(original)
    if completion_data is not original:
        completion = completion_from_dict(completion_data)
    row = run.handler.ok_row(job, completion, cost_usd=cost, batch_id=batch_id)
    run.store.save_result_and_cache(
        run.handler.table,
        row,
        cache_key=job.cache_key,
        provider=run.spec.provider,
        model=run.spec.model,
        completion=completion_data,
        replace_cache=run.options.refresh_failed_parses,
    )
    run.report.called += 1
    run.report.input_tokens += completion.usage.input_tokens
    run.report.output_tokens += completion.usage.output_tokens
    run.report.cost_usd += cost
    if row.get("status") == "ok":
        run.report.ok += 1
    else:
        run.report.note_error(row.get("error"))
    run.advance(tokens=completion.usage.input_tokens + completion.usage.output_tokens, cost=cost)


def record_failure(
    run: ModelRun, job: Job, error: ProviderError, *, batch_id: str | None = None
) -> None:
    message = run.redact(str(error))
    if error.status is not None:
        message = f"HTTP {error.status}: {message}"
    run.store.save_result_and_cache(
        run.handler.table, run.handler.error_row(job, message, batch_id=batch_id)
    )
    run.report.called += 1
    run.report.note_error(message)
    run.advance()


def log_attempt(
    run: ModelRun,
    job: Job,
    attempt: int,
    outcome: str,
    *,
    error: ProviderError | None = None,
    latency_s: float | None = None,
) -> None:
    run.store.log_call(
        cache_key=job.cache_key,
        provider=run.spec.provider,
        model=run.spec.model,
        attempt=attempt,
        outcome=outcome,
        http_status=None if error is None else error.status,
        detail=None if error is None else run.redact(str(error))[:500],
        latency_s=latency_s,
    )


async def run_concurrent(run: ModelRun, provider: Provider, jobs: Sequence[Job]) -> None:
    """All jobs at once, paced by the model's limiter; each retried per the policy."""
    limits = run.spec.limits
    limiter = ModelLimiter(limits, concurrency=run.options.concurrency)
    policy = RetryPolicy(
        max_retries=limits.max_retries,
        base_s=run.options.retry_base_s,
        cap_s=run.options.retry_cap_s,
    )
    rng = random.Random(f"{run.options.seed}:{run.spec.name}")
    await asyncio.gather(*(_one_job(run, provider, limiter, policy, rng, job) for job in jobs))


async def _one_job(
    run: ModelRun,
    provider: Provider,
    limiter: ModelLimiter,
    policy: RetryPolicy,
    rng: random.Random,
    job: Job,
) -> None:
    guess = estimate(run, job)
    timeout_s = run.spec.limits.timeout_s
    reserved = False
    attempt = 0
    while True:
        attempt += 1
        completion: Completion | None = None
        error: ProviderError | None = None
        async with limiter.concurrency_slot():
            if not reserved:
                if run.budget.exhausted or not run.budget.try_reserve(guess.cost_usd):
                    run.report.skipped_budget += 1
                    run.advance()
                    return
                reserved = True
            await limiter.pace(guess.tokens)
            started = time.monotonic()
            try:
                completion = await asyncio.wait_for(provider.generate(job.request), timeout_s)
            except Exception as caught:
                error = as_provider_error(caught, timeout_s)
            latency = time.monotonic() - started
        if completion is not None:
            if completion.latency_s is None:
                completion.latency_s = latency
            used = completion.usage.input_tokens + completion.usage.output_tokens
            limiter.correct_tokens(guess.tokens, used or guess.tokens)
            run.budget.settle(guess.cost_usd, usage_cost(run.spec, completion.usage))
            log_attempt(run, job, attempt, "ok", latency_s=latency)
            record_completion(run, job, completion)
            return
        assert error is not None
        retry = error.retryable and attempt <= policy.max_retries
        log_attempt(
            run, job, attempt, "retry" if retry else "error", error=error, latency_s=latency
        )
        if not retry:
            run.budget.settle(guess.cost_usd, 0.0)
            record_failure(run, job, error)
            return
        await asyncio.sleep(policy.delay(attempt, error.retry_after_s, rng))


async def run_offline_chunks(run: ModelRun, provider: Provider, jobs: Sequence[Job]) -> None:
    """Providers that prefer batches (vLLM offline engine): `generate_batch` on large chunks."""
    size = max(1, run.options.chunk_size)
    for start in range(0, len(jobs), size):
        chunk: list[Job] = []
        reserved: list[Estimate] = []
        for job in jobs[start : start + size]:
            guess = estimate(run, job)
            if run.budget.exhausted or not run.budget.try_reserve(guess.cost_usd):
                run.report.skipped_budget += 1
                run.advance()
                continue
            chunk.append(job)
            reserved.append(guess)
        if not chunk:
            continue
        started = time.monotonic()
        try:
            results: Sequence[Any] = await provider.generate_batch([j.request for j in chunk])
        except Exception as caught:
            failure = as_provider_error(caught, run.spec.limits.timeout_s)
            results = [failure] * len(chunk)
        latency = (time.monotonic() - started) / len(chunk)
        if len(results) != len(chunk):
            mismatch = ProviderError(
                f"generate_batch returned {len(results)} results for {len(chunk)} requests",
                retryable=False,
            )
            results = [mismatch] * len(chunk)
        for job, guess, result in zip(chunk, reserved, results, strict=True):
            if isinstance(result, Completion):
                if result.latency_s is None:
                    result.latency_s = latency
                run.budget.settle(guess.cost_usd, usage_cost(run.spec, result.usage))
                log_attempt(run, job, 1, "ok", latency_s=latency)
                record_completion(run, job, result)
            else:
                error = as_provider_error(result, run.spec.limits.timeout_s)
                run.budget.settle(guess.cost_usd, 0.0)
                log_attempt(run, job, 1, "error", error=error, latency_s=latency)
                record_failure(run, job, error)
