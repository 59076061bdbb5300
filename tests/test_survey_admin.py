"""The survey's admin page in headless Chromium: its agreement table, and raters who answered
on paper (imported sheets), whose imports never pass for answers given on the web and whose
attention checks (not on the sheet) never read as passed, failed or skipped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from rich.console import Console
from survey_support import serving
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli import app, survey_answers_cmd
from poemetric.judge import DIMENSION_KEYS
from poemetric.reliability import STATISTICS
from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.agreement import current_agreement
from poemetric.survey.build import build_survey
from poemetric.survey.render import _fmt as fmt
from poemetric.survey.tasks import Page
from poemetric.survey.web import create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """Two raters with an attention check each, who both answered on paper; the admin link.
    Ben's sheet is imported but for the poem that has his check (not filled in yet)."""
    run = tmp_path_factory.mktemp("admin") / "run"
    with prepared_store(run, poems=4) as store:
        build_survey(store, raters="ann,ben", poems=4, checks=1, seed=1)
        rows = [
            (rater, page.generation_id, key, float(1 + (3 * i + j + len(rater)) % 5), None)
            for rater in ("ann", "ben")
            for i, page in enumerate(db.pages(store, "experts", rater))
            if rater == "ann" or page.check_expected is None
            for j, key in enumerate(DIMENSION_KEYS)
        ]
        db.import_answers(store, "experts", rows, source="sheet.csv", config={})
    with serving(create_app(run, "experts")) as url:
        yield run, f"{url}/admin/{tokens.admin_token(tokens.load_secret(run), 'experts')}"


def test_the_agreement_table_keeps_to_the_page_and_each_interval_to_one_line(
    live: tuple[Path, str], browser: Browser
) -> None:
    """At 1280 px the table ran past the page (1312 px) and wrapped the intervals of its
    overall row into narrow columns."""
    _, admin = live
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(admin)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        lines = page.locator("tr.overall small").evaluate_all(
            "cells => cells.map(c => c.getClientRects().length)"
        )
        assert len(lines) == 11 and set(lines) == {1}, (width, lines)
    page.close()


def test_every_item_shows_its_interval_as_the_overall_row_does(
    live: tuple[Path, str], browser: Browser
) -> None:
    """The page showed 95% CIs on the overall row only, though the agreement it draws holds
    one for every item: each item's row shows its own, those `current_agreement` computes."""
    run, admin = live
    with RunStore(run, create=False) as store:
        report = current_agreement(store, db.load_survey(store, "experts"))
    assert report is not None
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(admin)
    rows = page.locator("tbody tr", has=page.locator("small.ci"))
    shown = {
        cells[0]: cells[2:]
        for cells in rows.evaluate_all(
            "rows => rows.map(r => Array.from(r.cells, c => {"
            "  const ci = c.querySelector('small.ci'); return ci ? ci.textContent : c.textContent;"
            "}))"
        )
    }
    expected = {
        item: [f"{fmt(row.ci_low.get(name))} – {fmt(row.ci_high.get(name))}" for name in STATISTICS]
        for item, row in [*report.items.items(), ("overall", report.overall)]
    }
    assert shown == expected
    assert any(value != "– – –" for item in report.items for value in shown[item])
    lines = page.locator("small.ci").evaluate_all("cs => cs.map(c => c.getClientRects().length)")
    assert set(lines) == {1} and page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.close()


