"""`poemetric judge`: an LLM judge scores every stored poem with the POEMetric questionnaire."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from poemetric.cli.app import app
from poemetric.cli.generate_cmd import (
    BatchOption,
    ConcurrencyOption,
    DryRunOption,
    MaxCostOption,
    ProgressOption,
    ShardOption,
)
from poemetric.cli.judging import (
    judge_runner_options,
    judge_spec,
    load_judges,
    open_judged_run,
    split_authors,
)
from poemetric.cli.options import LimitOption, RunOption

console = Console()

NO_JUDGE = """\
No judge given. Choose one with --judge NAME (or set POEMETRIC_JUDGE=NAME), for example:

  • the paper's judge, Gemini-2.5-Pro (Google AI Studio key):
        export GEMINI_API_KEY=...
        poemetric judge --run {run} --judge gemini-2.5-pro

  • a local model behind an OpenAI-compatible server (no key needed, no cost):
        vllm serve Qwen/Qwen2.5-72B-Instruct --api-key local
        export POEMETRIC_LOCAL_BASE_URL=http://127.0.0.1:8000/v1
        export POEMETRIC_LOCAL_MODEL=Qwen/Qwen2.5-72B-Instruct POEMETRIC_LOCAL_API_KEY=local
        poemetric judge --run {run} --judge local-openai

Available judges (judges/): {available}"""


@app.command(
    "judge",
    epilog=(
        "Examples:\n\n"
        "  poemetric judge --run runs/demo --judge gemini-2.5-pro --dry-run\n\n"
        "  poemetric judge --run runs/paper --judge gemini-2.5-pro --batch --max-cost 50\n\n"
        "  poemetric judge --run runs/paper --judge local-openai --authors human,gpt-4o\n\n"
        "Unparsable answers are stored as errors with the raw response; the next run re-parses "
        "them from the cache for free, --refresh-failed-parses pays for new answers."
    ),
)
def judge(
    run: Path = RunOption,
    judge_name: str | None = typer.Option(
        None,
        "--judge",
        "-j",
        envvar="POEMETRIC_JUDGE",
        help="Judge name from judges/ (e.g. 'gemini-2.5-pro'); env POEMETRIC_JUDGE.",
    ),
    authors: str | None = typer.Option(
        None, "--authors", help="Only these authors' poems (comma-separated, e.g. human,gpt-4o)."
    ),
    limit: int | None = LimitOption,
    samples: int = typer.Option(1, "--samples", min=1, help="Judgments per poem."),
    dry_run: bool = DryRunOption,
    max_cost: float | None = MaxCostOption,
    shard: str | None = ShardOption,
    batch: bool = BatchOption,
    concurrency: int | None = ConcurrencyOption,
    refresh_failed_parses: bool = typer.Option(
        False,
        "--refresh-failed-parses",
        help="Pay for a new answer where the cached one still cannot be parsed.",
    ),
    progress: bool = ProgressOption,
) -> None:
    """Score every ok generation with an LLM judge (blind to the author).

    The judge sees only the generation prompt and the poem. Answers are parsed into the ten
    POEMetric scores and three comments; the raw response is kept with each judgment.
    """
    from poemetric.judge.stage import run_judging

    judges = load_judges()
    if not judge_name:
        console.print(
            NO_JUDGE.format(run=run, available=", ".join(judges)), highlight=False, soft_wrap=True
        )
        raise typer.Exit(code=2)
    spec = judge_spec(judges, judge_name)
    options = judge_runner_options(
        limit=limit,
        dry_run=dry_run,
        max_cost=max_cost,
        shard=shard,
        batch=batch,
        concurrency=concurrency,
        refresh_failed_parses=refresh_failed_parses,
        progress=progress,
    )
    author_list = split_authors(authors)
    with open_judged_run(run, author_list, console) as store:
        report = run_judging(
            store, spec, options=options, authors=author_list, samples=samples, console=console
        )
    report.render(console)
    if (report.errors or report.not_run) and not dry_run:
        raise typer.Exit(code=1)
