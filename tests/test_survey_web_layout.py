"""The survey page's layout in headless Chromium, at 1280 px and on a phone: where the answer
options go, the focus ring, the size of what is clicked, the line above each question."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from survey_support import serving, survey_run

from poemetric.store import RunStore
from poemetric.survey import tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}
CHOICES = "fieldset.question:has(.options)"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    run = survey_run(tmp_path_factory.mktemp("survey") / "run", poems=2)
    with RunStore(run, create=False) as store:
        build_survey(store, raters="ann,ben", per_rater=4, per_poem=2, seed=1)
    with serving(create_app(run, "experts")) as url:
        yield f"{url}/r/{tokens.rater_token(tokens.load_secret(run), 'experts', 'ann')}"


def _open(browser: Browser, link: str, viewport: dict[str, int]) -> Page:
    page = browser.new_page(viewport=viewport)  # type: ignore[arg-type]
    page.goto(f"{link}/1")
    page.wait_for_load_state("load")
    return page


def _luminance(css: str) -> float:
    channels = [int(c) / 255 for c in re.findall(r"\d+", css)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _style(page: Page, selector: str) -> dict[str, str]:
    return dict(
        page.evaluate(
            "s => { const e = document.querySelector(s), c = getComputedStyle(e); return {"
            "width: c.outlineWidth, style: c.outlineStyle, color: c.outlineColor, "
            "offset: c.outlineOffset, background: c.backgroundColor}; }",
            selector,
        )
    )


def _page_background(page: Page) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def test_likert_options_lie_in_one_row_on_a_laptop_and_one_column_on_a_phone(
    live: str, browser: Browser
) -> None:
    """At 1280 px the five options wrapped into a grid of three columns (1 2 3 / 4 5), six with
    N/A into 3 + 3. They lie in one row, and one under the other on a phone."""
    for viewport, one_row in ((LAPTOP, True), (PHONE, False)):
        page = _open(browser, live, viewport)
        questions = page.locator(CHOICES)
        assert questions.count() >= 10
        for index in range(questions.count()):
            boxes = [o.bounding_box() for o in questions.nth(index).locator(".option").all()]
            assert len(boxes) in (5, 6)
            tops = [round(b["y"]) for b in boxes if b]
            lefts = [round(b["x"]) for b in boxes if b]
            if one_row:
                assert len(set(tops)) == 1, (index, tops)
                assert lefts == sorted(lefts)
            else:
                assert len(set(lefts)) == 1, (index, lefts)
                assert tops == sorted(tops) and len(set(tops)) == len(tops)
        page.close()


def test_each_option_is_a_target_of_24_px_and_44_px_high_on_a_phone(
    live: str, browser: Browser
) -> None:
    for viewport, least in ((LAPTOP, 24), (PHONE, 44)):
        page = _open(browser, live, viewport)
        for option in page.locator(".option").all():
            box = option.bounding_box()
            assert box and box["width"] >= 24 and box["height"] >= least, box
        page.close()


def test_the_poem_list_links_are_targets_of_24_px_and_44_px_on_a_phone(
    live: str, browser: Browser
) -> None:
    """The numbered links above each poem (how a rater goes back to change an answer) were
    37 x 23 px everywhere: under the 24 px minimum, and a small target on a phone, where the
    answer options are 44 px high."""
    for viewport, least in ((LAPTOP, 24), (PHONE, 44)):
        page = _open(browser, live, viewport)
        links = page.locator("nav.pages a").all()
        assert links
        for link in links:
            box = link.bounding_box()
            assert box and box["width"] >= least and box["height"] >= least, box
        page.close()


def test_the_keyboard_focus_is_a_ring_that_contrasts(live: str, browser: Browser) -> None:
    """The focus on a radio button was the browser's thin default ring, hard to see; on the
    dark-blue button it hardly showed. Both get a ring of at least 2 px with a contrast of at
    least 3:1 with what lies beside it."""
    page = _open(browser, live, LAPTOP)
    page.locator("#q-theme input").first.focus()
    page.keyboard.press("ArrowRight")
    ring = _style(page, "#q-theme .option:has(input:focus)")
    assert ring["style"] != "none" and float(ring["width"].removesuffix("px")) >= 2
    card = str(
        page.evaluate("getComputedStyle(document.querySelector('.questions')).backgroundColor")
    )
    assert _contrast(ring["color"], card) >= 3
    assert _contrast(ring["color"], ring["background"]) >= 3
    button = page.get_by_role("button", name="Save and next poem")
    button.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert button.evaluate("e => e === document.activeElement")
    ring = _style(page, ".actions button[value=next]")
    assert ring["style"] != "none" and float(ring["width"].removesuffix("px")) >= 2
    # 2 px off the button: the ring lies on the page, not on the dark blue.
    assert float(ring["offset"].removesuffix("px")) >= 2
    assert _contrast(ring["color"], _page_background(page)) >= 3
    page.close()


def test_no_line_runs_through_the_line_below_a_question(live: str, browser: Browser) -> None:
    """The question box's top border was drawn through its legend (the question's text), and
    ran on across the rest of the legend's last line, as if striking it through. The border
    lies above the question."""
    page = _open(browser, live, LAPTOP)
    for fieldset in page.locator(CHOICES).all():
        top = fieldset.evaluate("e => e.getBoundingClientRect().top")
        legend = fieldset.locator("legend").evaluate("e => e.getBoundingClientRect().top")
        assert legend - top >= 8, (top, legend)
    page.close()
