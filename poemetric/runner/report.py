"""What a stage did (or, with --dry-run, would do), per model."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from poemetric.runner.stage_problems import render_problems
from poemetric.runner.table_fit import column_groups, fitting_columns
from poemetric.text.plural import counted, plural

#: How a plan splits each model's jobs (`ModelReport.already_done`, `from_cache`, `pending`).
PLAN_HEADERS = ("done", "cached", "pending")
#: The same split in the summary after the run, named so that it is not read as the outcome: a
#: fresh run's "done 0, pending 19, ok 19" read as contradictory (19 pending after the run?).
SPLIT_HEADERS = ("done before", "from cache", "to call")
SPLIT_NOTE = (
    "jobs = done before (ok already) + from cache + to call, as this run found them; ok, errors "
    "and the columns after them are what this run did with them."
)


@dataclass
class ModelReport:
    """Counts for one model. `jobs` = done + cached + pending (after sharding)."""

    model: str
    provider: str
    jobs: int = 0
    already_done: int = 0
    from_cache: int = 0
    pending: int = 0
    called: int = 0
    ok: int = 0
    errors: int = 0
    #: Jobs the --max-cost budget left uncalled (nothing paid); re-asks it left unsent are in
    #: `budget_reasks` (their first answers were paid for, stored as errors: `reasks_left`).
    skipped_budget: int = 0
    budget_reasks: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    estimated_input_tokens: int = 0
    estimated_output_tokens: int = 0
    estimated_cost_usd: float = 0.0
    #: A plan's output estimate per call and what it rests on (`estimate_basis.describe`).
    estimate_basis: str = ""
    #: Of `from_cache` (a plan), jobs whose cached answer still leads to a paid call: a re-ask
    #: not sent yet, or a new answer with --refresh-failed-parses; in the estimate.
    from_cache_to_call: int = 0
    mode: str = "async"
    batch_ids: list[str] = field(default_factory=list)
    #: The first error of this command (e.g. a missing API key), shown under the summary table.
    first_error: str | None = None
    #: Why the model was not run at all (its provider's pre-flight check failed), or was stopped
    #: mid-run (its local endpoint refused connections); its jobs stay pending for the next run.
    not_run: str | None = None
    #: Jobs left pending because the model was stopped.
    left_pending: int = 0
    #: The HTTP status (401/403) with which the provider refused the model's API key; the
    #: model was stopped at the first one (`not_run` says which variable to check).
    auth_status: int | None = None
    #: The model was stopped after part of its work (`not_run` says why, e.g. a batch API
    #: request that kept failing), not before it started.
    stopped_mid_run: bool = False
    #: Jobs leased by another live process on the same run (left to it), and who holds them.
    held_elsewhere: int = 0
    held_by: str | None = None
    #: Jobs in batches an earlier `--batch` run submitted, still open, left to them by a run
    #: without --batch (a line in `warnings` says so); in a plan, those pending jobs with or
    #: without --batch (collected with it), not counted as its calls.
    in_open_batches: int = 0
    #: Re-asks (follow-up turns after an unusable response) answered, from a call or the cache,
    #: or failed: those sent, not those a stop or the --max-cost budget left unsent.
    reasked: int = 0
    #: Re-asks the stage asked for, sent or not (`reasks_left` are the unsent ones).
    reasks_due: int = 0
    #: Of `errors`, answers received that stayed unparsable: kept with the raw response and
    #: re-parsed from the cache by the next run, not asked again.
    unparsable: int = 0
    #: Of `errors`, jobs of finished batches whose results failed to download: the batches stay
    #: uncollected and the next run downloads them again (nothing is sent again).
    download_failed: int = 0
    uncollected_batches: list[str] = field(default_factory=list)
    #: Of `errors`, jobs of batches abandoned because their results are gone for good: the next
    #: run submits them again (and pays for them again).
    abandoned: int = 0
    abandoned_batches: list[str] = field(default_factory=list)
    #: Of `errors`, calls that failed with an error that sending again does not change (not
    #: retryable: an HTTP 400 or another 4xx, a blocked prompt, a setting the provider refuses,
    #: an adapter's bug): the next run sends them again as they are, and they fail again until
    #: what the error names is changed. The other call errors failed after their retries.
    not_retryable: int = 0
    #: Inputs the stage did not send at all (e.g. a judge is not asked about an empty answer).
    not_sent: int = 0
    #: Calls sent again after a 429 (rate limited), and after another retryable failure (5xx,
    #: timeout, dropped connection, invalid body): said under the summary, which was silent
    #: about them when the retries succeeded.
    rate_limited_retries: int = 0
    transient_retries: int = 0
    #: Answers called in this command that came back with no text and were stored as done
    #: (an empty poem): an adapter reading the wrong field, or a model that spent its tokens.
    empty_answers: int = 0
    #: Times the adaptive rate control slowed down on a 429, and the rate it ended at (req/s).
    rate_decreases: int = 0
    final_rate_per_s: float | None = None
    #: Lines under the summary about the adapter's bugs that stopped nothing (an `aclose` that
    #: raised; a place in `generate` that raised, once each), their tracebacks in the call log.
    warnings: list[str] = field(default_factory=list)
    #: Lines under the summary that say what the runner did for the model and leave nothing
    #: to do (a lost batch submission found in the provider's batch list and collected).
    notes: list[str] = field(default_factory=list)

    @property
    def reasks_left(self) -> int:
        """Unusable answers whose re-ask was not sent (a stop came first, the budget ran out):
        stored as errors, re-asked by the next run (their earlier turns from the cache)."""
        return max(0, self.reasks_due - self.reasked)

    def skip_for_budget(self, *, reask: bool) -> None:
        """A call the --max-cost budget refused: a job's first call, or a re-ask."""
        if reask:
            self.budget_reasks += 1
        else:
            self.skipped_budget += 1

    def note_error(self, message: str | None) -> None:
        self.errors += 1
        if self.first_error is None and message:
            self.first_error = message

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelReport:
        return cls(**data)