def test_a_rater_who_answered_on_paper_is_not_shown_to_have_passed_the_check(
    live: tuple[Path, str], browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filled sheet has no attention check, yet the admin page showed "0 / 1" under "attention
    checks failed" for its rater (and `survey status` "0/1"): read as passed."""
    run, admin = live
    page = browser.new_page()
    page.goto(admin)
    row = page.locator("tbody tr", has=page.locator("td", has_text="ann"))
    assert row.locator("td").last.inner_text() == "not shown (imported)"
    page.close()
    monkeypatch.setattr(survey_answers_cmd, "console", Console(width=200))  # one line per rater
    status = CliRunner().invoke(app, ["survey", "status", "--run", str(run)])
    assert status.exit_code == 0, status.output
    ann = next(line for line in status.output.splitlines() if " ann " in line)
    assert "not shown (imported)" in ann and "0/1" not in ann


def test_a_rater_on_paper_whose_check_poem_is_not_imported_yet_has_not_skipped_the_check(
    live: tuple[Path, str], browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filled sheet has no attention check, yet while the poem that carries a paper rater's
    check was not imported, the admin page and `survey status` said "not answered yet", which
    reads as if the rater skipped it on the web."""
    run, admin = live
    page = browser.new_page()
    page.goto(admin)
    row = page.locator("tbody tr", has=page.locator("td", has_text="ben"))
    assert row.locator("td").nth(1).inner_text() == "3"  # the other poems are done
    assert row.locator("td").last.inner_text() == "not shown (on paper, not imported yet)"
    page.close()
    monkeypatch.setattr(survey_answers_cmd, "console", Console(width=200))  # one line per rater
    status = CliRunner().invoke(app, ["survey", "status", "--run", str(run)])
    assert status.exit_code == 0, status.output
    ben = next(line for line in status.output.splitlines() if " ben " in line)
    assert "not shown (on paper, not imported yet)" in ben and "not answered yet" not in ben


def test_a_check_reads_not_answered_yet_only_for_a_rater_on_the_web(tmp_path: Path) -> None:
    """A rater with imported answers only is on paper: the check of a poem not imported yet is
    "not shown", neither passed nor failed, and their ratings all enter the agreement; once
    they answer on the web, it is "not answered yet"; imported, "not shown (imported)"."""
    with prepared_store(tmp_path / "run", poems=4) as store:
        build_survey(store, raters="ann,ben", poems=4, checks=1, seed=1)
        survey = db.load_survey(store, "experts")
        pages = db.pages(store, "experts", "ann")
        checked = next(page for page in pages if page.check_expected is not None)
        rest = [page for page in pages if page is not checked]

        def ann() -> db.RaterProgress:
            return next(row for row in db.progress(store, "experts") if row.rater == "ann")

        def sheet(of: list[Page]) -> None:
            rows = [("ann", page.generation_id, key, 3.0, None)
                    for page in of for key in DIMENSION_KEYS]  # fmt: skip
            db.import_answers(store, "experts", rows, source="ann.csv", config={})

        assert ann().checks_text() == "not answered yet"  # nothing yet: web or paper alike
        sheet(rest[:2])
        assert (ann().checks_failed, ann().checks_taken) == (0, 0)
        assert ann().checks_text() == "not shown (on paper, not imported yet)"
        ratings, _ = survey.task.ratings(store.conn, "experts")
        assert len([r for r in ratings if r.rater == "ann"]) == 2 * len(DIMENSION_KEYS)
        db.save_edits(
            store, survey, "ann", rest[2], {"form": (4.0, None)}, {"form": 1}, required=[]
        )
        assert ann().checks_text() == "not answered yet"
        sheet([checked])
        assert ann().checks_text() == "not shown (imported)"


def test_an_import_named_web_is_refused_as_it_would_pass_for_answers_given_in_the_browser(
    tmp_path: Path,
) -> None:
    """An import's answers carry its file's name, web answers "web": an import named "web" was
    stored as if given in the browser (a page drawn before it could store over it, and its
    rater's attention check read "not answered yet" instead of "not shown (imported)")."""
    with prepared_store(tmp_path / "run", poems=4) as store:
        build_survey(store, raters="ann,ben", poems=4, checks=1, seed=1)
        rows = [("ann", page.generation_id, key, 3.0, None)
                for page in db.pages(store, "experts", "ann") for key in DIMENSION_KEYS]  # fmt: skip
        with pytest.raises(db.SurveyError, match=r"cannot be named 'web'.*rename the file"):
            db.import_answers(store, "experts", rows, source="web", config={})
        assert store.query("SELECT COUNT(*) FROM survey_answers")[0][0] == 0
        db.import_answers(store, "experts", rows, source="web.csv", config={})
        ann = next(row for row in db.progress(store, "experts") if row.rater == "ann")
    assert ann.checks_text() == "not shown (imported)"
