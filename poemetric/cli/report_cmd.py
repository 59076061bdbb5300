"""CLI command: `report` (one self-contained HTML file with a poem browser)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from poemetric.cli.analyze_cmd import ExcludeFailedChecksOption, SurveySelectOption
from poemetric.cli.app import app
from poemetric.cli.options import (
    BootstrapOption,
    JudgeOption,
    RunOption,
    SeedOption,
    error_exit,
    existing_run,
    experts_option,
    output_file,
    output_option,
    writable_run,
)
from poemetric.cli.survey_select import known_survey, one_expert_source

console = Console(emoji=False)
REPORT_EXPERTS = experts_option("adds their scores and agreement with each judge.")


@app.command()
def report(
    run: Path = RunOption,
    judge: str | None = JudgeOption,
    experts: Path | None = REPORT_EXPERTS,
    n_boot: int = BootstrapOption,
    seed: int = SeedOption,
    survey: str | None = SurveySelectOption,
    exclude_failed_checks: bool = ExcludeFailedChecksOption,
    out: Path | None = output_option(
        None, "--out", "Output file (default RUN/report/index.html).", file_name="index.html"
    ),
) -> None:
    """The run report: one self-contained HTML file (no network requests; charts as inline
    SVG) with the leaderboard and its CIs, per-dimension charts, the form checks, the judges,
    agreement with experts, run metadata and a poem browser (every author's poem beside the
    human original, with its form-check explanation and each judge's scores and comments).
    Open it in any browser, send it by mail, or put it on a static site. Its agreement CIs equal
    `analyze`'s for the same --bootstrap and --seed (their defaults are the same too).

    Examples:

        poemetric report --run runs/demo

        poemetric report --run runs/paper --experts ratings.csv --bootstrap 2000

        poemetric report --run runs/paper --judge gemini-2.5-pro --out report.html

        poemetric report --run runs/paper --survey experts --exclude-failed-checks
    """
    one_expert_source(experts, survey)
    from poemetric.analysis.experts import ExpertRatingsError
    from poemetric.report import build_report

    if out is not None:
        output_file(out)
    else:
        writable_run(run, "--out")
    with (
        existing_run(run) as store,
        store.snapshot(),  # one moment of the run, however busy its writers
        console.status("building the report"),
    ):
        known_survey(store, survey)
        try:
            path = build_report(
                store,
                out,
                judge=judge,
                experts=experts,
                n_boot=n_boot,
                seed=seed,
                survey=survey,
                exclude_failed_checks=exclude_failed_checks,
            )
        except (ExpertRatingsError, ValueError) as exc:
            raise error_exit(exc) from exc
    size = path.stat().st_size / 1e6
    console.print(
        f"wrote {path} ({size:.1f} MB); open it in a browser", highlight=False, markup=False
    )
