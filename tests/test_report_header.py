"""The report's sticky header is as tall as its nav makes it (two lines at about 960 to 1100 px,
several on a phone): a section linked to from the nav, and the poem browser's sticky columns,
start below the header at every width, never under it (they allowed for a fixed 4.6rem)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report import build_report

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HEADER_BOTTOM = "document.querySelector('header.top').getBoundingClientRect().bottom"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("report-header") / "run"
    authors = ("human", *(f"model-{c}" for c in "abcde"))  # poems enough for the columns to stick
    with build_synthetic_run(run, authors=authors, poems_per_form=3) as store:
        return build_report(store)


def _top(page: Page, selector: str) -> float:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return float(box["y"])


@pytest.mark.parametrize("width", [390, 1000, 1400])
def test_nothing_starts_under_the_sticky_header(report: Path, browser: Browser, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(report.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    hrefs = [a.get_attribute("href") for a in page.locator("header.top nav a").all()]
    assert len(hrefs) >= 5
    for href in hrefs:
        page.locator(f"header.top nav a[href='{href}']").click()
        heading = _top(page, f"{href} h2")
        header = page.evaluate(HEADER_BOTTOM)
        assert header <= heading < 800, (width, href, header, heading)
    # Scrolled just past the top of each sticky column's box, the column sticks below the
    # header (at 960 px and under the columns stack and scroll with the page).
    for column, box in ((".browser-side", ".browser"), (".original", ".prompt-layout")):
        page.evaluate(
            "box => scrollTo(0, document.querySelector(box).getBoundingClientRect().top"
            " + scrollY - 20)",
            box,
        )
        header = page.evaluate(HEADER_BOTTOM)
        assert _top(page, column) >= header, (width, column, header)
    assert errors == []
    page.close()
