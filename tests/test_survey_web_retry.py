"""Answers whose autosave failed (headless Chromium): sent again once the server is reached, and
a poem-number link keeps the page while one is still not saved."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from survey_support import answers_of, live_survey, rater_link

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Response, Route

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    with live_survey(tmp_path_factory.mktemp("survey"), raters="ann,ben,cy", per_poem=3) as served:
        yield served


def _stored(run: Path, rater: str, question: str) -> list[tuple[object, object]]:
    return [v for (_, q), v in answers_of(run, rater).items() if q == question]


def _until(check: object, seconds: float = 8) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _pumping(page: Page, check: object, seconds: float = 8) -> None:
    """`_until` for a check on what route and event handlers record: they run only while
    Playwright is waited on, not during `time.sleep`."""
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        page.wait_for_timeout(50)


def test_a_failed_autosave_is_sent_again_once_the_server_answers(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A radio answer and a comment saved while the server was out of reach said "not saved"
    and stayed unsaved after the connection came back, unless changed again. They are sent
    again (the next save that gets through, the `online` event, a timer), each saved once."""
    run, url = live
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/1")
    page.wait_for_load_state("load")
    saves: list[str] = []

    def answered(response: Response) -> None:
        if response.url.endswith("/save") and response.ok:
            saves.append(str(response.request.post_data))

    page.on("response", answered)
    context.set_offline(True)
    page.locator("#q-form input[value='4']").check()
    page.locator("textarea[name=comment_overall_quality]").fill("typed offline")
    page.locator("#q-comment_overall_quality .saved").filter(has_text="not saved").wait_for()
    assert "not saved" in page.locator("#q-form .saved").inner_text()
    context.set_offline(False)
    _until(lambda: _stored(run, "ann", "form") == [(4, None)])
    _until(lambda: _stored(run, "ann", "comment_overall_quality") == [(None, "typed offline")])
    page.locator("#q-form .saved").filter(has_text="saved").wait_for()
    assert page.locator("#q-form .saved").inner_text() == "saved"
    time.sleep(2.5)  # a retry timer left running would send them again
    assert sum("field=form&" in body for body in saves) == 1
    assert sum("field=comment_overall_quality&" in body for body in saves) == 1
    context.close()


def test_the_next_save_that_gets_through_sends_the_failed_one(
    live: tuple[Path, str], browser: Browser
) -> None:
    """No `online` event (the server, not the connection, was down): the next answer that is
    saved takes the one that failed with it."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ben')}/1")
    page.wait_for_load_state("load")

    def refuse(route: Route) -> None:
        route.abort()

    page.route("**/save", refuse)
    page.locator("#q-theme input[value='2']").check()
    page.locator("#q-theme .saved").filter(has_text="not saved").wait_for()
    page.unroute("**/save", refuse)
    page.locator("#q-imagery input[value='3']").check()
    _until(lambda: _stored(run, "ben", "theme") == [(2, None)])
    assert _stored(run, "ben", "imagery") == [(3, None)]
    page.close()


def test_a_poem_link_keeps_the_page_while_an_answer_is_not_saved(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Following a poem-number link with an answer not saved (the server out of reach) left the
    page, the only copy of the answer: the browser's error page, the answer lost. The link keeps
    the page and says which answer is not saved; once the server is reached it saves and goes."""
    run, url = live
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{rater_link(run, url, 'cy')}/1")
    page.wait_for_load_state("load")
    context.set_offline(True)
    page.locator("#q-vocabulary input[value='5']").check()
    page.locator("#q-vocabulary .saved").filter(has_text="not saved").wait_for()
    page.locator("nav.pages a", has_text="2").click()
    notice = page.locator("#nav-status")
    notice.filter(has_text="Not saved").wait_for()
    assert "question 3" in notice.inner_text()
    assert page.locator("h1").inner_text() == "Poem 1"
    assert page.locator("#q-vocabulary input:checked").get_attribute("value") == "5"
    context.set_offline(False)
    with page.expect_navigation():
        page.locator("nav.pages a", has_text="2").click()
    assert page.locator("h1").inner_text() == "Poem 2"
    assert _stored(run, "cy", "vocabulary") == [(5, None)]
    context.close()


def test_an_older_save_failing_after_a_newer_one_was_saved_changes_nothing(
    live: tuple[Path, str], browser: Browser
) -> None:
    """An answer changed quickly has two saves in flight; the older one failing after the newer
    was saved marked the answer "not saved" anyway, until the retry 2 s later sent it again. A
    failure of a save the answer has been changed since leaves the newer save's report."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/2")
    page.wait_for_load_state("load")
    held: list[Route] = []
    posts: list[str] = []
    failed: list[str] = []

    def hold_first(route: Route) -> None:
        posts.append(str(route.request.post_data))
        if not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/save", hold_first)
    page.on("requestfailed", lambda request: failed.append(request.url))
    status = page.locator("#q-theme .saved")
    page.locator("#q-theme input[value='2']").check()
    _pumping(page, lambda: held)
    page.locator("#q-theme input[value='4']").check()
    _pumping(page, lambda: status.inner_text() == "saved")  # the newer save: its route goes on
    assert len(held) == 1 and "value=2" in posts[0]
    held[0].abort()
    _pumping(page, lambda: failed)
    page.wait_for_timeout(300)  # the page's failure handler has run
    assert status.inner_text() == "saved"
    page.wait_for_timeout(2500)  # a retry timer would send it again after 2 s
    assert status.inner_text() == "saved"
    assert len(posts) == 2
    assert _stored(run, "ann", "theme") == [(4, None)]
    page.close()
