"""The report's "Agreement with experts" caption: it described QWK as the mean over judge-expert
pairs and alpha as taken with the judge among the raters, also above the experts-vs-experts
table (where both are over the experts alone), and for a run without any judge."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from survey_support import survey_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore

pytestmark = pytest.mark.slow


def _caption(tmp_path: Path, judge: bool) -> str:
    run = survey_run(tmp_path / "run", poems=3, judge=judge)
    with RunStore(run, create=False) as store:
        poems = [r[0] for r in store.query("SELECT generation_id FROM generations ORDER BY 1")]
    ratings = tmp_path / "experts.csv"
    with ratings.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["poem", "rater", "item", "score"])
        for index, poem in enumerate(poems):
            for rater in ("E1", "E2"):
                for key in DIMENSION_KEYS:
                    writer.writerow([poem, rater, key, 1 + (index + len(rater + key)) % 5])
    runner = CliRunner()
    result = runner.invoke(app, ["survey", "import", str(ratings), "--run", str(run)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["report", "--run", str(run), "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    html = (run / "report" / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<p class="explain">\d+ experts rated .*?</p>', html, re.S)
    assert found, "no agreement caption"
    return re.sub(r"<[^>]+>", "", found[0])


def test_without_a_judge_the_caption_describes_the_experts_table(tmp_path: Path) -> None:
    caption = _caption(tmp_path, judge=False)
    assert "judge–expert pairs" not in caption and "and the judge as raters" not in caption
    assert "each two experts" in caption


def test_with_a_judge_the_caption_describes_both_tables(tmp_path: Path) -> None:
    caption = _caption(tmp_path, judge=True)
    assert "each judge with each expert" in caption and "each two experts" in caption
    assert "the experts alone in the experts' table" in caption


def test_the_caption_says_the_intervals_contain_their_estimate(tmp_path: Path) -> None:
    """The intervals are widened to contain the estimate (docs/agreement.md): `QWK 0.444 [0.053,
    0.444]` read as a tight upper side under a caption that said only "bootstrap intervals". It
    names the resamples and the seed (`report --seed`) that draw the same intervals again."""
    caption = " ".join(_caption(tmp_path, judge=True).split())
    assert (
        "Brackets: 95% percentile bootstrap intervals over poems, 20 resamples, seed 0, widened "
        "where needed to contain "
        "the estimate (a bound equal to it: the percentile bound fell on its other side)."
    ) in caption
