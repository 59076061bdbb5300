"""The batch runner shared by every stage that calls models (generation, judging, probes).

A stage turns its inputs into `Job`s (one request each, with a stable key and a cache key) and
supplies a `ResultHandler` that turns a response or an error into a row of its result table. The
runner then, per model:

1. drops jobs outside `--shard`, and jobs whose row is already `ok`;
2. leases the rest in the run store, so that a second process on the same run leaves them
   alone (`poemetric.runner.leases`);
3. answers jobs from the response cache (no call; a stored error row whose response is cached is
   re-processed from the cache, e.g. a judge answer re-parsed by a fixed parser);
4. calls the provider for the rest: concurrently under the model's adaptive rate limit with
   retries, in large chunks for offline engines (`prefers_batches`), or through the provider's
   batch API (`--batch`);
5. writes each response into the cache and its row in the same transaction as soon as it
   arrives, so an interrupted run resumes without repeating a paid call or losing a result;
6. asks the follow-up turn the stage's handler wants for a response it could not use (a judge
   re-asking an unparsable answer), each turn cached and stored like the first.

See docs/running.md ("Adding a stage") for the contract a third stage follows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from poemetric.providers.base import BatchCapable, Completion, ModelSpec, Provider, ProviderError
from poemetric.providers.registry import create_provider, provider_class
from poemetric.providers.remote_common import key_variables
from poemetric.redaction import Redactor
from poemetric.runner import stopping
from poemetric.runner.adapter_bugs import close_provider, start_bug
from poemetric.runner.cost import Budget
from poemetric.runner.estimate_basis import EstimateBasis, observe
from poemetric.runner.isolation import provider_target as provider_target
from poemetric.runner.isolation import register_target as register_target
from poemetric.runner.isolation import report_in_child as report_in_child
from poemetric.runner.isolation import rerun_in_child as rerun_in_child
from poemetric.runner.isolation import spawn_isolated
from poemetric.runner.jobs import Job, Shard
from poemetric.runner.leases import Leases
from poemetric.runner.planning import (
    add_estimates,
    calls_after_cache,
    lease_jobs,
    plan_model,
    plan_open_batches,
    replay_cached,
)
from poemetric.runner.report import ModelReport, StageInterrupted, StageReport
from poemetric.store.db import RunStore
from poemetric.store.models import changed_models, record_models
from poemetric.store.shards import record_shard


@dataclass(frozen=True)
class RunnerOptions:
    """How a stage runs. Every field has a safe default; the CLI maps flags onto them."""

    samples: int = 1
    #: Only the first N poems of the run's dataset (their prompts, or their generations).
    limit: int | None = None
    dry_run: bool = False
    max_cost_usd: float | None = None
    shard: Shard | None = None
    batch: bool = False
    #: Overrides every model's `limits.max_concurrency`.
    concurrency: int | None = None
    use_cache: bool = True
    #: Make a new paid call for error rows whose cached response still fails to process
    #: (e.g. an unparsable judge answer); the new response replaces the cache entry.
    refresh_failed_parses: bool = False
    progress: bool = True
    #: Full-jitter backoff after a failure: uniform in [0, min(cap, base * 2^(k-1))] (the
    #: official SDKs start at 0.5 s too); a Retry-After from the server is always honoured.
    retry_base_s: float = 0.5
    retry_cap_s: float = 30.0
    #: Requests per `generate_batch` call for offline engines.
    chunk_size: int = 512
    batch_poll_s: float = 30.0
    batch_poll_max_s: float = 600.0
    batch_max_items: int = 10_000
    output_tokens_estimate: int | None = None
    seed: int = 0
    #: Set in the child process that runs one isolated model (internal).
    in_child: bool = False


class ResultHandler(Protocol):
    """Builds one stage's result rows.

    Optional members, looked up with getattr: `natural_key` (the key columns of a table that
    is not in `poemetric.store.db.RESULT_TABLE_KEYS`) and `follow_up(job, completion, row) ->
    Job | None` (the next turn after a response whose row is not 'ok', or None to stop).
    """

    table: str

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        """The row for a response (its status may still be 'error', e.g. unparsable)."""
        ...

    def error_row(self, job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]: ...


@dataclass
class ModelRun:
    """Shared state while one model's jobs run."""

    store: RunStore
    spec: ModelSpec
    handler: ResultHandler
    options: RunnerOptions
    budget: Budget
    report: ModelReport
    redactor: Redactor
    #: What the model's call estimates rest on: its answers so far in this stage, or none.
    basis: EstimateBasis = field(default_factory=EstimateBasis)
    progress: Progress | None = None
    task: TaskID | None = None
    #: Why the model was stopped mid-run (e.g. its local server refuses connections).
    stopped: str | None = None
    #: Where the adapter raised a bug already logged (`adapter_bugs.note_adapter_bug`).
    adapter_bug_sites: set[tuple[object, ...]] = field(default_factory=set, repr=False)
    _tokens: int = field(default=0, repr=False)
    _cost: float = field(default=0.0, repr=False)

    def stop(self, reason: str) -> None:
        """No further call for this model: its remaining jobs stay pending for the next run."""
        if self.stopped is None:
            self.stopped = reason
            self.report.not_run = reason
            if self.progress is not None and self.task is not None:
                # Its bar stops where it is (the jobs left pending are not done), its clock too,
                # and a log's progress lines no longer count it as under way.
                self.progress.update(self.task, description=f"{self.spec.name} (stopped)")
                self.progress.stop_task(self.task)

    def stop_for_auth(self, status: int) -> None:
        """The provider refused the model's API key (HTTP 401/403, Gemini's 400
        API_KEY_INVALID): stop the model, naming the variable the key comes from (never the key)."""
        if self.stopped is None:
            check = "check " + (" or ".join(key_variables(self.spec)) or "the model's API key")
            if self.spec.api_key_env is False:  # the server checks a key after all
                check = "the server wants a key, but the model file says `api_key_env: false`: "
                check += "name the variable that holds it"
            self.report.auth_status = status
            self.stop(f"authentication failed (HTTP {status}): {check}")

    def stop_mid_run(self, reason: str) -> None:
        """Stop the model after some of its work (a batch request failing for good): its
        remaining jobs stay pending, said in one line under the summary."""
        if self.stopped is None:
            self.report.stopped_mid_run = True
            self.stop(reason)

    def leave_pending(self, jobs: int) -> None:
        """`jobs` of the model's jobs were not called (it was stopped): left for the next run.
        They do not advance its progress bar (a model whose key was refused read `16/16`)."""
        self.report.left_pending += jobs

    def advance(self, *, tokens: int = 0, cost: float = 0.0, done: int = 1) -> None:
        """`done` jobs more done on the bar (0: a paid answer whose job goes on, a re-ask), and
        `tokens` and `cost` paid: the bar's totals are what the summary's cost column counts."""
        self._tokens += tokens
        self._cost += cost
        if self.progress is not None and self.task is not None:
            self.progress.update(
                self.task, advance=done, tokens=f"{self._tokens:,}", cost=f"{self._cost:.4f}"
            )

    def redact(self, text: str) -> str:
        return self.redactor(text)

    def redact_completion(self, data: dict[str, Any]) -> dict[str, Any]:
        """A stored completion without keys (`data` itself when it holds none)."""
        return self.redactor.response_data(data)


