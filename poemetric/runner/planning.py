"""Planning one model's run before any call: which of its jobs (in `--shard`) are done, answered
from the response cache, or to be called; leasing them; estimating their cost; storing the rows
of cached responses. `run_stage` (poemetric.runner.runner) does this for each model first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from poemetric.providers.base import Completion, ModelSpec, sends_batches
from poemetric.providers.registry import provider_class
from poemetric.runner.jobs import Job, completion_from_dict, select_shard
from poemetric.runner.leases import Leases
from poemetric.runner.open_batches import abandon_hint, warn_open_batches
from poemetric.runner.report import ModelReport
from poemetric.store.db import RunStore
from poemetric.text.plural import plural

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun
    from poemetric.runner.runner import RunnerOptions


def plan_model(
    store: RunStore,
    spec: ModelSpec,
    jobs: Sequence[Job],
    statuses: Mapping[str, str],
    options: RunnerOptions,
) -> tuple[ModelReport, list[tuple[Job, Completion]], list[Job]]:
    """Split a model's jobs into done / answerable from the cache / pending calls."""
    report = ModelReport(model=spec.name, provider=spec.provider)
    selected = select_shard(jobs, options.shard)
    report.jobs = len(selected)
    cached: list[tuple[Job, Completion]] = []
    pending: list[Job] = []
    for job in selected:
        status = statuses.get(job.key)
        if status == "ok":
            report.already_done += 1
            continue
        hit = store.cached_completion(job.cache_key) if options.use_cache else None
        if hit is not None:
            cached.append((job, completion_from_dict(hit)))
        else:
            pending.append(job)
    report.from_cache = len(cached)
    report.pending = len(pending)
    return report, cached, pending


def replay_cached(run: ModelRun, cached: Sequence[tuple[Job, Completion]]) -> list[Job]:
    """Store rows from cached responses; return the jobs (or follow-up turns) to call."""
    from poemetric.runner.recording import refresh_due, replay_completion, resolve_from_cache

    to_call: list[Job] = []
    for job, completion in cached:
        if refresh_due(run, job, completion):
            to_call.append(job)  # stored once, by the new call
            continue
        follow_up = resolve_from_cache(run, replay_completion(run, job, completion))
        if follow_up is not None:
            to_call.append(follow_up)
    return to_call


def lease_jobs(
    leases: Leases,
    run: ModelRun,
    cached: list[tuple[Job, Completion]],
    pending: list[Job],
) -> tuple[list[tuple[Job, Completion]], list[Job]]:
    """Keep the jobs this process could lease; count those another live process holds."""
    keys = [job.key for job, _ in cached] + [job.key for job in pending]
    claim = leases.claim(run.handler.table, keys)
    if claim.held_elsewhere:
        run.report.held_elsewhere = claim.held_elsewhere
        run.report.held_by = claim.describe_holders()
        run.report.pending -= sum(1 for job in pending if job.key not in claim.mine)
        run.report.from_cache -= sum(1 for job, _ in cached if job.key not in claim.mine)
    return (
        [(job, hit) for job, hit in cached if job.key in claim.mine],
        [job for job in pending if job.key in claim.mine],
    )


def calls_after_cache(run: ModelRun, cached: Sequence[tuple[Job, Completion]]) -> list[Job]:
    """The calls that replaying `cached` will pay for, without storing anything (a dry run):
    the re-ask of an unusable cached answer not sent yet (a stop came between the answer and
    its re-ask, or `--reask` was raised), and with `--refresh-failed-parses` a new answer where
    the cached one still fails. As `replay_cached`, which makes them."""
    from poemetric.runner.recording import next_turn, refresh_due

    calls: list[Job] = []
    for job, completion in cached:
        turn: Job | None = job
        while turn is not None:  # through the turns the cache answers, as resolve_from_cache
            if refresh_due(run, turn, completion):
                calls.append(turn)  # its cached answer ends the conversation unusable
                break
            row = run.handler.ok_row(turn, completion, cost_usd=0.0, batch_id=None)
            turn = next_turn(run, turn, completion, row, cost_usd=0.0)
            hit = None
            if turn is not None and run.options.use_cache:
                hit = run.store.cached_completion(turn.cache_key)
            if turn is not None and hit is None:
                calls.append(turn)
                break
            completion = completion_from_dict(hit) if hit is not None else completion
    return calls


def add_estimates(run: ModelRun, pending: Sequence[Job], paid: Mapping[str, str]) -> None:
    """Add the cost of calling `pending` to the model's estimate, but for the jobs in `paid`
    (`open_batch_jobs`): a job in a batch that is still open was paid for by that batch (with
    --batch the run collects it, without it the run leaves it to the batch)."""
    from poemetric.runner.recording import estimate

    batch = run.options.batch and _batch_capable(run.spec)
    for job in pending:
        if job.key in paid:
            continue
        guess = estimate(run, job, batch=batch)
        run.report.estimated_input_tokens += guess.input_tokens
        run.report.estimated_output_tokens += guess.output_tokens
        run.report.estimated_cost_usd += guess.cost_usd


def plan_open_batches(
    run: ModelRun, pending: Sequence[Job], open_batches: Mapping[str, str]
) -> None:
    """A plan (--dry-run): count the `pending` jobs in open batches (`open_batch_jobs`:
    `in_open_batches`, not planned calls) and say what the run will do with them: collect them
    (--batch) or leave them to their batches. A plan without --batch showed them as `pending`
    at $0 and nothing said that the run would call none of them."""
    left = [open_batches[job.key] for job in pending if job.key in open_batches]
    if not left:
        return
    batch = run.options.batch and _batch_capable(run.spec)

    def said(ids: Sequence[str]) -> str:
        them = plural(len(ids), "it", "them")
        if batch:
            what = f"the run polls {them} and collects them, no new call"
        else:
            what = (
                f"a run without --batch leaves them to {them} and calls none of them. Run the "
                f"command with --batch to collect them; {abandon_hint(run, ids)}"
            )
        return f", not counted as planned calls: {what}"

    # A row written before a submission is no batch to collect: the run stops the model on it.
    what = "not counted as planned calls: " + (
        "the run stops the model"
        if batch
        else "a run without --batch leaves them to it and calls none of them, and one with "
        "--batch stops the model"
    )
    warn_open_batches(run, left, said, what)


def _batch_capable(spec: ModelSpec) -> bool:
    """Whether `--batch` sends the model's calls through a batch API, as `execute_model` runs
    them: a provider with one that is served in-process chunks (`prefers_batches`) is not, and
    its plan counted the batch discount that its calls never got."""
    return sends_batches(provider_class(spec.provider))
