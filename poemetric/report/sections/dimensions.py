"""Per-dimension charts: each judge's mean score per author over every poem, with CIs; with
expert ratings first the judges beside the experts over the same poems, the poems the experts
rated (`judge_on_expert_poems`, the analysis's `judged_as_rated`, as in Figs. 6-8)."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.analysis.experts import EXPERTS_JUDGE
from poemetric.analysis.matched import (
    left_out_poems,
    left_out_text,
    unscored_authors,
    unscored_text,
)
from poemetric.questionnaire import DIMENSIONS
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render
from poemetric.report.sections_support import authors_not_scored, chart_colours, generated_authors
from poemetric.report.svg import Row, interval_chart
from poemetric.tables.headers import dimension_label
from poemetric.text.listing import joined_with_and

#: The experts' dots in the judge-vs-experts charts (the figures' hatched grey bars).
EXPERT_COLOUR = "#6b6b6b"
#: A rater's scores (the `dimension_scores` table of one judge or of the experts), its label,
#: and whether it is the expert panel.
Rater = tuple[str, pd.DataFrame, bool]


def _stats(scores: pd.DataFrame, key: str) -> dict[str, tuple[float, float, float]]:
    rows = scores[scores["dimension"] == key]
    return {
        str(a): (float(m), float(lo), float(hi))
        for a, m, lo, hi in zip(
            rows["author"], rows["mean"], rows["ci_low"], rows["ci_high"], strict=True
        )
    }


def _charts(run: ReportRun, raters: list[Rater], what: str) -> list[dict[str, object]]:
    """One chart per dimension: authors in the standard order, a row per author and rater (the
    rater named in the label when there are several), 1-5 axis, 95% CI whiskers."""
    authors = author_order(pd.concat([scores["author"] for _, scores, _ in raters]).unique())
    colours = chart_colours(run, authors)
    charts = []
    for dimension in DIMENSIONS:
        stats = [(label, _stats(scores, dimension.key), expert) for label, scores, expert in raters]
        rows = [
            Row(run.labels.author(a) + (f" · {label}" if len(raters) > 1 else ""), *by_author[a],
                human=a == HUMAN_AUTHOR, colour=EXPERT_COLOUR if expert else colours[a],
                expert=expert)
            for a in authors for label, by_author, expert in stats if a in by_author
        ]  # fmt: skip
        chart: Markup = interval_chart(
            rows, domain=(1, 5), ticks=[1, 2, 3, 4, 5], width=380, label_width=170,
            generated=generated_authors(run, authors),
            title=f"{dimension_label(dimension.key)} ({what}): mean score per author, whiskers 95% CI",
        )  # fmt: skip
        charts.append(
            {"dimension": dimension, "label": dimension_label(dimension.key), "chart": chart}
        )
    return charts


def dimension_charts(run: ReportRun, scores: pd.DataFrame, rater: str) -> list[dict[str, object]]:
    """One chart per dimension of one rater's scores."""
    return _charts(run, [(rater, scores, False)], rater)


def poems_per_author(run: ReportRun, scores: pd.DataFrame) -> str:
    """`3 poems per author`, or each author's count (`per author: Human 3, model-a 2`): the most
    poems an item has of the author (an item's mean is over the poems rated on it)."""
    counts = scores.groupby("author")["n"].max().astype(int)
    counts = counts.reindex(author_order(counts.index))
    if counts.nunique() == 1:
        n = int(counts.iloc[0])
        return f"{n} poem{'' if n == 1 else 's'} per author"
    return "per author: " + ", ".join(f"{run.labels.author(str(a))} {n}" for a, n in counts.items())


def _experts_beside(run: ReportRun, judges: list[str]) -> list[Rater]:
    """The experts over the poems each judge scored too (`experts_on_judged_poems`): one row
    set when every judge scored the same poems, else one per judge, named after it."""
    beside = run.table("experts_on_judged_poems")
    label = run.labels.judge(EXPERTS_JUDGE)
    if beside is None:
        return []
    per_judge = {j: beside[(beside["judge"] == j) & (beside["n"] > 0)] for j in judges}
    shown = [rows.drop(columns=["judge", "n_left_out"]).reset_index(drop=True)
             for rows in per_judge.values()]  # fmt: skip
    if all(rows.equals(shown[0]) for rows in shown):
        return [(label, shown[0], True)] if shown else []
    return [(f"{label} ({run.labels.judge(j)})", per_judge[j], True) for j in judges]


def _matched(run: ReportRun, judges: pd.DataFrame, experts: pd.DataFrame) -> dict[str, object]:
    """The judges and the experts over the same poems, in the same charts: per author and item
    the poems an expert and the judge scored; the poems per author, and those the experts rated
    that were left out because a judge has no score for them."""
    matched = run.table("judge_on_expert_poems")
    beside = run.table("experts_on_judged_poems")
    raters: list[Rater] = []
    if matched is not None and not matched.empty:
        raters = [(run.labels.judge(str(j)), rows, False) for j, rows in matched.groupby("judge")]
    names = [] if matched is None else sorted(str(j) for j in matched["judge"].unique())
    counts = [poems_per_author(run, scores) for _, scores, _ in raters]
    left_out = []
    for judge in names:
        if beside is None:
            break
        rows, shown = beside[beside["judge"] == judge], run.labels.judge(judge)
        if text := left_out_text(left_out_poems(rows), shown, run.labels.author):
            left_out.append(text[0].upper() + text[1:])
        mark, where = (
            ("No dots", " in these charts") if len(names) == 1 else (f"No {shown} dots", "")
        )
        if text := unscored_text(unscored_authors(rows), shown, mark, run.labels.author, where):
            left_out.append(text)
    judged = len(raters)
    raters += _experts_beside(run, names) or [(run.labels.judge(EXPERTS_JUDGE), experts, True)]
    unrated = sorted(set(judges["author"]) - set(experts["author"]))
    return {
        "rater": f"{joined_with_and([r[0] for r in raters])}: the poems the experts rated",
        "charts": _charts(run, raters, "the poems the experts rated"),
        "matched": True,
        "poems": counts[0] if counts else poems_per_author(run, experts),
        "short": [(raters[i][0], c) for i, c in enumerate(counts) if c != counts[0]],
        "left_out": left_out,
        "judged": judged,  # the judges beside the experts
        "unrated": run.labels.author_list(author_order(unrated)),
    }


@section(30)
def dimensions(run: ReportRun) -> Section | None:
    scores = run.table("dimension_scores")
    if scores is None or scores.empty:
        return None
    experts = run.table("expert_scores")
    has_experts = experts is not None and not experts.empty
    blocks = [_matched(run, scores, experts)] if experts is not None and has_experts else []
    for judge, rows in scores.groupby("judge", sort=True):
        rater = run.labels.judge(str(judge))
        title = f"{rater}: every poem" if has_experts else rater
        blocks.append({"rater": title, "charts": dimension_charts(run, rows, title),
                       "poems": poems_per_author(run, rows),
                       "unscored": authors_not_scored(run, rows["author"])})  # fmt: skip
    return Section("dimensions", "Scores by dimension", render("dimensions.html.j2", blocks=blocks))
