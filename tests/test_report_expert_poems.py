"""The report compares the judge with the experts over the same poems, as Figs. 6-8 do: its
per-dimension section drew the judge over every poem and the experts over the poems they rated,
in separate charts, so a reader compared different poems (and the report disagreed with the
paper's figure). The judge over every poem is still shown, labelled as such."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from expert_poems_support import half_judged_run, write_experts
from typer.testing import CliRunner

from poemetric.analysis.data import load_run_data
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.questionnaire import DIMENSION_KEYS, DIMENSIONS_BY_KEY
from poemetric.store import RunStore
from poemetric.tables.headers import dimension_label

if TYPE_CHECKING:
    from playwright.sync_api import Browser

RATED = ("human", "model-a")  # model-b is left unrated
SHOWN_AS = {"human": "Human"}  # the author labels of the page
#: Dimensions without N/A answers: a poem's score is the mean of the judge's samples.
KEYS = [key for key in DIMENSION_KEYS if not DIMENSIONS_BY_KEY[key].allows_na]
#: Each dot's tooltip: `label: mean [low, high]`, per figure of a block.
DOTS = """block => [...block.querySelectorAll('figure')].map(f => [
  f.querySelector('figcaption').textContent,
  [...f.querySelectorAll('circle title')].map(t => t.textContent)])"""


def _means(judgments: pd.DataFrame, key: str) -> dict[str, float]:
    """The judge's mean per author: over poems, a poem's samples averaged first."""
    per_poem = judgments.groupby(["author", "generation_id"])[key].mean()
    means = per_poem.groupby(level="author").mean().to_dict()
    return {SHOWN_AS.get(str(a), str(a)): float(m) for a, m in means.items()}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    """The report of a run whose two experts rated, of human and model-a, the 3 poems the judge
    scored lowest on form; the judge's judgments of every poem and of the rated ones."""
    base = tmp_path_factory.mktemp("report-expert-poems")
    build_synthetic_run(base / "run", poems_per_form=3).close()
    with RunStore(base / "run", create=False) as store:
        judgments = load_run_data(store).judgments
    per_poem = judgments.groupby(["author", "generation_id"])["form"].mean().reset_index()
    rated = per_poem[per_poem["author"].isin(RATED)].sort_values(["form", "generation_id"])
    rated = rated.groupby("author").head(3)
    experts = write_experts(base / "experts.csv", dict.fromkeys(rated["generation_id"], 3))
    page = base / "report" / "index.html"
    given = ["report", "--run", str(base / "run"), "--experts", str(experts), "--out", str(page)]
    result = CliRunner().invoke(app, given)
    assert result.exit_code == 0, result.output
    on_rated = judgments[judgments["generation_id"].isin(rated["generation_id"])]
    return page, judgments, on_rated


def _shown(dots: list[list[object]], rater: str) -> dict[tuple[str, str], float]:
    """(dimension label, author) -> the mean a dot of `rater` shows (`author · rater` in a
    chart of several raters, `author` in one of a rater)."""
    shown = {}
    for caption, titles in dots:
        label = str(caption).split(". ", 1)[1]
        for title in titles:  # type: ignore[union-attr]
            match = re.fullmatch(r"(.+?)(?: · (.+))?: (\d\.\d\d) \[.*\]", str(title))
            assert match is not None, title
            if match[2] in (rater, None):
                shown[label, match[1]] = float(match[3])
    return shown


def test_report_shows_the_judge_on_the_experts_poems_beside_them(
    report: tuple[Path, pd.DataFrame, pd.DataFrame], browser: Browser
) -> None:
    page_path, judgments, on_rated = report
    page = browser.new_page(viewport={"width": 1200, "height": 2400})
    page.goto(page_path.as_uri())
    section = page.locator("#dimensions")
    matched = section.locator('.small-multiples[data-poems="rated"]')
    every = section.locator('.small-multiples[data-poems="all"]')
    assert matched.count() == 1 and every.count() == 1
    text = section.inner_text()
    assert "judge-x and Human experts: the poems the experts rated" in text
    assert "the poems the experts rated (3 poems per author;" in text
    assert "only in the charts over every poem below: model-b" in text
    assert "judge-x: every poem" in text and "Over every poem of each author (9 poems" in text

    judge_shown = _shown(matched.evaluate(DOTS), "judge-x")
    experts_shown = _shown(matched.evaluate(DOTS), "Human experts")
    all_shown = _shown(every.evaluate(DOTS), "judge-x")
    differs = 0
    for key in KEYS:
        label = dimension_label(key)
        subset, whole = _means(on_rated, key), _means(judgments, key)
        rated = [SHOWN_AS.get(a, a) for a in RATED]
        assert {a for (d, a) in judge_shown if d == label} == set(rated)
        for author in rated:
            assert judge_shown[label, author] == pytest.approx(subset[author], abs=0.005)
            assert experts_shown[label, author] == 3.0
            differs += not math.isclose(subset[author], whole[author], abs_tol=0.01)
        for author, mean in whole.items():  # every author, over every poem
            assert all_shown[label, author] == pytest.approx(mean, abs=0.005)
    assert differs  # the test tells the experts' poems from every poem
    section.screenshot(path=str(page_path.parent / "dimensions.png"))
    page.close()


@pytest.fixture(scope="module")
def half_judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    """The review's reproduction: the experts rated 4 model-a poems (two scored 1, two 5); the
    judgments of the two 5-rated poems are deleted. The report page and the judgments left."""
    base = tmp_path_factory.mktemp("report-half-judged")
    run, experts, poems = half_judged_run(base)
    with RunStore(run, create=False) as store:
        judgments = load_run_data(store).judgments
    page = base / "report" / "index.html"
    given = ["report", "--run", str(base / "run"), "--experts", str(experts), "--out", str(page)]
    result = CliRunner().invoke(app, given)
    assert result.exit_code == 0, result.output
    return page, judgments[judgments["generation_id"].isin(poems[:2])]


def test_report_leaves_out_of_the_experts_the_poems_the_judge_has_no_judgment_for(
    half_judged: tuple[Path, pd.DataFrame], browser: Browser
) -> None:
    """The experts' dots were over all 4 rated poems (3.00), the judge's over the 2 it judged."""
    page_path, judged = half_judged
    page = browser.new_page(viewport={"width": 1200, "height": 2400})
    page.goto(page_path.as_uri())
    section = page.locator("#dimensions")
    matched = section.locator('.small-multiples[data-poems="rated"]')
    text = " ".join(section.inner_text().split())
    assert "the poems the experts rated (2 poems per author;" in text
    assert (
        "2 poems the experts rated are left out of both, as judge-x has no score for them "
        "(model-a 2)." in text
    )
    judge_shown = _shown(matched.evaluate(DOTS), "judge-x")
    experts_shown = _shown(matched.evaluate(DOTS), "Human experts")
    for key in KEYS:
        label = dimension_label(key)
        assert experts_shown[label, "model-a"] == 1.0
        assert judge_shown[label, "model-a"] == pytest.approx(
            _means(judged, key)["model-a"], abs=0.005
        )
    page.close()
