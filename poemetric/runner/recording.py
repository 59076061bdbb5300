"""What happens to a response or a failure: estimate, store (row + cache), log, follow-up turns.

Every execution mode (concurrent calls, offline chunks, batch APIs, cache replay) goes through
these functions, so a response is stored the same way whichever way it arrived.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from poemetric.providers.base import Completion, ProviderError
from poemetric.providers.finish_reasons import ended_by_provider
from poemetric.runner.cost import usage_cost
from poemetric.runner.jobs import Job, completion_from_dict, completion_to_dict
from poemetric.runner.paid import forget_paid, paid_turn_cost
from poemetric.runner.rows import UNPARSABLE

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun


@dataclass
class Estimate:
    input_tokens: int
    output_tokens: int
    cost_usd: float

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def estimate(run: ModelRun, job: Job, *, batch: bool = False, reserve: bool = False) -> Estimate:
    """A call's tokens and cost: a plan's (`reserve` False: the dry run, the estimated cost) or
    what `--max-cost` reserves before the call (`reserve`: kept conservative). Both from the
    model's answers so far in this stage when it has some (`run.basis`), else the default."""
    spec = run.spec
    override = run.options.output_tokens_estimate
    input_tokens = run.basis.input_tokens(job, override, reserve=reserve)
    output_tokens = run.basis.output_tokens(spec, override, reserve=reserve)
    return Estimate(
        input_tokens, output_tokens, spec.pricing.cost(input_tokens, output_tokens, batch=batch)
    )


def as_provider_error(error: BaseException, timeout_s: float) -> ProviderError:
    if isinstance(error, ProviderError):
        return error
    if isinstance(error, TimeoutError):
        return ProviderError(f"no response within {timeout_s:g} s (timeout)", retryable=True)
    return ProviderError(f"{type(error).__name__}: {error}", retryable=False)


def _store_row(
    run: ModelRun,
    job: Job,
    row: dict[str, Any],
    *,
    completion: dict[str, Any] | None,
) -> None:
    run.store.save_result_and_cache(
        run.handler.table,
        row,
        cache_key=job.cache_key,
        provider=run.spec.provider,
        model=run.spec.model,
        completion=completion,
        replace_cache=run.options.refresh_failed_parses,
        key=getattr(run.handler, "natural_key", None),
    )


def _count_outcome(run: ModelRun, job: Job, row: dict[str, Any], follow_up: Job | None) -> None:
    """Count a turn's outcome. A re-ask counts once it is answered (or has failed): one asked
    for but never sent (a stop, the --max-cost budget) is left for the next run."""
    if job.turn > 0:
        run.report.reasked += 1
    if follow_up is not None:
        run.report.reasks_due += 1
    elif row.get("status") == "ok":
        run.report.ok += 1
    else:
        run.report.note_error(row.get("error"))
        if str(row.get("error") or "").startswith(UNPARSABLE):
            run.report.unparsable += 1


def next_turn(
    run: ModelRun, job: Job, completion: Completion, row: dict[str, Any], *, cost_usd: float
) -> Job | None:
    """The follow-up turn the stage asks for after a response it could not use, if any;
    `cost_usd` is what this turn's answer cost this job (0 for an answer it did not buy)."""
    if row.get("status") == "ok":
        return None
    follow_up = getattr(run.handler, "follow_up", None)
    return None if follow_up is None else follow_up(job, completion, row, cost_usd=cost_usd)


