"""The report's charts draw authors as the run's figures do (the human poets vermillion, up to 7
LLMs each in its run colour, the experts hollow and dashed) and say so in a legend above the
rows: every LLM dot was one blue, the experts' dots differed only in shade, and no chart had a
legend."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from expert_poems_support import write_experts
from typer.testing import CliRunner

from poemetric.analysis.data import load_run_data
from poemetric.analysis.plotting import HUMAN_COLOUR, SINGLE_LLM_COLOUR, run_palette
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.report.svg import Row, interval_chart
from poemetric.store import RunStore

if TYPE_CHECKING:
    from playwright.sync_api import Browser

AUTHORS = ("human", "model-a", "model-b", "model-c")

#: Per chart: its legend's labels and box, its rows' top, and each dot's tooltip and look.
CHARTS = """() => [...document.querySelectorAll('svg.chart')].map(svg => {
  const legend = svg.querySelector('g.legend');
  const labels = [...svg.querySelectorAll('text.label')];
  return {
    legend: legend ? [...legend.querySelectorAll('text')].map(t => t.textContent) : [],
    legendBottom: legend ? legend.getBBox().y + legend.getBBox().height : null,
    rowsTop: Math.min(...labels.map(t => t.getBBox().y)),
    legendRight: legend ? legend.getBBox().x + legend.getBBox().width : null,
    width: svg.viewBox.baseVal.width,
    dots: [...svg.querySelectorAll(':scope > circle')].map(c => ({
      tip: c.querySelector('title').textContent, fill: c.getAttribute('fill'),
      stroke: c.getAttribute('stroke')})),
  };
})"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a run of the human poets and 3 models whose experts rated poems of the
    human poets and model-a."""
    base = tmp_path_factory.mktemp("chart-colours")
    build_synthetic_run(base / "run", authors=AUTHORS, poems_per_form=2).close()
    with RunStore(base / "run", create=False) as store:
        judged = load_run_data(store).judgments
    rated = judged[judged["author"].isin(["human", "model-a"])]["generation_id"].unique()
    experts = write_experts(base / "experts.csv", dict.fromkeys(rated[:12], 3))
    page = base / "index.html"
    result = CliRunner().invoke(app, ["report", "--run", str(base / "run"), "--experts",
                                      str(experts), "--out", str(page)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return page


def test_report_charts_use_the_figures_colours_with_a_legend(
    report: Path, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(report.as_uri())
    charts = page.evaluate(CHARTS)
    palette = run_palette(AUTHORS)
    shown = {"Human": "human", "model-a": "model-a", "model-b": "model-b", "model-c": "model-c"}
    matched = [c for c in charts if any("experts" in d["tip"].lower() for d in c["dots"])]
    every = [c for c in charts if c not in matched]
    assert matched and every
    for chart in charts:
        assert chart["legendBottom"] <= chart["rowsTop"], chart  # above the rows, not on them
        assert chart["legendRight"] <= chart["width"], chart
    for chart in every:  # the leaderboard and the judge over every poem
        assert chart["legend"] == ["Human poets", "LLMs (a colour each)"]
        for dot in chart["dots"]:
            author = shown[dot["tip"].split(":")[0]]
            assert dot["fill"] == palette[author], dot
    for chart in matched:
        # one LLM (model-a) beside the experts: one LLM dot in the legend
        assert chart["legend"] == ["Human poets", "LLMs", "Experts"]
        for dot in chart["dots"]:
            if "experts" in dot["tip"].lower():
                assert dot["fill"] == "#fff" and dot["stroke"] == "#6b6b6b", dot  # hollow grey
            else:
                assert dot["fill"] == palette[shown[dot["tip"].split(" · ")[0]]], dot
    page.close()


def test_many_llms_are_one_blue_as_in_the_figures() -> None:
    """Past 7 LLMs the figures draw every LLM in one blue: the report's charts too (the legend
    then shows one LLM dot)."""
    rows = [Row("Human", 4.0, 3.5, 4.5, human=True, colour=HUMAN_COLOUR)] + [
        Row(f"m{i}", 3.0, colour=SINGLE_LLM_COLOUR) for i in range(8)
    ]
    chart = str(interval_chart(rows, domain=(1, 5), ticks=[1, 5], title="t"))
    assert ">Human poets</text>" in chart and ">LLMs</text>" in chart


def test_a_chart_of_one_kind_of_row_has_no_legend() -> None:
    rows = [Row("m1", 3.0, 2.0, 4.0), Row("m2", 2.0, math.nan, math.nan)]
    chart = str(interval_chart(rows, domain=(1, 5), ticks=[1, 5], title="t"))
    assert 'class="legend"' not in chart


def test_expert_whiskers_are_dashed() -> None:
    rows = [Row("a · judge", 3.0, 2.0, 4.0), Row("a · experts", 3.5, 3.0, 4.0, expert=True,
                                                    colour="#6b6b6b")]  # fmt: skip
    chart = str(interval_chart(rows, domain=(1, 5), ticks=[1, 5], title="t"))
    dashed = [part for part in chart.split("<line") if 'stroke-dasharray="3 2"' in part]
    assert len(dashed) == 2  # the expert row's whisker and its legend sample
