"""`poemetric survey sheets | import | status`: the survey's answers outside the web app (printed
sheets out, filled files in) and every rater's progress. The survey group, `build`, `links` and
`serve` are in survey_cmd."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from poemetric.cli.options import RunOption, error_exit, existing_file, existing_run, file_warnings
from poemetric.cli.output_paths import output_option, run_output_folder
from poemetric.cli.survey_cmd import SurveyOption, refusals, survey_app
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.store import RunStore

console = Console(emoji=False)
err_console = Console(emoji=False, stderr=True)

NO_ANSWERS = (
    "{path}: no filled answers found: no row has a score or a comment, so nothing was imported "
    "(an unfilled template? save the filled sheet and import it again). A filled row has a "
    "score from 1 to 5, e.g. page,poem,rater,item,score,comment = 1,POEM_ID,R1,form,4,"
)
UNASSIGNED = (
    "warning: survey {survey!r} did not give these poems to the rater the file names: {raters}. "
    "Their answers are stored and enter the agreement: check that the rater column holds each "
    "rater's own id (a sheet imported under another rater's id also replaces that rater's "
    "answers)."
)
UNJUDGED = (
    "warning: survey {survey!r} cannot judge the attention checks answered by {raters}: the "
    "file holds their answers (stored) but not the answer each check asked for, so none counts "
    "as failed and `analyze --exclude-failed-checks` keeps these raters (its notes name them). "
    "Screen them in the survey that gave the checks (`analyze --survey NAME "
    "--exclude-failed-checks`)."
)


@survey_app.command("sheets")
def sheets(
    run: Path = RunOption,
    survey: str = SurveyOption,
    out: Path | None = output_option(
        None, "--out", "Folder (default RUN/survey-SURVEY).", folder=True
    ),
    rater: list[str] | None = typer.Option(None, "--rater", help="Only this rater (repeatable)."),
) -> None:
    """Printable answer sheets (HTML, print it or save as PDF from a browser) and a CSV
    template per rater, for raters working offline. Import filled CSVs with `survey import`.

    Examples:

        poemetric survey sheets --run runs/demo

        poemetric survey sheets --run runs/paper --rater R3 --out sheets/
    """
    from poemetric.survey.sheets import write_sheets

    destination = run_output_folder(run, out, f"survey-{survey}")
    with existing_run(run) as store, refusals():
        paths = write_sheets(store, survey, destination, only=rater)
    for path in paths:
        console.print(str(path), highlight=False, markup=False, soft_wrap=True)


@survey_app.command("import")
def import_(
    ratings_file: Path = typer.Argument(
        ...,
        help="Ratings: long (poem, rater, item, score, "
        "comment), wide, or as `poemetric export survey_answers` writes it; "
        "CSV/TSV/JSONL/Parquet.",
    ),
    run: Path = RunOption,
    survey: str = SurveyOption,
    new_survey: bool = typer.Option(
        False,
        "--new",
        help="Start the survey --survey names although its name is close to one the run has "
        "(without it, that is refused as a likely typo).",
    ),
) -> None:
    """Store ratings from a file in the run (all rows or none; every bad row is reported with
    its line). Rows already stored for the same rater, poem and item are replaced. A survey the
    run does not have is started (and said so); one whose name is close to an existing one's
    is refused as a likely typo unless --new.

    Examples:

        poemetric survey import R3.csv --run runs/paper --survey experts

        poemetric survey import R4.csv --run runs/paper --survey experts2 --new
    """
    from poemetric.analysis.attention import unjudged_checks
    from poemetric.analysis.expert_rows import first_lines
    from poemetric.analysis.experts import ExpertRatingsError, read_expert_answers
    from poemetric.reliability.io import problem_report
    from poemetric.survey.build import check_name
    from poemetric.survey.db import NoAnswersError, import_answers, survey_ids, unassigned
    from poemetric.survey.rater_ids import (
        near_rater_ids,
        near_rater_message,
        spelled_apart,
        spelled_apart_message,
    )
    from poemetric.survey.tasks import long_comments

    existing_file(ratings_file, "ratings file")
    with refusals():
        check_name(survey, "survey id")
    read_as: list[str] = []  # a Windows-1252 or `;`-separated file: said also when refused
    skipped: Counter[str] = Counter()  # an exported file's rows without an answer, by why
    with existing_run(run) as store, refusals():
        started = survey not in survey_ids(store)
        if started and not new_survey:
            typo_of(store, survey)
        if new_survey and not started:
            raise error_exit(
                f"--new: survey {survey!r} already exists in {store.path}; nothing imported "
                "(leave out --new to add these answers to it, or name a new survey)"
            )
        try:
            try:
                answers = read_expert_answers(ratings_file, store, read_as, skipped)
            finally:
                file_warnings(read_as)
            if near := near_rater_ids(store, survey, {a.expert for a in answers}):
                raise ExpertRatingsError(near_rater_message(ratings_file, survey, near))
            if apart := spelled_apart(store, first_lines(answers)):
                raise ExpertRatingsError(spelled_apart_message(ratings_file, apart))
            if long := long_comments(ratings_file, [(a.line, a.question, a.text) for a in answers]):
                raise ExpertRatingsError(
                    problem_report("comments too long, nothing imported", long)
                )
            new, replaced, unchanged = import_answers(
                store,
                survey,
                [(a.expert, a.generation_id, a.question, a.score, a.text) for a in answers],
                source=ratings_file.name,
                config={"imported_from": ratings_file.name},
            )
        except ExpertRatingsError as exc:
            raise error_exit(exc) from exc
        except NoAnswersError as exc:
            raise error_exit(NO_ANSWERS.format(path=ratings_file)) from exc
        off = unassigned(store, survey, [(a.expert, a.generation_id) for a in answers])
        unjudged = [
            u for u in unjudged_checks(store, survey) if u.rater in {a.expert for a in answers}
        ]
    raters_count = len({a.expert for a in answers})
    console.print(
        f"imported {counted(new + replaced, 'answer')} ({new} new, {replaced} replaced) by "
        f"{counted(raters_count, 'rater')} into survey {survey!r} of {run}"
        + (
            f"; {unchanged} of them {'was' if unchanged == 1 else 'were'} stored already with "
            "the same score or comment (a file imported again replaces, never adds)"
            if unchanged
            else ""
        )
        + _skipped_rows(skipped),
        highlight=False,
        markup=False,
        soft_wrap=True,  # one line, the run path whole, at any width
    )
    if started:
        err_console.print(
            f"started survey {survey!r}: the run had no survey of that name",
            highlight=False,
            markup=False,
        )
    if off:
        err_console.print(
            UNASSIGNED.format(
                raters=", ".join(
                    f"{rater} ({counted(count, 'poem')})" for rater, count in off.items()
                ),
                survey=survey,
            ),
            highlight=False,
            markup=False,
        )
    if unjudged:
        err_console.print(
            UNJUDGED.format(survey=survey, raters=", ".join(map(str, unjudged))),
            highlight=False,
            markup=False,
        )


def _skipped_rows(skipped: Counter[str]) -> str:
    """`; 12 rows with an empty comment were skipped (no answer to store)`: an exported file's
    rows count its answers and these together."""
    if not skipped:
        return ""
    parts = [f"{counted(count, 'row')} with {why}" for why, count in skipped.items()]
    were = "was" if sum(skipped.values()) == 1 else "were"
    return f"; {' and '.join(parts)} {were} skipped (no answer to store)"


def typo_of(store: RunStore, survey: str) -> None:
    """A survey to start whose name is close to one the run has is most likely that survey
    mistyped: importing into it would split one survey's answers in two, so refuse it."""
    from poemetric.suggest import close_names
    from poemetric.survey.db import survey_ids, unknown_survey

    if close_names(survey, survey_ids(store)):
        raise error_exit(
            f"{unknown_survey(store, survey)}; nothing imported (to start a new survey "
            f"{survey!r} beside them, add --new)"
        )