async def execute_model(run: ModelRun, provider: Provider, pending: Sequence[Job]) -> None:
    from poemetric.runner import batch_mode, calls

    if not pending:
        return
    if provider.prefers_batches:
        run.report.mode = "offline-chunks"
        await calls.run_offline_chunks(run, provider, pending)
    elif run.options.batch and isinstance(provider, BatchCapable):
        run.report.mode = "batch-api"
        await batch_mode.run_batch_api(run, provider, pending)
    else:
        await calls.run_concurrent(run, provider, batch_mode.outside_open_batches(run, pending))


@contextmanager
def progress_display(options: RunnerOptions, console: Console | None = None) -> Iterator[Progress]:
    """Progress bars on a terminal; in a log file, a line per model now and then."""
    from poemetric.progress_lines import progress_lines, rich_counts

    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[tokens]} tok  ${task.fields[cost]}"),
        console=console,
        disable=not options.progress or options.dry_run,  # a plan has nothing to show
        transient=False,
    )
    shown = options.progress and not options.dry_run
    with progress, progress_lines(progress.console, rich_counts(progress), enabled=shown):
        yield progress


JobSource = Callable[[ModelSpec], tuple[list[Job], dict[str, str]]]
HandlerFactory = Callable[[ModelSpec], ResultHandler]
#: Runs one isolated model in a child process: (run_dir, spec, options, provider target) -> report.
ChildEntry = Callable[[str, dict[str, Any], RunnerOptions, str], dict[str, Any]]