def record_completion(
    run: ModelRun, job: Job, completion: Completion, *, batch_id: str | None = None
) -> Job | None:
    """Cost, store (row + cache in one transaction), report and progress for one response.

    Returns the follow-up turn to ask next (a stage re-asking an unusable answer), or None.
    """
    cost = usage_cost(run.spec, completion.usage, batch=batch_id is not None)
    # Redact before anything is derived from the response: the row (raw response, text, poem)
    # is stored beside the cache entry and must be as clean as it.
    original = completion_to_dict(completion)
    completion_data = run.redact_completion(original)
    if completion_data is not original:
        completion = completion_from_dict(completion_data)
    # A new answer to a turn that this job's row already paid for (`--refresh-failed-parses`)
    # replaces that answer, and the row was all that recorded its cost: the turn keeps both,
    # so the report's total (the sum of the rows) is what was spent.
    recorded = cost + paid_turn_cost(run, job)
    row = run.handler.ok_row(job, completion, cost_usd=recorded, batch_id=batch_id)
    follow_up = next_turn(run, job, completion, row, cost_usd=recorded)
    _store_row(run, job, row, completion=completion_data)
    forget_paid(run, job)
    run.report.called += 1
    run.report.input_tokens += completion.usage.input_tokens
    run.report.output_tokens += completion.usage.output_tokens
    run.report.cost_usd += cost
    _count_outcome(run, job, row, follow_up)
    if (
        row.get("status") == "ok"
        and follow_up is None
        and not (completion.text or "").strip()
        and not ended_by_provider(completion.finish_reason)  # a filter's: said as such
    ):
        run.report.empty_answers += 1
    # Paid whether or not a re-ask follows (which the budget or a stop may leave unsent): the
    # bar's tokens and cost count it now; the job is done on the bar once it has no follow-up.
    run.advance(
        tokens=completion.usage.input_tokens + completion.usage.output_tokens,
        cost=cost,
        done=0 if follow_up is not None else 1,
    )
    return follow_up


def replay_completion(run: ModelRun, job: Job, completion: Completion) -> Job | None:
    """Store the row of a cached response (no call: nothing spent in this run); returns the
    follow-up turn. Its cost is what this job's own row already recorded for the answer (a
    re-parse of an answer it bought), else 0: the answer was bought once, by the row of the call
    that cached it (another model file sending the same request), and is counted there."""
    cost = paid_turn_cost(run, job)
    row = run.handler.ok_row(job, completion, cost_usd=cost, batch_id=None)
    follow_up = next_turn(run, job, completion, row, cost_usd=cost)
    _store_row(run, job, row, completion=None)
    _count_outcome(run, job, row, follow_up)
    return follow_up


def refresh_due(run: ModelRun, job: Job, completion: Completion) -> bool:
    """`--refresh-failed-parses`: the cached `completion` of `job` is unusable and ends the
    conversation (no follow-up turn is left), so a new answer is bought for this turn."""
    if not run.options.refresh_failed_parses:
        return False
    row = run.handler.ok_row(job, completion, cost_usd=0.0, batch_id=None)
    return row.get("status") != "ok" and next_turn(run, job, completion, row, cost_usd=0.0) is None


def resolve_from_cache(run: ModelRun, job: Job | None) -> Job | None:
    """Follow a job's turns through the response cache: the first turn that needs a call, or
    None when the cache answered every turn (its rows are stored). With
    `--refresh-failed-parses` a cached turn that ends the conversation unusable (a re-ask
    answered as badly as the first answer) needs a call too."""
    while job is not None:
        hit = run.store.cached_completion(job.cache_key) if run.options.use_cache else None
        if hit is None:
            return job
        completion = completion_from_dict(hit)
        if refresh_due(run, job, completion):
            return job
        job = replay_completion(run, job, completion)
    return None


def record_failure(
    run: ModelRun, job: Job, error: ProviderError, *, batch_id: str | None = None
) -> None:
    message = run.redact(str(error))
    if error.status is not None and f"HTTP {error.status}" not in message:
        message = f"HTTP {error.status}: {message}"
    run.store.save_result_and_cache(
        run.handler.table,
        run.handler.error_row(job, message, batch_id=batch_id),
        key=getattr(run.handler, "natural_key", None),
    )
    if not error.not_sent:  # a request refused before sending (`refuse_settings`) is no call
        run.report.called += 1
        if job.turn > 0:  # a re-ask that was sent, and failed
            run.report.reasked += 1
    run.report.note_error(message)
    if not error.retryable:
        run.report.not_retryable += 1
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
