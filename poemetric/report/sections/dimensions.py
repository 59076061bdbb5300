"""Per-dimension charts: each judge's (and the experts') mean score per author, with CIs."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.questionnaire import DIMENSIONS
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render
from poemetric.report.svg import Row, interval_chart
from poemetric.tables.headers import dimension_label


def dimension_charts(run: ReportRun, scores: pd.DataFrame, rater: str) -> list[dict[str, object]]:
    """One chart per dimension: authors in the standard order, 1-5 axis, 95% CI whiskers."""
    authors = author_order(scores["author"].unique())
    charts = []
    for dimension in DIMENSIONS:
        rows = scores[scores["dimension"] == dimension.key].set_index("author")
        stats = {
            str(a): (float(m), float(lo), float(hi))
            for a, m, lo, hi in zip(
                rows.index, rows["mean"], rows["ci_low"], rows["ci_high"], strict=True
            )
        }
        chart: Markup = interval_chart(
            [Row(run.labels.author(a), *stats[a], a == HUMAN_AUTHOR) for a in authors if a in stats],
            domain=(1, 5), ticks=[1, 2, 3, 4, 5], width=380, label_width=170,
            title=f"{dimension_label(dimension.key)} ({rater}): mean score per author, whiskers 95% CI",
        )  # fmt: skip
        charts.append(
            {"dimension": dimension, "label": dimension_label(dimension.key), "chart": chart}
        )
    return charts


@section(30)
def dimensions(run: ReportRun) -> Section | None:
    scores = run.table("dimension_scores")
    if scores is None or scores.empty:
        return None
    blocks = [
        {"rater": run.labels.judge(str(judge)), "charts": dimension_charts(run, rows, str(judge))}
        for judge, rows in scores.groupby("judge", sort=True)
    ]
    experts = run.table("expert_scores")
    if experts is not None and not experts.empty:
        label = run.labels.judge("experts")
        blocks.append({"rater": label, "charts": dimension_charts(run, experts, label)})
    return Section("dimensions", "Scores by dimension", render("dimensions.html.j2", blocks=blocks))
