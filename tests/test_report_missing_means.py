"""The report's dot charts left an author with no mean (the judge said N/A to imagery in every
one of its poems) as an empty row: a label and nothing, read as a lost dot. The paper figures
say "n/a" there (`bars.missing_marks`); the report now does too."""

from __future__ import annotations

import math
import re
from pathlib import Path

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report import build_report
from poemetric.report.svg import Row, interval_chart


def _rows(svg: str) -> dict[str, list[str]]:
    """Each row's label -> the other texts and dots drawn at its height."""
    svg = re.sub(r'<g class="legend">.*?</g>', "", svg)  # the legend's dots are no row's
    labels = dict(
        re.findall(r'<text x="[\d.]+" y="([\d.]+)" class="label"[^>]*>([^<]*)</text>', svg)
    )
    drawn: dict[str, list[str]] = {label: [] for label in labels.values()}
    for y, what in re.findall(r'<text x="[\d.]+" y="([\d.]+)" class="missing">([^<]*)', svg):
        drawn[labels[y]].append(what)
    for cy in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg):
        drawn[labels[f"{float(cy) + 4:.1f}"]].append("dot")
    return drawn


def test_a_row_without_an_estimate_says_n_a() -> None:
    chart = interval_chart(
        [Row("Human", 4.0, 3.5, 4.5, human=True), Row("GPT-4o", math.nan), Row("o1", 2.0)],
        domain=(1, 5), ticks=[1, 3, 5], title="Imagery",
    )  # fmt: skip
    assert _rows(str(chart)) == {"Human": ["dot"], "GPT-4o": ["n/a"], "o1": ["dot"]}


def test_the_report_says_n_a_where_the_judge_said_n_a_to_every_poem(tmp_path: Path) -> None:
    with build_synthetic_run(
        tmp_path / "run", authors=("human", "gpt-4o", "o1"), poems_per_form=1
    ) as store:
        with store.transaction() as db:
            db.execute(
                "UPDATE judgments SET imagery = 0 WHERE generation_id IN "
                "(SELECT generation_id FROM generations WHERE author = 'gpt-4o')"
            )
        page = build_report(store)
    charts = re.findall(r'<svg class="chart".*?</svg>', page.read_text(encoding="utf-8"), re.S)
    titled = {re.search(r"<title>([^<]*)</title>", c).group(1): c for c in charts}  # type: ignore[union-attr]
    imagery = next(c for t, c in titled.items() if t.startswith("Imagery"))
    emotion = next(c for t, c in titled.items() if t.startswith("Emotion"))
    assert _rows(imagery) == {"Human": ["dot"], "GPT-4o": ["n/a"], "o1": ["dot"]}
    assert "n/a" not in emotion  # every author has an emotion mean
