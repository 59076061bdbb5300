"""CLI commands: `analyze` (tables) and `figures` (publication figures).

The analysis package (pandas, SciPy, matplotlib) is imported inside the commands, so that every
other command starts quickly (tests/test_cli_startup.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from poemetric.cli.analyze_summary import agreement_lines, summary_tables
from poemetric.cli.app import app
from poemetric.cli.markup import plain
from poemetric.cli.options import (
    BootstrapOption,
    JudgeOption,
    ProgressOption,
    RunOption,
    SeedOption,
    error_exit,
    existing_run,
    experts_option,
    require_poems,
    unknown_choice,
)
from poemetric.cli.output_paths import output_option, run_output_folder
from poemetric.cli.survey_select import known_survey, one_expert_source, survey_select_option
from poemetric.paths import bundled_recipes
from poemetric.text.plural import plural

#: Default of `figures --format` (poemetric.analysis.plotting.FIGURE_FORMATS, not imported here).
DEFAULT_FIGURE_FORMATS = "pdf,png"

console = Console(emoji=False)

ANALYZE_EXPERTS = experts_option("default: the run's stored survey answers, if any.")
FIGURE_EXPERTS = experts_option(
    "Figs. 6-8 show the experts beside the judge; default: the run's stored survey answers."
)


def exclude_failed_checks_option(where: str) -> Any:
    """`--exclude-failed-checks` of `analyze`, `report` and `figures`, leaving the raters who
    failed out of `where` (poemetric.analysis.attention)."""
    return typer.Option(
        False,
        "--exclude-failed-checks/--keep-failed-checks",
        help=f"Leave out of {where} the raters who failed an attention check of the stored "
        "survey answers (any of those they took), naming them in the notes; default: keep every "
        "rater (the paper used no attention check), the notes naming those who failed.",
    )


SurveySelectOption = survey_select_option()
ExcludeFailedChecksOption = exclude_failed_checks_option("the expert tables and agreement")


@app.command()
def analyze(
    run: Path = RunOption,
    judge: str | None = JudgeOption,
    experts: Path | None = ANALYZE_EXPERTS,
    survey: str | None = SurveySelectOption,
    ci: str = typer.Option(
        "t",
        "--ci",
        # The tables of `poemetric.analysis.table_captions.MEAN_TABLES` (a test keeps them equal).
        help="Confidence intervals of the judge and expert score means (dimension_scores, "
        "dimension_scores_by_form, group_scores, expert_scores, judge_on_expert_poems, "
        "experts_on_judged_poems): 't' or 'bootstrap'. Form-check, lexical and ghostwriting "
        "means keep Student t, and the figures draw Student t.",
    ),
    n_boot: int = BootstrapOption,
    seed: int = SeedOption,
    exclude_failed_checks: bool = ExcludeFailedChecksOption,
    out: Path | None = output_option(
        None, "--out", "Output folder (default RUN/analysis).", folder=True
    ),
    latex_width: str = typer.Option(
        "two",
        "--latex-width",
        help="Width the LaTeX tables are set for, named as `figures --width`: 'one' (also "
        "'single', 'column'): a table that fits one column of a two-column paper (ACL's 7.7 cm) "
        "stays in it, a wider one spans both (table*); 'two' (also 'double', 'page'): every "
        "table spans the text width (16 cm).",
    ),
    progress: bool = ProgressOption,
) -> None:
    """Per-author tables (judge dimensions, form checks, lexical features, agreement with
    experts) as CSV, LaTeX and Markdown in RUN/analysis/, and a summary in the terminal.

    Examples:

        poemetric analyze --run runs/demo

        poemetric analyze --run runs/paper --judge gemini-2.5-pro --ci bootstrap

        poemetric analyze --run runs/paper --experts ratings.csv

        poemetric analyze --run runs/paper --survey experts --bootstrap 2000

        poemetric analyze --run runs/paper --exclude-failed-checks

        poemetric analyze --run runs/paper --latex-width one
    """
    one_expert_source(experts, survey)
    if ci not in ("t", "bootstrap"):
        raise unknown_choice("--ci", ci, ["t", "bootstrap"])
    from poemetric.tables.latex_layout import LATEX_WIDTH_WORDS
    from poemetric.tables.latex_layout import latex_width as width_word

    try:
        width_word(latex_width)
    except ValueError:
        raise unknown_choice("--latex-width", latex_width, list(LATEX_WIDTH_WORDS)) from None
    destination = run_output_folder(run, out, "analysis")
    from poemetric.analysis import analyze_run
    from poemetric.analysis.experts import ExpertRatingsError
    from poemetric.cli.interrupt import files_interrupted
    from poemetric.progress_lines import step_progress

    with files_interrupted(destination, "the analysis"):
        with existing_run(run) as store, store.snapshot():  # one moment of a run being written
            require_poems(store, run)
            known_survey(store, survey)
            try:
                with step_progress(enabled=progress) as shown:
                    result = analyze_run(
                        store,
                        judge=judge,
                        experts=experts,
                        survey=survey,
                        ci_method="bootstrap" if ci == "bootstrap" else "t",
                        n_boot=n_boot,
                        seed=seed,
                        progress=shown,
                        exclude_failed_checks=exclude_failed_checks,
                    )
            except (ExpertRatingsError, ValueError) as exc:
                raise error_exit(exc) from exc
        for summary in summary_tables(result, console.width):
            console.print(summary)
        for line in agreement_lines(result, n_boot):
            # "[0.12, 0.23]" is text; "[nan, nan]" read as a tag vanished
            console.print(line, highlight=False, markup=False)
        paths = result.write(destination, latex_width)
        for note in result.notes:
            console.print(f"[yellow]note:[/yellow] {plain(note)}")
        console.print(f"wrote {len(paths)} files to {destination}", markup=False)


@app.command()
def figures(
    run: Path = RunOption,
    judge: str | None = JudgeOption,
    fmt: str = typer.Option(
        DEFAULT_FIGURE_FORMATS, "--format", "-f", help="Comma-separated: pdf, png, svg."
    ),
    recipe: str | None = typer.Option(
        None,
        "--recipe",
        help=f"Bundled recipe from analysis/ ({', '.join(bundled_recipes())}) or a YAML path; "
        "default: every figure.",
    ),
    width: str = typer.Option(
        "two",
        "--width",
        "-w",
        help="Printed width: 'one' column (3.3 in; also 'single', 'column'), 'two' columns "
        "(6.8 in; also 'double', 'page'), or a number, always inches, 2 to 10 (e.g. 5.5; "
        "'2' is 2 in).",
    ),
    authors: str | None = typer.Option(
        None,
        "--authors",
        "-a",
        help="Authors to show, comma-separated model names or generator groups (e.g. paper7, "
        "the paper's 7 representative models); the human poets are always shown. Overrides "
        "the recipe's choice.",
    ),
    experts: Path | None = FIGURE_EXPERTS,
    survey: str | None = SurveySelectOption,
    exclude_failed_checks: bool = exclude_failed_checks_option(
        "the expert panels (Figs. 6-8; as `analyze`)"
    ),
    out: Path | None = output_option(
        None, "--out", "Output folder (default RUN/figures).", folder=True
    ),
) -> None:
    """Publication figures (vector PDF + 300-dpi PNG, each with a NAME.caption.txt saying what
    the bars and whiskers are) in RUN/figures/, drawn at their printed width; prints their paths
    and which figures were skipped for lack of data, then how many of each.

    Examples:

        poemetric figures --run runs/demo

        poemetric figures --run runs/paper --recipe paper --format png

        poemetric figures --run runs/paper --recipe paper --width one --authors paper7

        poemetric figures --run runs/paper --experts experts.csv --width 5.5

        poemetric figures --run runs/paper --recipe paper --exclude-failed-checks

        poemetric figures --run runs/paper --recipe paper --survey experts
    """
    one_expert_source(experts, survey)
    formats = [f.strip().lower() for f in fmt.split(",") if f.strip()]
    bad = [f for f in formats if f not in {"pdf", "png", "svg"}]
    if bad or not formats:
        raise error_exit(
            f"--format: unknown {plural(len(bad), 'format')} {', '.join(bad)}; use pdf, png, svg"
            if bad
            else "--format: no format given; use pdf, png, svg"
        )
    from poemetric.analysis import render_figures
    from poemetric.analysis.experts import ExpertRatingsError
    from poemetric.analysis.plotting import parse_width
    from poemetric.analysis.recipes import RecipeError
    from poemetric.analysis.selection import AuthorSelectionError

    try:
        inches = parse_width(width)
    except ValueError as exc:
        raise error_exit(f"--width: {exc}") from exc
    destination = run_output_folder(run, out, "figures")
    from poemetric.cli.interrupt import files_interrupted

    with (
        files_interrupted(destination, "the figures"),
        existing_run(run) as store,
        store.snapshot(),
    ):
        known_survey(store, survey)
        try:
            report = render_figures(
                store,
                destination,
                judge=judge,
                formats=formats,
                recipe=recipe,
                width=inches,
                authors=authors,
                experts=experts,
                survey=survey,
                exclude_failed_checks=exclude_failed_checks,
            )
        except AuthorSelectionError as exc:  # named once: not "--authors: --authors 'x' ..."
            message = str(exc)
            named = message.startswith("--authors ")
            raise error_exit(message if named else f"--authors: {message}") from exc
        except (RecipeError, ExpertRatingsError, ValueError) as exc:
            raise error_exit(exc) from exc
    for path in report.paths:
        console.print(str(path), highlight=False, markup=False, soft_wrap=True)
    for note in report.notes:
        console.print(f"[yellow]note[/yellow] {plain(note)}", soft_wrap=True)
    for reason in report.skipped:
        console.print(f"[yellow]skipped[/yellow] {plain(reason)}", soft_wrap=True)
    for warning in report.warnings:
        console.print(f"[yellow]warning[/yellow] {plain(warning)}", soft_wrap=True)
    if not report.paths:
        console.print("[red]no figures written[/red]")
        raise typer.Exit(1)
    drawn = sum(path.name.endswith(".caption.txt") for path in report.paths)  # one per figure
    skipped = f"; {len(report.skipped)} skipped (above)" if report.skipped else ""
    console.print(
        f"wrote {drawn} figures ({len(report.paths)} files) to {destination}{skipped}",
        markup=False,
        highlight=False,
    )