@survey_app.command("status")
def status(run: Path = RunOption, survey: str = SurveyOption) -> None:
    """Progress per rater and attention checks (what the admin page shows, in the terminal).

    Examples:

        poemetric survey status --run runs/demo

        poemetric survey status --run runs/paper --survey experts
    """
    from poemetric.survey import db

    with existing_run(run) as store, refusals():
        db.load_survey(store, survey)
        rows = db.progress(store, survey)
    table = Table(title=f"Survey {survey}", header_style="bold")
    for column in ("rater", "done", "of", "answers", "last answer (UTC)", "attention checks"):
        # A time is kept whole: a narrow terminal wraps the attention checks' words instead. A
        # rater id is folded onto the next line beyond 20 characters: it was cut to "experts:…"
        # (three raters of an imported file of several surveys looked the same).
        rater, checks = column == "rater", column.startswith("attention")
        table.add_column(column, justify="left" if rater else "right",
                         no_wrap=not (rater or checks), overflow="fold" if rater else "ellipsis",
                         max_width=20 if rater else None,
                         min_width=10 if checks else None)  # fmt: skip
    for row in rows:
        # To the second (the column says UTC): the whole stamp took 29 of the 80 columns.
        table.add_row(row.rater, str(row.completed), str(row.assigned), str(row.answers),
                      row.last_answer_text(), row.checks_text())  # fmt: skip
    console.print(table)
