"""The report shows the agreement intervals `analyze` writes for the same run: both commands
take their bootstrap size and seed from one default (`report` used 200 resamples and `analyze`
500, so the report's intervals differed from the table a paper cites), and `report --seed`
exists as in `analyze`. In a browser, the wide agreement and judges tables scroll in their
own box, not the page."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run, write_synthetic_experts
from poemetric.analysis.validation import AGREEMENT_BOOTSTRAP, BOOTSTRAP_SEED
from poemetric.cli import app, options
from poemetric.report.build import load_report_run
from poemetric.report.render import ci
from poemetric.store import RunStore

if TYPE_CHECKING:
    from playwright.sync_api import Browser

STATS = ("pao", "adjacent", "qwk", "alpha_ordinal", "alpha_interval", "gwet_ac2_quadratic")
TABLES = ("agreement", "agreement_experts")


@pytest.fixture(scope="module")
def run_with_experts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("report-ci")
    with build_synthetic_run(base / "run", poems_per_form=3) as store:
        experts = write_synthetic_experts(
            store, base / "experts.csv", authors=("human", "model-a"), experts=3
        )
    return base / "run", experts


def _intervals_shown(page: Path) -> list[str]:
    """The `estimate [low, high]` cells of the page's agreement section, in order."""
    html = page.read_text(encoding="utf-8")
    section = html.split('id="agreement"', 1)[1].split("<section", 1)[0]
    return re.findall(r'<td class="num">([^<]*\[[^<]*\])</td>', section)


def _intervals_written(analysis: Path) -> list[str]:
    """The same cells formatted from `analyze`'s CSV tables, row by row."""
    cells = []
    for name in TABLES:
        for row in pd.read_csv(analysis / f"{name}.csv").to_dict("records"):
            for stat in STATS:
                low, high = row[f"{stat}_ci_low"], row[f"{stat}_ci_high"]
                if not (math.isnan(low) or math.isnan(high)):
                    cells.append(ci(row[stat], low, high))
    return cells


@pytest.mark.parametrize("bootstrap", [[], ["--bootstrap", "60", "--seed", "3"]])
def test_report_shows_the_intervals_analyze_writes(
    run_with_experts: tuple[Path, Path], tmp_path: Path, bootstrap: list[str]
) -> None:
    run, experts = run_with_experts
    given = ["--run", str(run), "--experts", str(experts), *bootstrap]
    runner = CliRunner()
    analyzed = runner.invoke(app, ["analyze", *given, "--out", str(tmp_path / "analysis")])
    assert analyzed.exit_code == 0, analyzed.output
    page = tmp_path / "report.html"
    reported = runner.invoke(app, ["report", *given, "--out", str(page)])
    assert reported.exit_code == 0, reported.output
    written = _intervals_written(tmp_path / "analysis")
    assert len(written) > 100  # every item and statistic of the judge and of the panel
    assert _intervals_shown(page) == written


def test_report_builder_defaults_give_analyze_tables_exactly(
    run_with_experts: tuple[Path, Path], tmp_path: Path
) -> None:
    run, experts = run_with_experts
    analyzed = CliRunner().invoke(
        app, ["analyze", "--run", str(run), "--experts", str(experts), "--out", str(tmp_path)]
    )
    assert analyzed.exit_code == 0, analyzed.output
    with RunStore(run, create=False) as store:
        report_run = load_report_run(store, experts=experts)
        for name in TABLES:
            shown = report_run.table(name)
            assert shown is not None
            written = pd.read_csv(tmp_path / f"{name}.csv")
            columns = [f"{stat}{end}" for stat in STATS for end in ("", "_ci_low", "_ci_high")]
            pd.testing.assert_frame_equal(
                shown[columns].reset_index(drop=True), written[columns], rtol=1e-12
            )


def test_cli_bootstrap_defaults_match_the_analysis() -> None:
    assert options.AGREEMENT_BOOTSTRAP == AGREEMENT_BOOTSTRAP
    assert options.BOOTSTRAP_SEED == BOOTSTRAP_SEED


def test_report_names_the_human_authorship_item_apart_from_the_human_poets(
    run_with_experts: tuple[Path, Path], tmp_path: Path
) -> None:
    # The item was shown as "Human", the name of the human poets' row, in the agreement table
    # and above its chart; the analysis tables call it "Human authorship".
    run, experts = run_with_experts
    page = tmp_path / "report.html"
    given = ["report", "--run", str(run), "--experts", str(experts), "--out", str(page)]
    reported = CliRunner().invoke(app, given)
    assert reported.exit_code == 0, reported.output
    html = page.read_text(encoding="utf-8")
    agreement = html.split('id="agreement"', 1)[1].split("<section", 1)[0]
    assert agreement.count("<td>Human authorship</td>") == 2  # judge vs experts, experts
    assert "<td>Human</td>" not in agreement
    dimensions = html.split('id="dimensions"', 1)[1].split("<section", 1)[0]
    assert dimensions.count("12. Human authorship</figcaption>") == 2  # judge, experts
    assert "12. Human</figcaption>" not in dimensions


#: Scrolls the box of the section's first table to its end, down and right, with the box at the
#: top of the screen under the page's header; whether the header's last cell is then on top there.
SCROLLED_HEAD_SHOWS = """section => {
  const table = document.querySelector(`#${section} table.data`), box = table.parentElement;
  box.scrollTop = box.scrollHeight; box.scrollLeft = box.scrollWidth;
  const header = document.querySelector('header.top');  // scrolls away under 600 px
  const sticky = getComputedStyle(header).position === 'sticky';
  const below = sticky ? header.getBoundingClientRect().bottom : 0;
  window.scrollBy(0, box.getBoundingClientRect().top - below);
  const head = table.querySelector('thead th:last-child').getBoundingClientRect();
  const shown = document.elementFromPoint(head.left + 2, head.top + 2);
  return [box.scrollTop > 0 || box.scrollHeight <= box.clientHeight, shown?.closest('th') !== null
          && shown.closest('th') === table.querySelector('thead th:last-child')];
}"""


#: How many of the cells have text wider than the cell shows.
CUT_CELLS = """cells => cells.filter(cell => { const r = document.createRange();
  r.selectNodeContents(cell); return r.getBoundingClientRect().width > cell.clientWidth; }).length"""


def test_wide_tables_scroll_in_their_own_box_keeping_their_header(
    run_with_experts: tuple[Path, Path], tmp_path: Path, browser: Browser
) -> None:
    """Under about 1090 px the judges and agreement tables made the whole page scroll sideways
    (no box of their own: one would have ended their sticky header row). The ghostwriting
    table's "Rhyme density [95% CI]" cells are checked alike, and none is cut."""
    run, experts = run_with_experts
    path = tmp_path / "report.html"
    given = ["report", "--run", str(run), "--experts", str(experts), "--bootstrap", "20"]
    reported = CliRunner().invoke(app, [*given, "--out", str(path)])
    assert reported.exit_code == 0, reported.output
    page = browser.new_page(viewport={"width": 1090, "height": 600})
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    for width in (390, 800, 1090):
        page.set_viewport_size({"width": width, "height": 600})
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for section in ("judges", "agreement", "ghostwriting"):
            assert page.evaluate(SCROLLED_HEAD_SHOWS, section) == [True, True], (width, section)
        intervals = page.locator("#ghostwriting table.data").first.locator("td:nth-child(3)")
        assert re.fullmatch(r"\d\.\d\d \[\d\.\d\d, \d\.\d\d\]", intervals.first.inner_text())
        assert intervals.evaluate_all(CUT_CELLS) == 0, width
    page.close()
