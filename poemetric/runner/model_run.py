"""One model's run within a stage (`poemetric.runner.runner.run_stage`): the state its jobs
share (`ModelRun`), its provider started and preflighted, its jobs executed in the mode that fits
the provider, and whether it ran its whole shard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.progress import Progress, TaskID

from poemetric.providers.base import BatchCapable, Provider, ProviderError
from poemetric.providers.registry import create_provider
from poemetric.providers.remote_common import key_variables
from poemetric.redaction import Redactor
from poemetric.runner import stopping
from poemetric.runner.adapter_bugs import close_provider, start_bug
from poemetric.runner.cost import Budget
from poemetric.runner.estimate_basis import EstimateBasis
from poemetric.runner.jobs import Job
from poemetric.runner.report import ModelReport, retries_shown
from poemetric.store.db import RunStore

if TYPE_CHECKING:
    from poemetric.providers.base import ModelSpec
    from poemetric.runner.paid import PaidTurns
    from poemetric.runner.runner import ResultHandler, RunnerOptions


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
    #: Whether the model's batch API refused a tag (`TagRefused`): its submissions in this run
    #: go untagged (`submit_batch`), as before tags (`batch_submit`).
    untagged_batches: bool = False
    #: Where the adapter raised a bug already logged (`adapter_bugs.note_adapter_bug`).
    adapter_bug_sites: set[tuple[object, ...]] = field(default_factory=set, repr=False)
    #: What each row replayed from the cache had recorded as paid (`runner.paid`), by row key.
    paid_turns: dict[tuple[Any, ...], PaidTurns] = field(default_factory=dict, repr=False)
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
                self.task,
                advance=done,
                tokens=f"{self._tokens:,}",
                cost=f"{self._cost:.4f}",
                retries=retries_shown(self.report),  # and the jobs skipped at --max-cost
            )

    def note_retry(self, *, rate_limited: bool) -> None:
        """A call about to be sent again: after a 429 (`rate_limited`) or a transient failure.
        Counted for the summary and shown on the bar, whose count and ETA stood still while
        the server throttled the model, as if it were only slow."""
        if rate_limited:
            self.report.rate_limited_retries += 1
        else:
            self.report.transient_retries += 1
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, retries=retries_shown(self.report))

    def redact(self, text: str) -> str:
        return self.redactor(text)

    def redact_completion(self, data: dict[str, Any]) -> dict[str, Any]:
        """A stored completion without keys (`data` itself when it holds none)."""
        return self.redactor.response_data(data)


async def execute_model(run: ModelRun, provider: Provider, pending: Sequence[Job]) -> None:
    from poemetric.runner import batch_mode, calls, open_batches

    if not pending:
        return
    if provider.prefers_batches:
        run.report.mode = "offline-chunks"
        await calls.run_offline_chunks(run, provider, pending)
    elif run.options.batch and isinstance(provider, BatchCapable):
        run.report.mode = "batch-api"
        await batch_mode.run_batch_api(run, provider, pending)
    else:
        await calls.run_concurrent(run, provider, open_batches.outside_open_batches(run, pending))


async def start_provider(run: ModelRun) -> Provider | None:
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
    now), so `merge` may count the shard as run for the model (docs/running.md, "`--shard K/N`").
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
