"""The survey page in headless Chromium: the list of poems follows the answers saved on it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect
from survey_support import live_survey, rater_link

from poemetric.judge import DIMENSION_KEYS

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    with live_survey(tmp_path_factory.mktemp("survey")) as served:
        yield served


def test_the_poem_list_ticks_the_open_poem_once_its_answers_complete_it(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Answering a poem's last required question saved it as done and the header said "1 of
    4 poems done", but the list of poems above still showed it without its tick (and without
    "answered" for a screen reader) until another page was loaded: the two disagreed."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/1")
    page.wait_for_load_state("load")
    current = page.locator("nav.pages a[aria-current='page']")
    for key in DIMENSION_KEYS[:-1]:
        page.locator(f"#q-{key} input[value='3']").check()
        page.locator(f"#q-{key} .saved").filter(has_text="saved").wait_for()
    assert "answered" not in current.inner_text()  # not done yet: one question is open
    page.locator(f"#q-{DIMENSION_KEYS[-1]} input[value='3']").check()
    page.locator(f"#q-{DIMENSION_KEYS[-1]} .saved").filter(has_text="saved").wait_for()
    assert page.locator("#progress-count").inner_text() == "1 of 4 poems done"
    expect(current).to_have_class(re.compile(r"\bdone\b"), timeout=3000)
    assert current.locator(".tick").inner_text() == "✓"
    assert current.evaluate("a => a.textContent") == "1✓ answered"
    page.close()
