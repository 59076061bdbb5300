"""The survey form in headless Chromium: Enter on an answer, a button pressed while the server
cannot be reached, a reload just after typing, a comment over the length limit, a form over the
body limit."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from survey_support import answers_of, live_survey, rater_link, serving

from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.tasks import MAX_TEXT_CHARS
from poemetric.survey.web import create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    with live_survey(tmp_path_factory.mktemp("survey")) as served:
        yield served


def test_enter_on_an_answer_saves_and_goes_on_not_back(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Enter on a radio button submits the form with its first button, which on poem 2 on was
    "Previous poem": a keyboard rater confirming an answer was taken back a poem."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/2")
    page.wait_for_load_state("load")
    page.locator("#q-theme input[value='4']").focus()
    page.keyboard.press("Space")
    page.locator("#q-theme .saved").filter(has_text="saved").wait_for()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    # "Save and next" on an unfinished page: poem 2 again, with the questions still open.
    assert page.locator("h1").inner_text() == "Poem 2"
    assert "Question 1 needs an answer." in page.get_by_role("alert").inner_text()
    page.close()


def test_a_button_pressed_offline_keeps_the_page_and_says_not_saved(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Pressing "Save and next" with the server out of reach replaced the page with the
    browser's error page: the answers given since the connection went (not saved) were lost.
    The page stays, says so, and the button sends them once the server answers again."""
    run, url = live
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{rater_link(run, url, 'ben')}/1")
    page.wait_for_load_state("load")
    context.set_offline(True)
    page.locator("#q-form input[value='5']").check()
    page.locator("textarea[name=comment_overall_quality]").fill("written offline")
    page.get_by_role("button", name="Save and next poem").click()
    notice = page.locator("#submit-status")
    notice.filter(has_text="Not saved").wait_for(timeout=5000)
    assert "Poem 1" in page.locator("h1").inner_text()
    assert page.locator("textarea[name=comment_overall_quality]").input_value() == "written offline"
    assert page.locator("#q-form input:checked").get_attribute("value") == "5"
    context.set_offline(False)
    with page.expect_navigation():
        page.get_by_role("button", name="Save and next poem").click()
    stored = {q: v for (_, q), v in answers_of(run, "ben").items()}
    assert stored["form"] == (5, None)
    assert stored["comment_overall_quality"] == (None, "written offline")
    context.close()


def test_a_reload_just_after_typing_shows_the_comment_typed(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A comment typed less than 0.7 s before a reload was saved as the page went, but the
    reloaded page was drawn before that save landed: it showed the comment before (here none),
    as if the typing were lost. The reloaded page shows what was typed, and it is stored."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/3")
    page.wait_for_load_state("load")
    box = page.locator("textarea[name=comment_human_authorship]")
    box.fill("typed, then reloaded")
    page.reload()
    page.wait_for_load_state("load")
    assert box.input_value() == "typed, then reloaded"
    deadline = time.monotonic() + 5  # saved as the page went, or again by the page drawn
    while (None, "typed, then reloaded") not in answers_of(run, "ann").values():
        assert time.monotonic() < deadline, "the comment was not stored"
        time.sleep(0.05)
    page.close()


