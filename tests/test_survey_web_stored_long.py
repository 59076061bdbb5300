"""A comment over the page's 10,000 characters stored before `survey import` refused them: its
page refused to save ("Question 11: not saved, ... shorten it") every time the rater pressed
"Save and next", though the rater had not touched it, so the poem could not be finished on the
web without first cutting someone's imported comment. Left unchanged it is now kept as stored,
with a note beside it asking to shorten it to change it, and the rest of the page saves and
goes on; changed and still over the limit it is refused as before. The real app in headless
Chromium, with and without JavaScript."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from survey_support import answers_of, live_survey, rater_link

from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore
from poemetric.survey import db

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
LONG = "an imported line of comment\n" * 500  # 14,000 characters, 4,000 over the limit
NOTE = (
    "Question 11: this comment was stored before the survey had a length limit and has 14,000 "
    "characters, 4,000 over the limit of 10,000. It is kept as it is while you leave it "
    "unchanged, and the rest of the page saves as usual; to change it, please shorten it to "
    "10,000 characters or fewer."
)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The survey with a comment over the limit stored for each rater's poem 2, as an import
    made before the import refused them stored it (`import_answers` itself takes any text)."""
    with live_survey(tmp_path_factory.mktemp("survey")) as (run, url):
        with RunStore(run, create=False) as store:
            rows = [
                (rater, db.pages(store, "experts", rater)[1].generation_id,
                 "comment_overall_quality", None, LONG)
                for rater in ("ann", "ben")
            ]  # fmt: skip
            db.import_answers(store, "experts", rows, source="old.csv", config={})
        yield run, url


def _poem_two(run: Path, rater: str) -> dict[str, tuple[object, object]]:
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", rater)[1].generation_id
    return {q: v for (g, q), v in answers_of(run, rater).items() if g == poem}


def _answer_and_go_on(page: Page) -> None:
    for key in DIMENSION_KEYS:
        page.locator(f"#q-{key} input[value='3']").check()
    page.get_by_role("button", name="Save and next poem").click()


def test_without_javascript_the_page_saves_and_keeps_the_comment(
    live: tuple[Path, str], browser: Browser
) -> None:
    run, url = live
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{rater_link(run, url, 'ben')}/2")
    note = page.locator("#q-comment_overall_quality .stored-long")
    assert " ".join(note.inner_text().split()) == NOTE
    box = page.locator("textarea[name=comment_overall_quality]")
    assert box.input_value() == LONG
    _answer_and_go_on(page)
    page.wait_for_url("**/3")  # it stayed on poem 2 with "not saved ... shorten it"
    stored = _poem_two(run, "ben")
    assert stored["comment_overall_quality"] == (None, LONG)
    assert {stored[key] for key in DIMENSION_KEYS} == {(3, None)}
    with RunStore(run, create=False) as store:
        assert 2 in db.completed_positions(store, "experts", "ben")

    page.goto(f"{rater_link(run, url, 'ben')}/2")
    box.fill(LONG + "!")  # changed and still over the limit: refused as ever
    page.get_by_role("button", name="Save and next poem").click()
    page.wait_for_load_state("load")
    assert page.locator("h1").inner_text() == "Poem 2"
    error = page.locator("#q-comment_overall_quality .field-error").first.inner_text()
    assert "14,001 characters is 4,001 over the limit" in error, error
    assert page.locator("#q-comment_overall_quality .stored-long").count() == 0
    assert _poem_two(run, "ben")["comment_overall_quality"] == (None, LONG)
    context.close()


def test_with_javascript_the_counter_says_kept_and_nothing_holds_the_page(
    live: tuple[Path, str], browser: Browser
) -> None:
    run, url = live
    page = browser.new_page()
    page.goto(f"{rater_link(run, url, 'ann')}/2")
    page.wait_for_load_state("load")
    counter = page.locator("#count-comment_overall_quality")
    assert counter.inner_text() == (
        "14,000 characters: 4,000 over the limit of 10,000. Kept as stored while unchanged; "
        "shorten it to change it."
    )
    box = page.locator("textarea[name=comment_overall_quality]")
    box.press("End")
    page.keyboard.type("!")
    assert "Shorten it to save it" in counter.inner_text()
    page.keyboard.press("Backspace")  # back to the text stored: kept again, not refused
    page.locator("#q-comment_overall_quality .saved").filter(has_text="kept as stored").wait_for()
    _answer_and_go_on(page)
    page.wait_for_url("**/3")
    assert _poem_two(run, "ann")["comment_overall_quality"] == (None, LONG)
    page.close()
