"""CLI commands: `analyze` (tables) and `figures` (publication figures).

The analysis package (pandas, SciPy, matplotlib) is imported inside the commands, so that every
other command starts quickly (tests/test_cli_startup.py).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.markup import plain, plain_cells
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
from poemetric.text.ordering import author_order
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    import pandas as pd

    from poemetric.analysis import AnalysisResult

#: Default of `figures --format` (poemetric.analysis.plotting.FIGURE_FORMATS, not imported here).
DEFAULT_FIGURE_FORMATS = "pdf,png"

console = Console(emoji=False)

#: Summary columns: group averages (per-dimension means are in RUN/analysis/dimension_scores.*).
PARTS = ("basic", "advanced", "quality", "appraisal")
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
PART_HEADERS = {"basic": "basic", "advanced": "adv.", "quality": "qual.", "appraisal": "appr."}


def _fmt(value: object, digits: int = 2) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _with_ci(row: Mapping[Hashable, Any], key: str) -> str:
    """`0.175 [0.122, 0.225]`: the estimate of `key`, and its interval when it has one."""
    low, high = row[key + "_ci_low"], row[key + "_ci_high"]
    ci = "" if math.isnan(low) or math.isnan(high) else f" [{low:.3f}, {high:.3f}]"
    return _fmt(float(row[key]), 3) + ci


def summary_tables(result: AnalysisResult, width: int) -> list[Table]:
    """The summary as one table when it fits `width` columns; otherwise the form-check and
    lexical columns per author, then the judge scores, one table per judge (one wide table had
    its numbers cut to `0.9…` at 80 columns)."""
    from rich.console import Console
    from rich.measure import Measurement

    whole = summary_table(result)
    if "dimension_scores" not in result.tables:
        return [whole]
    # A measurement is clipped to the width it is given. Its natural width, not its least: rich
    # measured a table whose headers could wrap ("form" / "pass") as fitting 80 columns, then
    # drew it with the score header cut to "sco…" (or the right border cut off).
    measuring = Console(emoji=False, width=10_000)
    if Measurement.get(measuring, measuring.options, whole).maximum <= width:
        return [whole]
    judges = sorted(result.tables["dimension_scores"]["judge"].unique())
    return [
        summary_table(result, scores=False),
        *(summary_table(result, lexical=False, judge=str(judge)) for judge in judges),
    ]


def summary_table(
    result: AnalysisResult, *, lexical: bool = True, scores: bool = True, judge: str | None = None
) -> Table:
    """Authors x (form check, lexical, judge dimensions, POEMetric score); `lexical=False` or
    `scores=False` leaves out the first group of columns or the judges'; `judge` keeps one."""
    title = "POEMetric summary (means; judge scores 1-5; score = POEMetric ranking score)"
    if not scores or "dimension_scores" not in result.tables:  # no judge columns
        title = "POEMetric summary (means)"
    elif not lexical:
        who = f"{plain(result.labels.judge(judge))}: " if judge is not None else ""
        title = f"Judge scores, {who}means (1-5; score = POEMetric ranking score)"
    table = Table(title=title, header_style="bold")
    frames: dict[str, pd.DataFrame] = {}
    if "form_checks" in result.tables:
        frames["form"] = result.tables["form_checks"].set_index("author")
    features = result.tables["lexical"].set_index("author")
    dimensions = result.tables.get("dimension_scores")
    groups = result.tables.get("group_scores")
    judges = sorted(dimensions["judge"].unique()) if dimensions is not None and scores else []
    judges = [j for j in judges if judge is None or j == judge]
    authors = summary_authors(result, judges)
    # Never wrapped, so its least width is the longest name: rich's measured minimum let it wrap
    # ("Markov" / "baseline"), kept one table that did not fit, and cut a header to "sco…".
    names = [plain(result.labels.author(a)) for a in authors]
    table.add_column("author", no_wrap=True, min_width=max(map(cell_len, ["author", *names])))
    if judges and len(judges) > 1:
        table.add_column("judge")
    if lexical:
        table.add_column("poems", justify="right")
        if "form" in frames:
            table.add_column("form pass", justify="right")
        table.add_column("MATTR", justify="right")
        table.add_column("rep.", justify="right")
    for part in PARTS if judges else ():
        table.add_column(PART_HEADERS[part], justify="right")
    if judges:
        table.add_column("score", justify="right", style="bold")
    for author in authors:
        base = [result.labels.author(author)]
        style = "bold dark_orange" if author == "human" else None
        for current in judges or [None]:
            row = [*base]
            if len(judges) > 1:
                row.append(result.labels.judge(str(current)))
            if lexical:
                # An author none of whose answers is a poem (it refused every prompt) has no
                # lexical row: 0 poems, its failed form checks still shown.
                measured = author in features.index
                row.append(_fmt(features.at[author, "n"]) if measured else "0")
                if "form" in frames:
                    form = frames["form"]
                    row.append(_fmt(form.at[author, "pass_rate"]) if author in form.index else "–")
                row.append(_fmt(features.at[author, "mattr_mean"], 3) if measured else "–")
                row.append(_fmt(features.at[author, "repetition_all_mean"]) if measured else "–")
            if current is not None and groups is not None:
                mine = groups[(groups["judge"] == current) & (groups["author"] == author)]
                means = dict(zip(mine["part"], mine["mean"], strict=True))
                row += [_fmt(means.get(part, math.nan)) for part in (*PARTS, "poemetric")]
            table.add_row(*plain_cells(*row), style=style)  # a display name `GPT-4o [2024]`
    return table


def summary_authors(result: AnalysisResult, judges: list[str]) -> list[str]:
    """The summary's rows: every author of the lexical, form-check and (for `judges`) judge
    tables, in the standard order. The lexical table's alone left out an author none of whose
    answers is a poem (a model that refused every prompt), whose form checks all failed."""
    names = set(result.tables["lexical"]["author"])
    if "form_checks" in result.tables:
        names |= set(result.tables["form_checks"]["author"])
    groups = result.tables.get("group_scores")
    if groups is not None:
        names |= set(groups.loc[groups["judge"].isin(judges), "author"])
    return author_order([str(name) for name in names])


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
        if "lexical" in result.tables:
            for summary in summary_tables(result, console.width):
                console.print(summary)
        for name, who in (
            ("agreement", "judge {judge} vs experts"),
            ("agreement_experts", "experts"),
        ):
            if name not in result.tables:
                continue
            table = result.tables[name]
            for row in table[table["item"] == "all"].to_dict("records"):
                console.print(
                    who.format(judge=row.get("judge"))
                    + f" (all items, {counted(int(row['n_poems']), 'poem')}, "
                    + f"{counted(int(row['n_pairs']), 'paired rating')}): "
                    + ", ".join(
                        f"{label} {_with_ci(row, key)}"
                        for key, label in (
                            ("pao", "PAo"),
                            ("qwk", "QWK"),
                            ("alpha_interval", "alpha interval"),
                        )
                    )
                    + (" (no CIs: --bootstrap 0)" if n_boot == 0 else ""),
                    highlight=False,
                    markup=False,  # "[0.12, 0.23]" is text; "[nan, nan]" read as a tag vanished
                )
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