def test_a_comment_over_the_limit_stays_whole_on_the_page_and_is_not_saved_cut(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A comment pasted over 10,000 characters was cut to 10,000 by the box's maxlength, with
    no word, and saved so: the rest was lost. The box keeps it whole, its counter says by how
    much it is over, nothing is saved until it is shortened, and "Save and next" keeps it."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ben')}/3")
    page.wait_for_load_state("load")
    box = page.locator("textarea[name=comment_overall_quality]")
    box.focus()
    page.keyboard.insert_text("abcde" * (MAX_TEXT_CHARS // 5 + 1))  # as a paste
    assert len(box.input_value()) == MAX_TEXT_CHARS + 5
    counter = page.locator("#count-comment_overall_quality")
    assert "5 over the limit of 10,000" in counter.inner_text()
    page.locator("#q-comment_overall_quality .saved").filter(has_text="too long").wait_for()
    with page.expect_navigation():
        page.get_by_role("button", name="Save and next poem").click()
    assert page.locator("h1").inner_text() == "Poem 3"
    assert len(box.input_value()) == MAX_TEXT_CHARS + 5  # drawn again as typed
    assert (
        "5 over the limit" in page.locator("#q-comment_overall_quality .field-error").inner_text()
    )
    assert not [t for _, t in answers_of(run, "ben").values() if t and len(t) > 100]
    box.press("End")
    for _ in range(5):
        box.press("Backspace")
    page.locator("#q-comment_overall_quality .saved").filter(has_text="saved").wait_for()
    assert counter.inner_text() == "10,000 of 10,000 characters"
    deadline = time.monotonic() + 5
    while (None, "abcde" * (MAX_TEXT_CHARS // 5)) not in answers_of(run, "ben").values():
        assert time.monotonic() < deadline, "the shortened comment was not stored"
        time.sleep(0.05)
    page.close()


def test_without_javascript_a_long_comment_is_refused_whole_and_line_breaks_count_once(
    live: tuple[Path, str],
) -> None:
    """A form sent without JavaScript sends each line break as CRLF: a comment of 9,995
    characters in 1,999 lines counted 11,994 and the whole page was refused ("Answer refused",
    every answer on it gone). It is stored; one over the limit draws the page again with the
    comment as typed and its error beside it, the other answers saved."""
    run, url = live
    token = rater_link(run, url, "ann").rsplit("/", 1)[1]
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", "ann")
    lines = "word\r\n" * 1999
    sent = httpx.post(f"{url}/r/{token}/4", data={"csrf": csrf, "comment_literary_devices": lines})
    assert sent.status_code == 422  # the required questions are still open, not a refusal
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "ann")[3].generation_id
    stored = {q: (s, t) for (g, q), (s, t) in answers_of(run, "ann").items() if g == poem}
    assert stored["comment_literary_devices"] == (None, "word\n" * 1999)
    long = "z" * (MAX_TEXT_CHARS + 1)
    sent = httpx.post(
        f"{url}/r/{token}/4",
        data={"csrf": csrf, "form": "3", "comment_literary_devices": long},
    )
    assert sent.status_code == 422
    assert f">{long}</textarea>" in sent.text
    assert "10,001 characters is 1 over the limit of 10,000" in sent.text
    stored = {q: (s, t) for (g, q), (s, t) in answers_of(run, "ann").items() if g == poem}
    assert stored["form"] == (3, None)
    assert stored["comment_literary_devices"] == (None, "word\n" * 1999)  # not cut, not replaced
    save = httpx.post(
        f"{url}/r/{token}/4/save",
        data={"csrf": csrf, "field": "comment_literary_devices", "value": long},
    )
    assert save.status_code == 400 and "1 over the limit" in save.json()["error"]


def test_without_javascript_a_form_over_the_body_limit_is_drawn_again_not_lost(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A page whose form was over the 256 KiB body limit (a long paste) got a bare 413 (JSON):
    without JavaScript the page and all typed on it were gone. The page comes back with the
    other answers saved, the paste's first 256 KiB in its box and an error saying it was too
    large."""
    run, url = live
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{rater_link(run, url, 'ben')}/4")
    page.locator("#q-form input[value='4']").check()
    page.locator("textarea[name=comment_literary_devices]").fill("kept as typed")
    paste = "abc " * 75_000  # 300,000 characters, sent as 300,000 bytes
    box = page.locator("textarea[name=comment_overall_quality]")
    box.fill(paste)
    with page.expect_navigation():
        page.get_by_role("button", name="Save and finish").click()
    assert page.locator("h1").inner_text() == "Poem 4"
    error = page.locator("#q-comment_overall_quality .field-error").inner_text()
    assert "too large to be sent whole" in error and "first 262,144 characters" in error, error
    assert box.input_value() == paste[:262_144]
    assert page.locator("textarea[name=comment_literary_devices]").input_value() == "kept as typed"
    assert page.locator("#q-form input:checked").get_attribute("value") == "4"
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "ben")[3].generation_id
    stored = {q: v for (g, q), v in answers_of(run, "ben").items() if g == poem}
    assert stored["form"] == (4, None)
    assert stored["comment_literary_devices"] == (None, "kept as typed")
    assert "comment_overall_quality" not in stored  # refused whole, not stored cut
    context.close()


def test_a_paste_too_large_to_send_keeps_the_page_with_it_whole(
    live: tuple[Path, str], browser: Browser
) -> None:
    """With JavaScript, "Save and next" sent a form over the body limit all the same: a bare
    413 replaced the page (now the server would keep the paste's beginning only). The page
    stays, the paste whole in its box, and says which answer to shorten."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/1")
    page.wait_for_load_state("load")
    box = page.locator("textarea[name=comment_human_authorship]")
    box.fill("abc " * 75_000)
    page.get_by_role("button", name="Save and next poem").click()
    notice = page.locator("#submit-status").filter(has_text="too long to send")
    notice.wait_for(timeout=5000)
    assert "question 13" in notice.inner_text()
    assert page.locator("h1").inner_text() == "Poem 1"
    assert len(box.input_value()) == 300_000
    page.close()


def test_three_comments_at_the_limit_in_non_latin_script_are_saved(live: tuple[Path, str]) -> None:
    """Three comments of 10,000 CJK characters (9 bytes each as the form sends them) made a
    body of 270 KB, over the 256 KiB limit: refused with a bare 413 though each was within
    the 10,000 characters. They are saved."""
    run, url = live
    token = rater_link(run, url, "ben").rsplit("/", 1)[1]
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", "ben")
    comments = {key: "詩" * MAX_TEXT_CHARS for key in
                ("comment_literary_devices", "comment_overall_quality", "comment_human_authorship")}  # fmt: skip
    sent = httpx.post(f"{url}/r/{token}/2", data={"csrf": csrf, **comments}, timeout=10)
    assert sent.status_code == 422, sent.text[:200]  # the scores are still open, not a refusal
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "ben")[1].generation_id
    stored = {q: t for (g, q), (_, t) in answers_of(run, "ben").items() if g == poem}
    assert stored == comments


def _under_prefix(app: Any) -> Any:
    """`app` behind a reverse proxy serving it under /survey/ (which it strips), answering 404
    to anything outside the prefix."""

    async def proxy(scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and not path.startswith("/survey/"):
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b"outside the prefix"})
            return
        if scope["type"] == "http":
            scope = {**scope, "path": path.removeprefix("/survey"), "raw_path": None}
        await app(scope, receive, send)

    return proxy


def test_the_survey_works_behind_a_proxy_under_a_path_prefix(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Behind a reverse proxy serving the survey under /survey/, the pages named /static/... and
    /r/TOKEN/... from the site's root: no styles, no script, and every link and form led out of
    the survey. Every address is relative: the whole round trip stays under the prefix."""
    run, _ = live
    with serving(_under_prefix(create_app(run, "experts"))) as url:
        token = tokens.rater_token(tokens.load_secret(run), "experts", "ann")
        page = browser.new_page()
        page.goto(f"{url}/survey/r/{token}")
        background = "getComputedStyle(document.body).backgroundColor"
        assert page.evaluate(background) == "rgb(246, 245, 242)"  # survey.css loaded
        with page.expect_navigation():
            page.get_by_role("link", name="with poem").click()
        assert page.url.startswith(f"{url}/survey/r/{token}/")
        page.locator("#q-imagery input[value='2']").check()
        page.locator("#q-imagery .saved").filter(has_text="saved").wait_for()  # survey.js ran
        assert page.locator("#q-imagery .saved").inner_text() == "saved"
        with page.expect_navigation():
            page.get_by_role("button", name="Save and next poem").click()
        assert page.url.startswith(f"{url}/survey/r/{token}/")
        assert "Question 1 needs an answer." in page.get_by_role("alert").inner_text()
        with page.expect_navigation():
            page.locator("nav.pages a").last.click()
        assert page.url.startswith(f"{url}/survey/r/{token}/")
        assert page.evaluate(background) == "rgb(246, 245, 242)"
        page.close()


def test_a_trailing_slash_under_a_path_prefix_stays_under_it(live: tuple[Path, str]) -> None:
    """A rater's link typed or pasted with a trailing slash (/survey/r/TOKEN/) was redirected
    by the web framework to an absolute address without the proxy's prefix (/r/TOKEN): outside
    the survey. The redirect is relative to the page, so it stays under the prefix."""
    run, _ = live
    token = tokens.rater_token(tokens.load_secret(run), "experts", "ann")
    with serving(_under_prefix(create_app(run, "experts"))) as url:
        for path, location in [(f"r/{token}/", f"../{token}"), (f"r/{token}/2/?a=1", "../2?a=1")]:
            response = httpx.get(f"{url}/survey/{path}", timeout=10)
            assert response.status_code == 307, path
            assert response.headers["location"] == location
            followed = httpx.get(f"{url}/survey/{path}", timeout=10, follow_redirects=True)
            assert followed.status_code == 200, path
            assert str(followed.url) == f"{url}/survey/{path.rstrip('/').replace('/?', '?')}"
        assert httpx.get(f"{url}/survey/r/{token}//", timeout=10).status_code == 404
        assert httpx.get(f"{url}/survey/nowhere/", timeout=10).status_code == 404
