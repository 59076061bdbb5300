"""The survey form's buttons in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from survey_support import serving, survey_run

from poemetric.store import RunStore
from poemetric.survey import tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    run = survey_run(tmp_path_factory.mktemp("survey") / "run", poems=2)
    with RunStore(run, create=False) as store:
        build_survey(store, raters="ann,ben", per_rater=4, per_poem=2, seed=1)
    with serving(create_app(run, "experts")) as url:
        yield run, url


def _link(run: Path, url: str, rater: str) -> str:
    return f"{url}/r/{tokens.rater_token(tokens.load_secret(run), 'experts', rater)}"


def test_enter_on_an_answer_saves_and_goes_on_not_back(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Enter on a radio button submits the form with its first button, which on poem 2 on was
    "Previous poem": a keyboard rater confirming an answer was taken back a poem."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{_link(run, url, 'ann')}/2")
    page.wait_for_load_state("load")
    page.locator("#q-theme input[value='4']").focus()
    page.keyboard.press("Space")
    page.locator("#q-theme .saved").filter(has_text="saved").wait_for()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    # "Save and next" on an unfinished page: poem 2 again, with the questions still open.
    assert page.locator("h1").inner_text() == "Poem 2"
    assert "Question 1 needs an answer." in page.get_by_role("alert").first.inner_text()
    page.close()