def run_stage(
    store: RunStore,
    stage: str,
    specs: Sequence[ModelSpec],
    *,
    jobs_for: JobSource,
    handler_for: HandlerFactory,
    options: RunnerOptions,
    child_entry: ChildEntry | None = None,
    console: Console | None = None,
) -> StageReport:
    """Run (or plan) a stage for several models; remote models run concurrently."""
    for name, before, now in changed_models(store, stage, specs):
        Console(emoji=False, stderr=True).print(
            f"warning: {name}: this run's {stage} answers so far came from model {before!r}; "
            f"its file now names {now!r}. Stored answers are kept (only missing ones are asked) "
            "and all are labelled as the file now says; to compare the two, give each model its "
            "own file name (copy the file) or use a new --run",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if not options.dry_run:
        record_models(store, stage, specs)  # each model's shard once it ran it (`one`)
    report = StageReport(
        stage=stage, dry_run=options.dry_run, shard=str(options.shard) if options.shard else None
    )
    budget = Budget(options.max_cost_usd)
    # A dry run loads no model, so it plans isolated (GPU) models here, without a process each.
    isolated = [
        s
        for s in specs
        if _isolated(s) and not options.in_child and not options.dry_run and child_entry
    ]
    inline = [s for s in specs if s not in isolated]
    leases = None if options.dry_run else Leases(store)
    #: The inline models' reports as soon as they are planned: the summary of an interrupted
    #: stage shows what they did until the stop.
    so_far: list[ModelReport] = []

    async def main(progress: Progress) -> list[ModelReport]:
        runs: list[tuple[ModelRun, list[Job]]] = []
        for spec in inline:
            jobs, statuses = jobs_for(spec)
            model_report, cached, pending = plan_model(store, spec, jobs, statuses, options)
            so_far.append(model_report)
            run = ModelRun(
                store,
                spec,
                handler_for(spec),
                options,
                budget,
                model_report,
                Redactor(key_variables(spec)),  # the file's api_key_env, else the adapter's
                basis=observe(store, spec, jobs),  # all its jobs of the stage, any shard
            )
            model_report.estimate_basis = run.basis.describe(spec, options.output_tokens_estimate)
            if leases is not None:
                cached, pending = lease_jobs(leases, run, cached, pending)
            add_estimates(run, pending)
            if options.dry_run:  # a cached answer's re-ask not sent yet is paid too
                plan_open_batches(run, pending)
                after_cache = calls_after_cache(run, cached)
                model_report.from_cache_to_call = len(after_cache)
                add_estimates(run, after_cache)
            else:
                pending = pending + replay_cached(run, cached)
            runs.append((run, pending))
        if options.dry_run:
            for run, _ in runs:
                if (planned := await _started(run)) is not None:
                    await close_provider(run, planned)
            return [run.report for run, _ in runs]

        async def one(run: ModelRun, pending: list[Job]) -> None:
            if pending:
                if (provider := await _started(run)) is None:
                    return  # refused before any call: the shard did not run this model
                run.progress = progress
                run.task = progress.add_task(
                    run.spec.name, total=len(pending), tokens="0", cost="0"
                )
                try:
                    await execute_model(run, provider, pending)
                finally:
                    await close_provider(run, provider)  # a failure is a warning, not a crash
            if ran_whole_shard(run):
                shard = options.shard or Shard(0, 1)
                record_shard(store, stage, shard.index, shard.count, [run.spec.name])

        await asyncio.gather(*(one(run, pending) for run, pending in runs))
        return [run.report for run, _ in runs]

    try:
        with progress_display(options, console) as progress, leases or nullcontext():
            report.models.extend(stopping.run(main(progress)))  # Ctrl-C, SIGTERM: calls finish
        _run_isolated(store, isolated, report, budget, options, child_entry)
    except KeyboardInterrupt:
        if not report.models:  # stopped during the inline models: what they did so far
            report.models.extend(so_far)
        report.stopped_by_budget = budget.cut or any(
            m.skipped_budget or m.budget_reasks for m in report.models
        )
        raise StageInterrupted(report) from None
    report.stopped_by_budget = budget.cut or any(
        m.skipped_budget or m.budget_reasks for m in report.models
    )
    return report


def _run_isolated(
    store: RunStore,
    isolated: list[ModelSpec],
    report: StageReport,
    budget: Budget,
    options: RunnerOptions,
    child_entry: ChildEntry | None,
) -> None:
    """Run each isolated model in a process of its own, one after the other, under what is left
    of the budget; their reports are added to `report`."""
    for spec in isolated:
        assert child_entry is not None
        child_options = replace(
            options,
            in_child=True,
            max_cost_usd=None
            if options.max_cost_usd is None
            else max(0.0, options.max_cost_usd - budget.spent_usd),
        )
        model_report = spawn_isolated(child_entry, store, spec, child_options)
        budget.spent_usd += model_report.cost_usd
        report.models.append(model_report)


async def _started(run: ModelRun) -> Provider | None:
    """The model's provider, created and preflighted; None, with the reason in the report, when
    it cannot run (no key, no engine, or a third-party adapter failing as it starts)."""
    provider = None
    try:
        provider = create_provider(run.spec)
        provider.preflight()
    except Exception as error:
        method = "preflight" if provider is not None else "__init__"
        why = str(error) if isinstance(error, ProviderError) else start_bug(run, method, error)
        run.report.not_run = run.redact(why)
        if provider is not None:
            await close_provider(run, provider)
        return None
    return provider


def ran_whole_shard(run: ModelRun) -> bool:
    """Whether this command left none of the model's jobs in its `--shard` (the whole stage
    without it) undone: each has its row, ok or error (done before, from the cache, or called
    now), so `merge` may count the shard as run for the model (docs/running.md, "Sharding").
    Not when the model was refused before its first call or stopped (`stopped`: no key, a
    refused key, an adapter's bug, a batch request failing for good), jobs were skipped at the
    --max-cost budget or left to another process, or a stop (Ctrl-C, SIGTERM) began before the
    model was through: the run that finishes them records the shard."""
    report = run.report
    return not (
        run.stopped
        or report.not_run
        or report.left_pending
        or report.skipped_budget
        or report.budget_reasks
        or report.held_elsewhere
        or report.in_open_batches
        or stopping.requested()
    )


def _isolated(spec: ModelSpec) -> bool:
    return bool(provider_class(spec.provider).isolate_process)
