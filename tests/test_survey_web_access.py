"""The survey pages with the keyboard only, on a phone-sized screen, as a screen reader sees
them (headless Chromium)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from survey_support import answers_of, live_survey, rater_link

from poemetric.judge import DIMENSION_KEYS
from poemetric.questionnaire import QUESTION_FIELDS
from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.instrument import appendix_c_survey

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
PHONE = {"width": 375, "height": 740}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    with live_survey(tmp_path_factory.mktemp("survey")) as served:
        yield served


def _focused(page: Page) -> dict[str, str]:
    return dict(
        page.evaluate(
            "() => { const e = document.activeElement; return {tag: e.tagName, "
            "id: e.id, name: e.name || '', role: e.getAttribute('role') || '', "
            "text: e.textContent.trim().slice(0, 60)}; }"
        )
    )


def test_a_refused_page_moves_the_focus_to_its_errors_keyboard_only(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Enter on "Save and next" with questions unanswered: the error summary (role=alert) was
    drawn, but the focus stayed on the page's body, so a screen reader did not read it and the
    keyboard started again at the top. It takes the focus; each error leads to its question."""
    run, url = live
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{rater_link(run, url, 'ann')}/1")
    page.wait_for_load_state("load")
    page.get_by_role("button", name="Save and next poem").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    errors = page.get_by_role("alert")
    assert "Question 1 needs an answer." in errors.inner_text()
    assert _focused(page)["role"] == "alert"
    page.keyboard.press("Tab")
    focused = _focused(page)
    assert (focused["tag"], focused["text"]) == ("A", "Question 1 needs an answer.")
    page.keyboard.press("Enter")  # to question 1; Tab goes on to its first option
    page.keyboard.press("Tab")
    assert _focused(page)["name"] == "form"
    page.keyboard.press("Space")
    page.locator("#q-form .saved").filter(has_text="saved").wait_for()
    assert page.locator("#q-form input:checked").get_attribute("value") == "1"
    page.close()


def test_on_a_phone_the_header_never_covers_the_question_in_focus(
    live: tuple[Path, str], browser: Browser
) -> None:
    """The sticky header (title and progress, three lines on a phone) covered the top of the
    screen: Shift+Tab up to a comment box scrolled it under the header, with its question,
    and an error's link to a question scrolled the question's statement under it."""
    run, url = live
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{rater_link(run, url, 'ben')}/1")
    page.wait_for_load_state("load")
    hidden = (
        "() => { const e = document.activeElement, q = e.closest('fieldset') || e;"
        " const top = q.querySelector('legend')?.getBoundingClientRect().top ?? 0;"
        " return document.querySelector('header.top').getBoundingClientRect().bottom"
        " - Math.min(top, e.getBoundingClientRect().top); }"
    )
    page.get_by_role("button", name="Save and next poem").focus()
    for _ in range(12):  # the last comment box and question 12's options
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(hidden) <= 0, _focused(page)
    page.get_by_role("button", name="Save and next poem").click()
    page.get_by_role("link", name="Question 7 needs an answer.").click()
    page.keyboard.press("Tab")
    assert _focused(page)["name"] == "imagery"
    assert page.evaluate(hidden) <= 0
    page.close()


def test_the_admin_page_counts_answers_not_empty_comment_boxes(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A click on "Save and next" sends the three comment boxes, empty or not, and the admin page (and
    `survey status`) counted each empty one as an answer: 13 answers for 10 ticked questions."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/2")
    page.wait_for_load_state("load")
    for key in DIMENSION_KEYS:
        page.locator(f"#q-{key} input[value='3']").check()
    page.locator("#q-comment_overall_quality textarea").fill("a fine poem")
    page.get_by_role("button", name="Save and next poem").click()
    page.wait_for_url("**/3")
    stored = answers_of(run, "ann")
    assert any(text == "" for _, text in stored.values())  # the empty boxes are stored
    given = sum(score is not None or bool(text) for score, text in stored.values())
    page.goto(f"{url}/admin/{tokens.admin_token(tokens.load_secret(run), 'experts')}")
    row = page.locator("tbody tr", has=page.locator("td", has_text="ann"))
    assert row.locator("td").nth(3).inner_text() == str(given)
    page.close()


