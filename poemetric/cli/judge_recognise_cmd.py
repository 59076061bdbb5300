"""`poemetric judge recognise`: ask each judge whether it knows the human poems of the run (a
memorisation probe). The judge group and its other commands are in judge_cmd."""

from __future__ import annotations

from pathlib import Path

import typer

from poemetric.cli.interrupt import STOPPING_HELP, interruptible
from poemetric.cli.judge_cmd import JudgeNameOption, console, judge_app, select_judges
from poemetric.cli.judging import RefreshFailedParsesOption, load_judges
from poemetric.cli.options import ProgressOption, RunOption, error_exit, existing_run
from poemetric.cli.paid_stage import (
    ConcurrencyOption,
    DryRunOption,
    MaxCostOption,
    refuse_when_none_can_start,
    runner_options,
    stage_header,
)
from poemetric.cli.run_limit import StageLimitOption
from poemetric.hints import program


@judge_app.command("recognise", epilog=STOPPING_HELP)
def recognise_command(
    run: Path = RunOption,
    judge_name: str | None = JudgeNameOption,
    limit: int | None = StageLimitOption,
    dry_run: bool = DryRunOption,
    max_cost: float | None = MaxCostOption,
    concurrency: int | None = ConcurrencyOption,
    refresh_failed_parses: bool = RefreshFailedParsesOption,
    progress: bool = ProgressOption,
) -> None:
    """Ask each judge to name the title and author of every human poem of the run (a
    memorisation probe); answers are scored against the dataset and stored in `recognitions`.
    `poemetric analyze` then reports the recognised share per judge.

    Example:

        poemetric judge recognise --run runs/paper --judge gemini-2.5-pro
    """
    from poemetric.judge.recognise import human_poems, run_recognition

    if not judge_name:  # was Typer's "Invalid value for --judge" box, with no judge named
        import shlex

        names = ", ".join(load_judges())
        raise error_exit(
            "no judge given: name the judges to ask with --judge (or POEMETRIC_JUDGE), e.g. "
            f"`{program()} judge recognise --run {shlex.quote(str(run))} --judge "
            f"gemini-2.5-pro`; judges: {names}"
        )
    judges = select_judges(judge_name)
    options = runner_options(
        models=judges,
        limit=limit,
        dry_run=dry_run,
        max_cost=max_cost,
        shard=None,
        batch=False,
        concurrency=concurrency,
        refresh_failed_parses=refresh_failed_parses,
        progress=progress,
    )
    with existing_run(run) as store, interruptible(run):
        if not dry_run:  # a plan prices judges before their keys are set
            refuse_when_none_can_start(judges)
        poems = len(human_poems(store))  # those asked about, as --limit counts them
        dataset = (store.get_meta("dataset") or {}).get("name")
        stage_header(run, dataset, min(poems, limit or poems), len(judges), 1, "judge")
        report = run_recognition(store, judges, options=options, console=console)
        recognised = store.query(
            "SELECT judge, SUM(recognised) AS hits, COUNT(*) AS n FROM recognitions "
            "WHERE status = 'ok' GROUP BY judge ORDER BY judge"
        )
    report.render(console)
    for row in recognised:
        share = row["hits"] / row["n"] if row["n"] else 0.0
        console.print(
            f"{row['judge']}: recognised {row['hits']} of {row['n']} human poems ({share:.1%})",
            highlight=False,
            markup=False,
        )
    if report.incomplete and not dry_run:
        raise typer.Exit(code=1)