def retries_shown(m: ModelReport) -> str:
    """The calls sent again so far, for the progress bar: `  retries: 12 after 429s, 3 after
    errors`, and the jobs the --max-cost budget skipped, which the bar counts as done:
    `  budget-skipped: 411`, as the summary names them (empty when none was)."""
    parts = []
    if m.rate_limited_retries:
        parts.append(f"{m.rate_limited_retries:,} after 429s")
    if m.transient_retries:
        parts.append(f"{m.transient_retries:,} after errors")
    shown = f"  retries: {', '.join(parts)}" if parts else ""
    if skipped := m.skipped_budget + m.budget_reasks:
        shown += f"  budget-skipped: {skipped:,}"
    return shown


@dataclass
class StageReport:
    stage: str
    dry_run: bool = False
    shard: str | None = None
    models: list[ModelReport] = field(default_factory=list)
    stopped_by_budget: bool = False
    #: Ctrl-C or SIGTERM stopped the stage: the counts are what it did until then.
    interrupted: bool = False

    def total(self, attribute: str) -> float:
        return sum(getattr(m, attribute) for m in self.models)

    @property
    def errors(self) -> int:
        return int(self.total("errors"))

    @property
    def not_run(self) -> list[ModelReport]:
        return [m for m in self.models if m.not_run]

    @property
    def incomplete(self) -> bool:
        """Jobs were left undone: errors, a model that could not run, jobs held elsewhere, jobs
        skipped at the --max-cost budget (the command then exits with status 1)."""
        return bool(
            self.errors
            or self.not_run
            or any(m.held_elsewhere or m.in_open_batches for m in self.models)
            or self.stopped_by_budget
        )

    @property
    def cost_usd(self) -> float:
        return float(self.total("cost_usd"))

    @property
    def estimated_cost_usd(self) -> float:
        """The plan's estimate for the models that can run: one that cannot (no key, no engine)
        calls nothing, so its calls are not counted."""
        return sum(m.estimated_cost_usd for m in self.models if not m.not_run)

    def _excluding(self) -> str:
        """`, excluding 2 models that cannot run`, or "" when every model can."""
        cannot = len(self.not_run)
        return f", excluding {counted(cannot, 'model')} that cannot run" if cannot else ""

    def _once_they_can(self) -> str:
        """What the models that cannot run (a key not set yet) would add to a plan's estimate:
        a plan is how one prices a run before buying keys, and it said $0.0000 for the paper's
        30 models without a word on what they cost."""
        cost = sum(m.estimated_cost_usd for m in self.not_run)
        if not cost:
            return ""
        them, add = ("it", "adds") if len(self.not_run) == 1 else ("they", "add")
        return f"; once {them} can run, {them} {add} an estimated ${cost:.4f}"

    def budget_cut_text(self) -> str:
        """The models with calls skipped at --max-cost and how many each: `o3 12, o1 3 and 2
        re-asks`."""
        cut = []
        for m in self.models:
            counts = [f"{m.skipped_budget}"] if m.skipped_budget else []
            counts += [counted(m.budget_reasks, "re-ask")] if m.budget_reasks else []
            if counts:
                cut.append(f"{m.model} {' and '.join(counts)}")
        return ", ".join(cut)

    def summary_line(self) -> str:
        """One line for logs and the demo: models, rows ok / errors, calls, cost."""
        if self.dry_run:
            # like the estimate, the calls of the models that can run (the others call nothing)
            # and not the jobs in batches still open: no call of this command pays for them
            runnable = [m for m in self.models if not m.not_run]
            calls = sum(m.pending + m.from_cache_to_call - m.in_open_batches for m in runnable)
            waiting = sum(m.in_open_batches for m in runnable)
            in_batches = f", {waiting:,} in open batches (not called)" if waiting else ""
            return (
                f"{counted(len(self.models), 'model')}, {calls:,} {plural(calls, 'call')} planned"
                f"{in_batches}, estimated ${self.estimated_cost_usd:.4f}{self._excluding()}"
            )
        done, called = int(self.total("already_done")), int(self.total("called"))
        text = (
            f"{counted(len(self.models), 'model')}: {int(self.total('ok')):,} new ok, "
            f"{self.errors:,} {plural(self.errors, 'error')}, {done:,} already done, "
            f"{called:,} {plural(called, 'call')}, ${self.cost_usd:.4f}"
        )
        extras = {
            "re-asked": int(self.total("reasked")),
            "re-asks left for the next run": sum(m.reasks_left for m in self.models),
            "not sent (not a poem)": int(self.total("not_sent")),
            f"skipped by --max-cost ({self.budget_cut_text()})": int(
                self.total("skipped_budget") + self.total("budget_reasks")
            ),
            "left to another process": int(self.total("held_elsewhere")),
            "in batches to download again": int(self.total("download_failed")),
            "to submit again (batch results gone)": int(self.total("abandoned")),
        }
        text += "".join(f", {count:,} {what}" for what, count in extras.items() if count)
        not_run = ", ".join(m.model for m in self.not_run)
        return text + (f"; not run: {not_run}" if not_run else "")

    def render(self, console: Console | None = None) -> None:
        console = console or Console(emoji=False)
        title = f"{self.stage}: {'plan (dry run)' if self.dry_run else 'summary'}"
        if self.shard:
            title += f", shard {self.shard}"
        if self.interrupted:
            title += " (interrupted)"
        columns = ["model", "jobs", *(PLAN_HEADERS if self.dry_run else SPLIT_HEADERS)]
        if self.dry_run:
            columns += ["est. tokens in/out", "est. cost $"]
        else:
            columns += ["ok", "errors", "pending re-ask", "re-asked", "not sent"]
            columns += ["budget-skipped"]
            columns += ["tokens in/out", "cost $"]
        rows = []
        for m in self.models:
            cells = [m.model, m.jobs, m.already_done, m.from_cache, m.pending]
            if self.dry_run:
                cells += [
                    f"{m.estimated_input_tokens:,}/{m.estimated_output_tokens:,}",
                    "n/a (cannot run)" if m.not_run else f"{m.estimated_cost_usd:.4f}",
                ]
            else:
                cells += [
                    m.ok,
                    m.errors,
                    m.reasks_left,
                    m.reasked,
                    m.not_sent,
                    m.skipped_budget,
                    f"{m.input_tokens:,}/{m.output_tokens:,}",
                    f"{m.cost_usd:.4f}",
                ]
            # Counts with a thousands separator, as the tokens: 6,090 jobs, not 6090.
            rows.append([f"{c:,}" if isinstance(c, int) else str(c) for c in cells])
        shown, zeros = fitting_columns(columns, rows, console.width)
        # Model names and numbers stay whole (80 columns cut names to `gem…`); headers wrap, and
        # columns that still do not fit go to a second table (`84.…` for $84.03 before).
        for number, group in enumerate(column_groups(shown, console.width)):
            table = Table(title=title if number == 0 else None)
            for index in group:
                table.add_column(
                    columns[index],
                    justify="left" if index == 0 else "right",
                    width=shown[index],
                    no_wrap=index == 0,
                )
            for row in rows:
                table.add_row(*(row[index] for index in group))
            console.print(table)
        if zeros:
            console.print(f"(0 for every model, left out at this width: {', '.join(zeros)})")
        if not self.dry_run:
            console.print(SPLIT_NOTE, highlight=False, markup=False)
        if self.dry_run:
            for m in self.models:
                if m.from_cache_to_call:
                    console.print(
                        f"{m.model}: {m.from_cache_to_call:,} "
                        f"{plural(m.from_cache_to_call, 'cached answer')} unusable and not "
                        "re-asked yet (or asked again with --refresh-failed-parses): their calls "
                        "are paid, and counted in the estimate.",
                        markup=False,
                        highlight=False,
                    )
            if bases := [f"{m.model} {m.estimate_basis}" for m in self.models if m.estimate_basis]:
                console.print(
                    f"Output tokens estimated per call: {'; '.join(bases)}.", markup=False
                )
            console.print(
                f"Estimated cost of the pending calls: ${self.estimated_cost_usd:.4f} (input from "
                "prompt length, output per call from the model's answers so far in this stage (95th "
                "percentile) where it has some, else a typical answer length; batch discount applied "
                f"with --batch){self._excluding()}{' (below)' if self.not_run else ''}"
                f"{self._once_they_can()}. Nothing was "
                "called.",
                markup=False,
            )
        elif self.stopped_by_budget:
            # Per call: a model is cut once its calls' estimates no longer fit under the cap,
            # while the calls that still fit (cheaper models) ran.
            console.print(
                "[yellow]Stopped at the --max-cost budget (jobs skipped per model: "
                f"{escape(self.budget_cut_text())}): each call whose estimated cost no longer "
                "fitted under the cap was skipped, the calls that fitted ran. Run again (with a "
                "higher budget) to finish the skipped jobs.[/yellow]"
            )
        render_problems(self, console)


class StageInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped a stage: a KeyboardInterrupt (every handler of one applies)
    that carries what the stage did until then (`report`, marked `interrupted`), so that the
    command prints its summary, and what it cost, before the resume hint."""

    def __init__(self, report: StageReport) -> None:
        super().__init__(report)  # in `args`: it pickles (out of an isolated model's process)
        self.report = report
        report.interrupted = True
