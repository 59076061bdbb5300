"""A page's form over 32 MiB (128 times the body limit) is refused unread; a browser got a bare
413 in JSON, the page gone and no word on what was saved. A browser's form now gets a page in
the survey's style saying nothing of it was saved and what was saved before is kept, with a
link back to the poem; the page's script (which asks for JSON) still gets JSON. The real app,
served by uvicorn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from survey_support import answers_of, live_survey, rater_link, serving

from poemetric.survey import tokens
from poemetric.survey.guard import MAX_BODY_BYTES
from poemetric.survey.oversize import FORM_TYPE, HARD_FACTOR
from poemetric.survey.web import create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow
KEPT = (
    "Nothing saved before is lost: your answers on other poems, and the answers on this poem "
    "that were saved earlier, are kept as they were."
)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    with live_survey(tmp_path_factory.mktemp("survey")) as served:
        yield served


def _form_over_the_limit(run: Path, rater: str) -> bytes:
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", rater)
    body = f"csrf={csrf}&form=4&comment_overall_quality=".encode()
    return body + b"x" * (MAX_BODY_BYTES * HARD_FACTOR + 1 - len(body))


def test_a_browsers_form_over_32_mib_gets_a_page_saying_what_is_kept(
    live: tuple[Path, str],
) -> None:
    run, url = live
    link = rater_link(run, url, "ben")
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", "ben")
    saved = httpx.post(f"{link}/2/save", data={"csrf": csrf, "field": "theme", "value": "3"})
    assert saved.status_code == 200, saved.text
    before = answers_of(run, "ben")
    browser_headers = {"content-type": FORM_TYPE, "accept": "text/html,*/*;q=0.8"}
    body = _form_over_the_limit(run, "ben")
    sent = httpx.post(f"{link}/2", content=body, headers=browser_headers, timeout=30)
    assert sent.status_code == 413 and sent.headers["content-type"].startswith("text/html")
    text = " ".join(sent.text.split())
    assert "<h1>Answers too large to save</h1>" in text
    assert (
        "The answers this page sent were 32.1 MB, more than the survey takes at once (32 MB), "
        "so <strong>none of them was saved</strong>." in text
    )
    assert KEPT in text
    assert '<a href="2">Open poem 2 again</a>' in text
    assert 'href="../../static/survey.css"' in text  # the survey's style, relative as every page
    assert "script-src 'self'" in sent.headers["content-security-policy"]
    assert answers_of(run, "ben") == before  # the theme saved before is kept, nothing added

    script = {"content-type": FORM_TYPE, "accept": "*/*"}  # what the page's fetch sends
    answer = httpx.post(f"{link}/2/save", content=body, headers=script, timeout=30)
    assert answer.status_code == 413 and answer.json()["error"].startswith("request too large")


def test_chromium_shows_the_page_and_its_link_opens_the_poem_as_saved(
    tmp_path: Path, browser: Browser
) -> None:
    """A form sent past the page's script (which keeps such a form unsent), e.g. the script
    not loaded: Chromium shows the page, not a bare 413. At a body limit of 16 KiB (refused
    over 2 MiB) to keep the upload short; the same code as at 256 KiB."""
    with live_survey(tmp_path) as (run, _):
        pass
    with serving(create_app(run, "experts", max_body=16 * 1024)) as url:
        page = browser.new_page()
        page.goto(f"{rater_link(run, url, 'ann')}/2")
        page.wait_for_load_state("load")
        page.locator("#q-theme input[value='4']").check()
        page.locator("#q-theme .saved").filter(has_text="saved").wait_for()
        with page.expect_navigation() as navigation:
            page.evaluate(
                """() => {
                  const box = document.querySelector('textarea[name=comment_overall_quality]');
                  box.value = 'x'.repeat(3 * 1024 * 1024);
                  document.querySelector('form').submit();  // no submit event: past the script
                }"""
            )
        response = navigation.value
        assert response is not None and response.status == 413
        assert page.locator("h1").inner_text() == "Answers too large to save"
        assert KEPT in page.locator("main").inner_text()
        assert page.evaluate("getComputedStyle(document.querySelector('.card')).borderRadius") == (
            "8px"  # survey.css applies
        )
        page.get_by_role("link", name="Open poem 2 again").click()
        page.wait_for_load_state("load")
        assert page.locator("h1").inner_text() == "Poem 2"
        assert page.locator("#q-theme input:checked").get_attribute("value") == "4"
        assert {q: v for (_, q), v in answers_of(run, "ann").items()} == {"theme": (4, None)}
        page.close()