def test_the_list_of_poems_says_which_are_answered_not_by_colour_alone(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A done poem's link in the list of poems differed from an unfinished one only by a light
    green (1.1:1 against white) and a title that only a mouse shows: a rater who had skipped a
    poem could not find it, and a screen reader read "1", "2" for both. A done poem's link
    shows a tick and is named "N answered"."""
    run, url = live
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{rater_link(run, url, 'ben')}/2")
    page.wait_for_load_state("load")
    for key in DIMENSION_KEYS:
        page.locator(f"#q-{key} input[value='4']").check()
        page.locator(f"#q-{key} .saved").filter(has_text="saved").wait_for()
    page.reload()
    nav = page.get_by_role("navigation", name="Your poems")
    assert nav.get_by_role("link", name="2 answered", exact=True).count() == 1
    assert nav.get_by_role("link", name="1", exact=True).count() == 1  # not answered
    tick = nav.get_by_role("link", name="2 answered").locator(".tick")
    assert tick.is_visible() and tick.inner_text() == "✓"
    assert nav.get_by_role("link", name="1", exact=True).locator(".tick").count() == 0
    page.close()


def test_save_and_finish_with_a_poem_unfinished_says_which_is_left(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A press on "Save and finish" on the last poem, with an earlier one unfinished, opened that
    earlier poem with no word of why: the rater took it for their finish not having worked. It opens
    the thank-you page, which names the poems not finished yet, each a link."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/4")
    page.wait_for_load_state("load")
    for key in DIMENSION_KEYS:
        page.locator(f"#q-{key} input[value='2']").check()
    with page.expect_navigation():
        page.get_by_role("button", name="Save and finish").click()
    assert page.url.endswith("/done")
    assert page.get_by_role("heading", name="Thank you for your answers so far").count() == 1
    with RunStore(run, create=False) as store:
        done = db.completed_positions(store, "experts", "ann")
    left = [f"poem {n}" for n in range(1, 5) if n not in done]
    assert 4 in done and left and "poem 1" in left
    unfinished = page.locator("p.unfinished")
    assert unfinished.inner_text() == f"Not finished yet: {', '.join(left)}."
    unfinished.get_by_role("link", name=left[0]).click()
    page.wait_for_url(f"**/{left[0].split()[1]}")
    page.close()


def test_each_comment_box_is_named_by_what_its_question_asks(
    live: tuple[Path, str], browser: Browser
) -> None:
    """A screen reader named the comment boxes "Question 9" etc. alone, not what they ask. Each
    is named by its question's own legend (number and words), the words on screen unchanged."""
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ben')}/2")
    page.wait_for_load_state("load")
    asked = [q for q in appendix_c_survey().questions if not q.options]
    assert asked and page.get_by_role("textbox").count() == len(asked)
    for question in asked:
        name = f"{question.number}. {question.text}"
        box = page.get_by_role("textbox", name=name, exact=True)
        assert box.count() == 1, name
        assert box.get_attribute("name") == QUESTION_FIELDS[question.number]
        legend = page.locator(f"#q-{QUESTION_FIELDS[question.number]} legend")
        assert " ".join(legend.inner_text().split()) == name
    page.close()


def test_no_page_of_the_survey_asks_for_anything_the_server_lacks(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Chromium asked every page for /favicon.ico, which the app does not serve: a 404 in the
    browser's console on every page, which a rater reporting a problem would send with it. The
    pages name a small icon of the app's own, so the welcome, poem and admin pages make no failed request and
    log no error."""
    run, url = live
    page = browser.new_page()
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    admin = f"{url}/admin/{tokens.admin_token(tokens.load_secret(run), 'experts')}"
    for address in (rater_link(run, url, "ann"), f"{rater_link(run, url, 'ann')}/1", admin):
        page.goto(address)
        page.wait_for_load_state("networkidle")
    page.close()
    assert failed == []
