"""Printable answer sheets (HTML with print CSS) and CSV templates for raters working offline.

Per rater: RATER.html (the survey's instructions, then one printed page per poem with its prompt,
the poem and the questions with boxes to tick) and RATER.csv (long format, one row per poem x
item with empty score and comment cells, ready for `poemetric survey import`). Both name each
poem by its code (`poemetric.store.poem_codes`), never by its generation id, which a rater could
recompute for every candidate author from public inputs. A line survey
(`--task lines`) gets the line-annotation sheet and template of `poemetric.annotation.sheets`
instead, with the survey's sheet id, for `poemetric ghostwriting import-lines`.
"""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

from poemetric.annotation.sheets import FILLED_COLUMNS as LINE_FILLED_COLUMNS
from poemetric.annotation.sheets import IMPORTER as LINE_IMPORTER
from poemetric.annotation.sheets import (
    FilledTemplateError,
    refuse_filled,
    render_sheet_html,
    write_csv_template,
)
from poemetric.store import RunStore
from poemetric.store.poem_codes import poem_code
from poemetric.survey import db, tokens
from poemetric.survey.lines import LineSurvey
from poemetric.survey.render import render
from poemetric.survey.tasks import Page
from poemetric.text.plural import plural

CSV_COLUMNS = ("page", "poem", "rater", "item", "score", "comment")
#: Columns a rater fills in `CSV_COLUMNS`.
FILLED_COLUMNS = ("score", "comment")


def write_sheets(
    store: RunStore, survey_id: str, out_dir: str | Path, *, only: list[str] | None = None
) -> list[Path]:
    """Write RATER.html and RATER.csv for each rater (or those in `only`); returns the paths."""
    survey = db.load_survey(store, survey_id)
    everyone = db.raters(store, survey_id)
    unknown = sorted(set(only or []) - set(everyone))
    if unknown:
        raise db.SurveyError(
            f"no {plural(len(unknown), 'rater')} {', '.join(unknown)} in survey {survey_id!r}; "
            f"raters: {', '.join(everyone)}"
        )
    out = Path(out_dir)
    task = survey.task
    lines = isinstance(task, LineSurvey)
    try:
        refuse_filled(
            [out / f"{rater}.csv" for rater in only or everyone],
            LINE_FILLED_COLUMNS if lines else FILLED_COLUMNS,
            importer=LINE_IMPORTER if lines else "poemetric survey import FILE",
        )
    except FilledTemplateError as error:
        raise db.SurveyError(str(error)) from None
    out.mkdir(parents=True, exist_ok=True)
    secret = tokens.load_secret(store.run_dir)
    written: list[Path] = []
    for rater in only or everyone:
        pages = db.pages(store, survey_id, rater)
        if isinstance(task, LineSurvey):
            written += _line_sheet(task, pages, out, rater, secret)
            continue
        # Attention checks are a web-only device: a printed sheet shows the survey as published.
        plain = [replace(p, check_expected=None) for p in pages]
        codes = {p.generation_id: poem_code(secret, survey_id, p.generation_id) for p in plain}
        html = out / f"{rater}.html"
        html.write_text(
            render(
                "sheet.html",
                instrument=task.instrument,
                survey_id=survey_id,
                rater=rater,
                pages=[(page, task.questions(page)) for page in plain],
                codes=codes,
            ),
            encoding="utf-8",
        )
        template = out / f"{rater}.csv"
        with template.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(CSV_COLUMNS)
            for page in plain:
                for question in task.questions(page):
                    if question.kind == "choice":
                        writer.writerow(
                            [page.position, codes[page.generation_id], rater, question.key, "", ""]
                        )
        written += [html, template]
    return written


def _line_sheet(
    task: LineSurvey, pages: list[Page], out: Path, rater: str, secret: bytes
) -> list[Path]:
    """The rater's poems as a line-annotation sheet, numbered as their pages."""
    items = [
        replace(item, item=page.position) for page in pages if (item := task.item(page)) is not None
    ]
    sheet = replace(task.sheet, items=items)
    html = out / f"{rater}.html"
    html.write_text(render_sheet_html(sheet, annotator=rater), encoding="utf-8")
    return [html, write_csv_template(sheet, out / f"{rater}.csv", secret)]
