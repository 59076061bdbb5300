"""Leaderboard: authors ranked by the POEMetric score (with its CI) per judge, beside their
form-check pass rate; without judgments, ranked by the pass rate."""

from __future__ import annotations

import math

import pandas as pd

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.poems_only import NOT_POEM_KINDS
from poemetric.hints import stage_command
from poemetric.judge.pending import judge_option, judges_of, judgment_errors
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render
from poemetric.report.sections_support import authors_not_scored, chart_colours, generated_authors
from poemetric.report.svg import Row, interval_chart


def _by_author(frame: pd.DataFrame | None) -> dict[str, dict[str, object]]:
    if frame is None or frame.empty:
        return {}
    return {
        str(row["author"]): {str(k): v for k, v in row.items()} for row in frame.to_dict("records")
    }


def _by_pass_rate(check: dict[str, object]) -> tuple[bool, float]:
    """Sort key: the highest pass rate first, authors with none (no poem the checker could
    assess) last; a NaN key left the ranking unsorted around it (0.00 above 1.00)."""
    rate = float(check["pass_rate"])  # type: ignore[arg-type]
    return math.isnan(rate), -rate if not math.isnan(rate) else 0.0


@section(20)
def leaderboard(run: ReportRun) -> Section | None:
    groups = run.table("group_scores")
    checks = _by_author(run.table("form_checks"))
    lexical = _by_author(run.table("lexical"))
    boards = []
    if groups is not None and not groups.empty:
        for judge, rows in groups.groupby("judge", sort=True):
            wide = rows.pivot_table(index="author", columns="part", values="mean")
            score = rows[rows["part"] == "poemetric"].set_index("author")
            order = wide.sort_values("poemetric", ascending=False).index.tolist()
            entries = [
                {
                    "author": run.labels.author(a),
                    "human": a == HUMAN_AUTHOR,
                    "score": score.loc[a],
                    "parts": wide.loc[a],
                    "check": checks.get(a),
                    "lexical": lexical.get(a),
                }
                for a in order
            ]
            colours = chart_colours(run, order)
            chart = interval_chart(
                [Row(e["author"], float(e["score"]["mean"]), float(e["score"]["ci_low"]),
                     float(e["score"]["ci_high"]), bool(e["human"]), colours[a])
                 for a, e in zip(order, entries, strict=True)],
                domain=(1, 5), ticks=[1, 2, 3, 4, 5], generated=generated_authors(run, order),
                title=f"POEMetric score by {run.labels.judge(str(judge))}: mean over poems, "
                "whiskers 95% CI",
            )  # fmt: skip
            # an author the judge scored no poem of (every judgment failed, or not made yet)
            # left the board without a word
            unranked = authors_not_scored(run, order)
            boards.append({"judge": run.labels.judge(str(judge)), "entries": entries,
                           "chart": chart, "unranked": unranked})  # fmt: skip
    elif checks:
        ranked = sorted(checks.values(), key=_by_pass_rate)
        colours = chart_colours(run, [str(c["author"]) for c in ranked])
        chart = interval_chart(
            [Row(run.labels.author(str(c["author"])), float(c["pass_rate"]),  # type: ignore[arg-type]
                 float(c["pass_ci_low"]), float(c["pass_ci_high"]),  # type: ignore[arg-type]
                 c["author"] == HUMAN_AUTHOR, colours[str(c["author"])]) for c in ranked],
            domain=(0, 1), ticks=[0, 0.25, 0.5, 0.75, 1],
            generated=generated_authors(run, [str(c["author"]) for c in ranked]),
            title="Form-check pass rate, whiskers 95% Wilson interval",
        )  # fmt: skip
        chosen = run.data.chosen_judges  # --judge: its judges only
        errors = judgment_errors(run.store, chosen)
        unfinished = errors.failed + errors.pending  # judged, but none usable yet
        named = judge_option(chosen or []) or judges_of(unfinished)  # no judge is refused
        return Section("leaderboard", "Leaderboard",
                       render("leaderboard_form.html.j2", chart=chart, unfinished=bool(unfinished),
                              judge_command=stage_command("judge", run.run_dir, named)))  # fmt: skip
    else:
        return None
    # named here with the names the rows use (the overview's notes name the authors' keys)
    return Section("leaderboard", "Leaderboard",
                   render("leaderboard.html.j2", boards=boards, left_out=run.not_poems,
                          not_poem_kinds=NOT_POEM_KINDS))  # fmt: skip
