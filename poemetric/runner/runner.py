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
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from poemetric.providers.base import Completion, ModelSpec
from poemetric.providers.registry import entry_points_read_once, provider_class
from poemetric.providers.remote_common import key_variables
from poemetric.redaction import Redactor, url_credentials
from poemetric.runner import stopping
from poemetric.runner.adapter_bugs import close_provider
from poemetric.runner.cost import Budget
from poemetric.runner.estimate_basis import EstimateBasis, observe
from poemetric.runner.isolation import provider_target as provider_target
from poemetric.runner.isolation import register_target as register_target
from poemetric.runner.isolation import report_in_child as report_in_child
from poemetric.runner.isolation import rerun_in_child as rerun_in_child
from poemetric.runner.isolation import spawn_isolated
from poemetric.runner.jobs import Job, Shard
from poemetric.runner.leases import Leases
from poemetric.runner.model_run import ModelRun, execute_model, ran_whole_shard, start_provider
from poemetric.runner.open_batches import open_batch_jobs
from poemetric.runner.planning import (
    add_estimates,
    calls_after_cache,
    lease_jobs,
    plan_model,
    plan_open_batches,
    replay_cached,
)
from poemetric.runner.report import ModelReport, StageInterrupted, StageReport
from poemetric.store.connect import write_failure
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
    is not in `poemetric.store.db.RESULT_TABLE_KEYS`) and `follow_up(job, completion, row, *,
    cost_usd) -> Job | None` (the next turn after a response whose row is not 'ok', or None to
    stop; `cost_usd` is what that response cost the job, 0 for one it did not buy).
    """

    table: str

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        """The row for a response (its status may still be 'error', e.g. unparsable)."""
        ...

    def error_row(self, job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]: ...


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
        TextColumn("{task.fields[tokens]} tok  ${task.fields[cost]}{task.fields[retries]}"),
        console=console,
        disable=not options.progress or options.dry_run,  # a plan has nothing to show
        transient=False,
    )
    shown = options.progress and not options.dry_run
    stopped: KeyboardInterrupt | None = None
    try:
        with progress, progress_lines(progress.console, rich_counts(progress), enabled=shown):
            try:
                yield progress
            except KeyboardInterrupt as stop:
                stopped = stop
                raise
    except SystemExit:
        # The display's last write found stdout's reader gone (`poemetric.cli.closed_output`:
        # Ctrl-C stopped `| tee log` too): the stop is what the command reports, with its status.
        if stopped is None:
            raise
        raise stopped from None


JobSource = Callable[[ModelSpec], tuple[list[Job], dict[str, str]]]
HandlerFactory = Callable[[ModelSpec], ResultHandler]
#: Runs one isolated model in a child process: (run_dir, spec, options, provider target) -> report.
ChildEntry = Callable[[str, dict[str, Any], RunnerOptions, str], dict[str, Any]]


def _observed_basis(
    store: RunStore, spec: ModelSpec, jobs: list[Job], jobs_for: JobSource
) -> EstimateBasis:
    """What a model's estimates rest on: its answers to `jobs` (all of its jobs of the stage,
    any shard), else, too few there, its answers to every job of the stage, those `--authors`
    or `--limit` left out included, where the source can build them (`basis_jobs`, as the
    judge stage's; built only then: about 0.15 ms a job)."""
    basis = observe(store, spec, jobs)
    more = getattr(jobs_for, "basis_jobs", None)
    if basis.observed or more is None:
        return basis
    every = more(spec)
    return basis if every is None else observe(store, spec, every)


@entry_points_read_once()
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
    answers_kept_across_models: bool = True,
) -> StageReport:
    """Run (or plan) a stage for several models; remote models run concurrently.
    `answers_kept_across_models`: whether a model's stored answers stay its own when its file
    names another model id or settings (its jobs' ids leave them out), which is warned of; False
    for a stage whose jobs' ids cover them (the probes' lines: each configuration is asked its
    own answers, none pooled), which has nothing to warn of."""
    changed = changed_models(store, stage, specs) if answers_kept_across_models else []
    for name, before, now in changed:
        Console(emoji=False, stderr=True).print(
            Redactor()(  # settings may hold provider fields (`extra`): no key is shown
                f"warning: {name}: this run's {stage} answers so far came from {before}; "
                f"its file now names {now}. Stored answers are kept (only missing ones are "
                "asked) and all are labelled as the file now says; to compare the two, give each "
                "model its own file name (copy the file) or use a new --run"
            ),
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
                # the file's api_key_env, else the adapter's; and a login in base_url
                Redactor(key_variables(spec), logins=url_credentials(spec.base_url)),
                basis=_observed_basis(store, spec, jobs, jobs_for),
            )
            model_report.estimate_basis = run.basis.describe(spec, options.output_tokens_estimate)
            if leases is not None:
                cached, pending = lease_jobs(leases, run, cached, pending)
            in_batches = open_batch_jobs(run)  # read once for the estimates and the plan
            add_estimates(run, pending, in_batches)
            if options.dry_run:  # a cached answer's re-ask not sent yet is paid too
                plan_open_batches(run, pending, in_batches)
                after_cache = calls_after_cache(run, cached)
                model_report.from_cache_to_call = len(after_cache)
                add_estimates(run, after_cache, in_batches)
            else:
                pending = pending + replay_cached(run, cached)
            runs.append((run, pending))
            # Only the calls to make are kept: the model's every job (those done included,
            # about 5 KB each for a judge) was held while the next model's were built, and the
            # last model's through all the calls.
            del jobs, statuses, cached
        if options.dry_run:
            for run, _ in runs:
                if (planned := await start_provider(run)) is not None:
                    await close_provider(run, planned)
            return [run.report for run, _ in runs]

        async def one(run: ModelRun, pending: list[Job]) -> None:
            if pending:
                if (provider := await start_provider(run)) is None:
                    return  # refused before any call: the shard did not run this model
                run.progress = progress
                run.task = progress.add_task(
                    run.spec.name, total=len(pending), tokens="0", cost="0", retries=""
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
    except sqlite3.OperationalError as error:
        # A full disk: a traceback (twice: releasing the leases fails too) said nothing of
        # what was kept or how to go on.
        if (failure := write_failure(store.path, error)) is None:
            raise
        raise failure from None
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


def _isolated(spec: ModelSpec) -> bool:
    return bool(provider_class(spec.provider).isolate_process)
