"""What the paid stages share (`generate`, `judge`, `judge recognise`, `ghostwriting
style-match`): their runner flags (`--max-cost`, `--shard`, `--batch`, `--concurrency`,
`--dry-run`) read into the runner's options, the line each prints before its plan or its work,
and the stop before the run is written when none of its models can start."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.options import error_exit
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.providers.base import ModelSpec
    from poemetric.runner.jobs import Shard
    from poemetric.runner.runner import RunnerOptions

console = Console(emoji=False)

MaxCostOption = typer.Option(
    None,
    "--max-cost",
    min=0.0,
    help="Spend at most USD in this command (spent + in-flight estimates): a call whose "
    "estimate no longer fits is skipped, cheaper ones still run; skipped jobs are left for "
    "the next run.",
)
ShardOption = typer.Option(
    None,
    "--shard",
    help="K/N: run only shard K (0-based) of N, a fixed partition of the jobs by hash, e.g. "
    "--shard $SLURM_ARRAY_TASK_ID/4 with --array=0-3.",
)
BatchOption = typer.Option(
    False,
    "--batch",
    help="Use the provider's batch API (about half price, results within 24 h); `poemetric "
    "batches list` shows the run's batches.",
)
BatchRequestsOption = typer.Option(
    None,
    "--batch-requests",
    min=1,
    help="With --batch: at most N requests in one batch (default 10,000), "
    "never past the provider's own limit (OpenAI 50,000, Anthropic 100,000, Gemini 20 MB). "
    "Fewer, if a batch is refused whole (an enqueued-token limit): each batch is taken or "
    "refused on its own. More: fewer batches.",
)
ConcurrencyOption = typer.Option(
    None, "--concurrency", min=1, help="Requests in flight per model (overrides the model file)."
)
DryRunOption = typer.Option(
    False, "--dry-run", help="Print the plan (jobs, done, cached, tokens, cost); call nothing."
)


def stage_header(
    run: Path,
    dataset: str | None,
    poems: int,
    models: int,
    samples: int,
    noun: str = "model",
    trials: int | None = None,
) -> None:
    """`run runs/x: dataset demo (16 poems), 2 models x 1 sample`, the line `generate`, `judge`
    and `judge recognise` (`noun` "judge") print before their plan or their work, dry run or not;
    `ghostwriting style-match` adds its `trials` a poem (`1 judge x 4 trials x 1 sample`)."""
    what = f"dataset {dataset} ({counted(poems, 'poem')}), " if dataset else ""
    each = f" x {counted(trials, 'trial')}" if trials is not None else ""
    console.print(
        f"run {run}: {what}{counted(models, noun)}{each} x {counted(samples, 'sample')}",
        markup=False,  # the run folder and the dataset file are text: `runs/[exp1]`
    )


def say_notes(notes: Sequence[str]) -> None:
    """Each of `notes` (`select_models`'s: a group grown by model files) as a `note:` line on
    stderr, before the plan or the work."""
    for note in notes:
        Console(emoji=False, stderr=True).print(
            f"note: {note}", markup=False, highlight=False, soft_wrap=True
        )


def parse_shard(text: str | None) -> Shard | None:
    from poemetric.runner.jobs import Shard

    if text is None:
        return None
    try:
        return Shard.parse(text)
    except ValueError as error:
        raise error_exit(str(error)) from error  # it names --shard and the value


def check_prices(models: Sequence[ModelSpec], max_cost: float | None) -> None:
    """Paid models whose file gives no price cost an unknown amount, which `--max-cost` cannot
    bound (it would count them as $0): refused with it, a warning without it."""
    from poemetric.roster import price_unknown

    unknown = [spec.name for spec in models if price_unknown(spec)]
    if not unknown:
        return
    names = ", ".join(unknown)
    fix = (
        "add pricing: input_per_mtok and output_per_mtok to its file (both 0 for a server of "
        "your own) (docs/models.md)"
    )
    if max_cost is not None:
        raise error_exit(f"--max-cost cannot bound {names}: its price is unknown; {fix}")
    Console(emoji=False, stderr=True).print(
        f"warning: price unknown for {names}: its cost is counted as $0; {fix}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def refuse_when_none_can_start(specs: Sequence[ModelSpec]) -> None:
    """Stop (status 1) before the run is opened when none of `specs` can start (`preflight`: no
    API key, no SDK): `generate` prepared the run first (its prompts widened to a new `--limit`)
    and each stage recorded the models and selection it was started with, for a command that
    then ran nothing. A model run in a process of its own (vLLM) is asked there, not here:
    where one is given, the command goes on. Where some of `specs` can start, they run; the
    others are reported by the runner ("cannot run"), and recorded as started, so that `merge`
    names them."""
    from poemetric.runner.not_run_lines import not_run_lines
    from poemetric.runner.preflight import own_process, start_refusals

    if not specs or any(own_process(spec) for spec in specs):
        return
    refused: dict[str, str] = {}
    for spec in specs:  # up to the first that can start (a local model's preflight loads torch)
        if not (refusal := start_refusals([spec])):
            return
        refused.update(refusal)
    causes = not_run_lines((name, 0, why) for name, why in refused.items())
    lines = "; ".join(f"{', '.join(line.models)} cannot run: {line.reason}" for line in causes)
    raise error_exit(f"{lines}; nothing was run, the run is left as it was", code=1)


def runner_options(
    *,
    models: Sequence[ModelSpec],
    limit: int | None,
    dry_run: bool,
    max_cost: float | None,
    shard: str | None,
    batch: bool,
    concurrency: int | None,
    progress: bool,
    samples: int = 1,
    refresh_failed_parses: bool = False,
    batch_requests: int | None = None,
) -> RunnerOptions:
    """The runner's options from the flags every paid stage shares (`generate`, `judge`,
    `judge recognise`, `ghostwriting style-match`): `--max-cost` is USD, `--shard` is K/N,
    `--batch-requests` only with `--batch`; the
    prices of `models` are checked against `--max-cost` (`check_prices`). Each command then
    calls `refuse_when_none_can_start` (unless `dry_run`) once its run and inputs are checked."""
    from poemetric.runner.runner import RunnerOptions

    check_prices(models, max_cost)
    if batch_requests is not None and not batch:  # it would be silently ignored
        raise error_exit("--batch-requests sizes the batches of --batch: add --batch, or drop it")

    return RunnerOptions(
        samples=samples,
        limit=limit,
        dry_run=dry_run,
        max_cost_usd=max_cost,
        shard=parse_shard(shard),
        batch=batch,
        batch_max_items=batch_requests or RunnerOptions.batch_max_items,  # its default
        concurrency=concurrency,
        refresh_failed_parses=refresh_failed_parses,
        progress=progress,
    )
