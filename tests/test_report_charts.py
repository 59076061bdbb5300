"""The report's charts and tables in headless Chromium, on a judged run with the paper's 30 model
names: no author label is cut at the chart's left edge, and on a phone the chart text stays
readable (the chart scrolls sideways, as the tables do, instead of shrinking its text to 7 px)
and the tables keep author names on one line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poemetric.analysis.synthetic import build_synthetic_run, paper_scale_run
from poemetric.report import build_report

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: Every chart label's left edge (in the chart's own units) and its rendered font size (px).
LABELS = """() => [...document.querySelectorAll('svg.chart text.label')].map(t => {
  const svg = t.ownerSVGElement;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return {label: t.textContent, left: t.getBBox().x,
          px: parseFloat(getComputedStyle(t).fontSize) * scale};
})"""


@pytest.fixture(scope="module")
def paper_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a judged run of the paper's 31 authors (8 prompts: labels, not poems)."""
    run = tmp_path_factory.mktemp("charts") / "paper"
    with paper_scale_run(run, prompts={"ballad": 3, "sonnet": 3, "limerick": 2}) as store:
        return build_report(store)


def test_no_author_label_is_cut_at_the_charts_left_edge(
    paper_report: Path, browser: Browser
) -> None:
    """The per-dimension charts kept 170 units for labels: "DeepSeek-R1-Distill-Qwen-1.5B" lost
    its first letters ("pSeek-R1-...") in every one of them."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(paper_report.as_uri())
    labels = page.evaluate(LABELS)
    assert len(labels) == 31 * 11  # the leaderboard's and the 10 dimension charts' authors
    assert [x["label"] for x in labels if x["left"] < 0] == []


@pytest.mark.parametrize("width", [390, 1200])
def test_chart_text_stays_readable_on_a_phone(
    paper_report: Path, browser: Browser, width: int
) -> None:
    """The leaderboard's chart (560 units wide) was shrunk to a 350-px phone column: its 12-px
    labels drew at 7 px. Charts now keep their text at least 10 px and scroll sideways inside
    their figure; the page itself does not scroll sideways."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(paper_report.as_uri())
    sizes = [x["px"] for x in page.evaluate(LABELS)]
    assert min(sizes) >= 10, min(sizes)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_tables_on_a_phone_keep_names_and_images_readable(
    paper_report: Path, browser: Browser
) -> None:
    """At 390 px the tables (which scroll in their own box) squeezed their text columns instead:
    "DeepSeek-R1-Distill-Qwen-1.5B" broke over 4 lines at its hyphens, and the lexical table's
    "Top images" column was 78 px wide, its header 5 lines tall. An author's name now stays on
    one line and the images column keeps room for a few images a line."""
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto(paper_report.as_uri())
    lines = page.evaluate("""() => [...document.querySelectorAll('table.data td.author')]
      .map(td => { const r = document.createRange(); r.selectNodeContents(td);
                   return [td.textContent.trim(), r.getClientRects().length]; })""")
    assert lines and [name for name, count in lines if count > 1] == []
    images = page.locator("#lexical th", has_text="Top images").bounding_box()
    assert images is not None and images["width"] >= 180


@pytest.fixture(scope="module")
def long_list_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a run of 30 prompts: a prompt list taller than a phone's screen."""
    run = tmp_path_factory.mktemp("list") / "run"
    with build_synthetic_run(run, poems_per_form=10) as store:
        return build_report(store)


@pytest.mark.parametrize(("width", "height"), [(390, 800), (800, 390), (1400, 800)])
def test_tapping_a_prompt_on_a_phone_brings_its_poems_into_view(
    long_list_report: Path, browser: Browser, width: int, height: int
) -> None:
    """Below 960 px the browser stacks the prompt list above the poems, and the list was as
    tall as all its prompts: a tap on a prompt changed poems below the screen, so nothing
    seemed to happen. The list is now at most 60% of the screen high, and a tap brings the
    chosen prompt's poems up (on a phone held either way); side by side (1400 px) the page does
    not move."""
    page = browser.new_page(viewport={"width": width, "height": height}, has_touch=True)
    page.goto(long_list_report.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    listed = page.locator("#prompt-list")
    assert listed.evaluate("l => l.getBoundingClientRect().height") <= 0.6 * height + 2  # border
    item = page.locator("#prompt-list li[role=option]").nth(5)
    item.scroll_into_view_if_needed()
    title = item.locator(".title").inner_text()
    before = page.evaluate("scrollY")
    item.tap()
    heading = page.locator("#prompt-view h3")
    assert heading.inner_text() == title
    if width > 960:
        assert page.evaluate("scrollY") == before
        return
    box = heading.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height
