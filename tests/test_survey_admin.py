"""The survey's admin page in headless Chromium: its agreement table, and raters who answered
on paper (imported sheets)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from survey_support import serving
from test_runner_support import prepared_store

from poemetric.judge import DIMENSION_KEYS
from poemetric.survey import db, tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """Two raters with an attention check each, who both answered on paper; the admin link."""
    run = tmp_path_factory.mktemp("admin") / "run"
    with prepared_store(run, poems=4) as store:
        build_survey(store, raters="ann,ben", poems=4, checks=1, seed=1)
        rows = [
            (rater, page.generation_id, key, float(1 + (3 * i + j + len(rater)) % 5), None)
            for rater in ("ann", "ben")
            for i, page in enumerate(db.pages(store, "experts", rater))
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
