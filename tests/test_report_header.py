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

RTL_POET = "محمود درويش"
HEADER_BOTTOM = "document.querySelector('header.top').getBoundingClientRect().bottom"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("report-header") / "run"
    authors = ("human", *(f"model-{c}" for c in "abcde"))  # poems enough for the columns to stick
    with build_synthetic_run(run, authors=authors, poems_per_form=3) as store:
        store.conn.execute("UPDATE poems SET author = ? WHERE position = 0", (RTL_POET,))
        store.conn.commit()
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


#: The left edge of the first occurrence of `text` in the element's text, in the page.
LEFT_OF = """([node, text]) => {
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const at = t.data.indexOf(text);
    if (at < 0) { continue; }
    const range = document.createRange();
    range.setStart(t, at);
    range.setEnd(t, at + text.length);
    return range.getBoundingClientRect().left;
  }
  return null;
}"""


def test_a_right_to_left_poet_keeps_its_place_in_the_prompt_list(
    report: Path, browser: Browser
) -> None:
    """A poet's name in Arabic or Hebrew took the count after it into its run of right-to-left
    text: the prompt list read "ballad · 3 · محمود درويش poems" for "ballad · محمود درويش · 3
    poems"."""
    page = browser.new_page(viewport={"width": 1400, "height": 800})
    page.goto(report.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    meta = page.locator("#prompt-list li .meta").first
    assert meta.inner_text() == f"ballad · {RTL_POET} · 6 poems"
    handle = meta.element_handle()
    poet, count = (page.evaluate(LEFT_OF, [handle, text]) for text in (RTL_POET, "6"))
    assert poet is not None and count is not None and poet < count
    # the chosen prompt's head: its poet isolated too (a poem id may start with a digit)
    assert page.locator("#prompt-view .meta bdi").inner_text() == RTL_POET
    page.close()
