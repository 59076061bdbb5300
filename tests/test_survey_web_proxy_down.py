"""The survey behind a reverse proxy whose upstream (the survey server) stopped (headless
Chromium): the proxy still answers, with its own 502 page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from survey_support import live_survey, rater_link

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Route

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    with live_survey(tmp_path_factory.mktemp("survey")) as served:
        yield served


def test_a_button_pressed_while_the_proxy_answers_502_keeps_the_page(
    live: tuple[Path, str], browser: Browser
) -> None:
    """The button's check that the server answers took any answer for one, the proxy's "502 Bad
    Gateway" included (the autosave counts 5xx as not reached): the form went to the proxy,
    whose error page replaced the page and the answers not saved on it."""
    run, url = live
    link = f"{rater_link(run, url, 'ann')}/1"
    context = browser.new_context()
    page = context.new_page()
    page.goto(link)
    page.wait_for_load_state("load")

    def bad_gateway(route: Route) -> None:
        route.fulfill(status=502, content_type="text/html", body="<h1>502 Bad Gateway</h1>")

    context.route("**/*", bad_gateway)  # the survey server stopped; the proxy answers
    page.locator("textarea[name=comment_overall_quality]").fill("typed while it was down")
    page.get_by_role("button", name="Save and next poem").click()
    page.locator("#submit-status").filter(has_text="Not saved").wait_for(timeout=5000)
    assert "Poem 1" in page.locator("h1").inner_text()
    text = page.locator("textarea[name=comment_overall_quality]").input_value()
    assert text == "typed while it was down"
    context.close()
