"""The paper's figures, one function each.

Every function takes a `FigureContext` (plus keyword parameters a recipe may set) and returns a
matplotlib Figure, or raises `FigureSkipped` saying what data it lacks.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.lexical import opening_words, top_words
from poemetric.analysis.plotting import (
    PART_COLOURS,
    SEQUENTIAL_CMAP,
    author_colours,
    highlight_human_ticks,
)
from poemetric.analysis.scores import form_check_scores, score_matrix
from poemetric.judge.answer import DIMENSIONS, DIMENSIONS_BY_KEY, GROUPS


def _bars(
    axis: Axes, authors: list[str], means: list[float], lows: list[float], highs: list[float]
) -> None:
    """One bar per author with asymmetric error bars; the human bar in vermillion."""
    colours = author_colours(authors)
    x = np.arange(len(authors))
    err = np.array(
        [
            [m - lo for m, lo in zip(means, lows, strict=True)],
            [h - m for m, h in zip(means, highs, strict=True)],
        ]
    )
    err = np.nan_to_num(err, nan=0.0)
    axis.bar(x, means, yerr=err, color=[colours[a] for a in authors], capsize=2, width=0.75,
             edgecolor="black", linewidth=0.4, error_kw={"linewidth": 0.8})  # fmt: skip
    axis.set_xticks(
        x,
        authors,
        rotation=45 if len(authors) > 3 else 0,
        ha="right" if len(authors) > 3 else "center",
    )
    highlight_human_ticks(axis)


def dimension_bars(ctx: FigureContext, group: str = "all") -> Figure:
    """Paper Fig. 6-8: one panel per dimension, a bar per author with 95% CI error bars."""
    keys = [d.key for d in DIMENSIONS] if group == "all" else list(GROUPS.get(group, ()))  # type: ignore[call-overload]
    if not keys:
        raise ValueError(f"unknown group {group!r}; use basic, advanced, appraisal or all")
    scores = ctx.scores
    authors = ctx.ordered(scores["author"])
    columns = min(len(keys), 3 if len(authors) > 6 else 4)
    rows = math.ceil(len(keys) / columns)
    width = max(2.2, 0.28 * len(authors) + 0.8)
    figure = Figure(figsize=(width * columns, 2.6 * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False, sharey=True)
    for axis, key in zip(axes.flat, keys, strict=False):
        frame = scores[scores["dimension"] == key].set_index("author").loc[authors]
        _bars(
            axis,
            authors,
            frame["mean"].tolist(),
            frame["ci_low"].tolist(),
            frame["ci_high"].tolist(),
        )
        dimension = DIMENSIONS_BY_KEY[key]
        axis.set_title(dimension.short_label + (" (N/A excluded)" if dimension.allows_na else ""))
        axis.set_ylim(0, 5.3)
    for axis in axes.flat[len(keys) :]:
        axis.set_visible(False)
    for axis in axes[:, 0]:
        axis.set_ylabel("mean score (1-5)")
    figure.suptitle(ctx.title(f"POEMetric scores: {group}"))
    return figure


def ranking(ctx: FigureContext) -> Figure:
    """Paper Fig. 9: authors ranked by the mean of basic, advanced and quality scores."""
    groups = ctx.groups
    wide = groups.pivot_table(index="author", columns="part", values="mean")
    wide = wide.sort_values("poemetric", ascending=True)
    parts = ["basic", "advanced", "quality"]
    figure = Figure(figsize=(6.0, 0.9 + 0.32 * len(wide) * 1.4), layout="constrained")
    axis = figure.subplots()
    y = np.arange(len(wide))
    height = 0.8 / len(parts)
    for index, part in enumerate(parts):
        axis.barh(y + (index - 1) * height, wide[part], height=height, color=PART_COLOURS[part],
                  label=part, edgecolor="black", linewidth=0.3)  # fmt: skip
    axis.plot(wide["poemetric"], y, "D", color="black", markersize=4, label="POEMetric (mean)")
    axis.set_yticks(y, wide.index)
    highlight_human_ticks(axis, "y")
    axis.set_xlim(0, 5.2)
    axis.set_xlabel("mean score (1-5)")
    axis.grid(axis="x", alpha=0.3)
    axis.grid(axis="y", visible=False)
    axis.legend(loc="lower right", frameon=False)
    axis.set_title(ctx.title("Overall ranking"))
    return figure


def heatmap(ctx: FigureContext) -> Figure:
    """Authors x dimensions mean scores, annotated."""
    matrix = score_matrix(ctx.scores)
    figure = Figure(
        figsize=(1.2 + 0.62 * matrix.shape[1], 1.0 + 0.3 * matrix.shape[0]), layout="constrained"
    )
    axis = figure.subplots()
    image = axis.imshow(matrix.to_numpy(float), cmap=SEQUENTIAL_CMAP, vmin=1, vmax=5, aspect="auto")
    axis.set_xticks(
        range(matrix.shape[1]),
        [DIMENSIONS_BY_KEY[k].short_label for k in matrix.columns],
        rotation=45,
        ha="right",
    )
    axis.set_yticks(range(matrix.shape[0]), matrix.index)
    highlight_human_ticks(axis, "y")
    axis.grid(False)
    for (row, col), value in np.ndenumerate(matrix.to_numpy(float)):
        if np.isfinite(value):
            axis.text(col, row, f"{value:.2f}", ha="center", va="center", fontsize=7,
                      color="black" if value > 3.2 else "white")  # fmt: skip
    figure.colorbar(image, ax=axis, label="mean score", shrink=0.8)
    axis.set_title(ctx.title("Scores by author and dimension"))
    return figure


def radar(ctx: FigureContext, max_authors: int = 8) -> Figure:
    """Radar chart of the dimension means (human + the best LLMs by POEMetric score)."""
    matrix = score_matrix(ctx.scores)
    groups = ctx.groups
    best = (
        groups[groups["part"] == "poemetric"]
        .sort_values("mean", ascending=False)["author"]
        .tolist()
    )
    chosen = ([HUMAN_AUTHOR] if HUMAN_AUTHOR in matrix.index else []) + [
        a for a in best if a != HUMAN_AUTHOR
    ]
    chosen = ctx.ordered(chosen[:max_authors])
    angles = np.linspace(0, 2 * np.pi, matrix.shape[1], endpoint=False)
    figure = Figure(figsize=(5.2, 5.0), layout="constrained")
    axis = figure.add_subplot(projection="polar")
    colours = author_colours(chosen)
    styles = ["-", "--", "-.", ":"]
    for index, author in enumerate(chosen):
        values = matrix.loc[author].to_numpy(float)
        closed = np.append(values, values[0])
        axis.plot(np.append(angles, angles[0]), closed, styles[index % 4], color=colours[author],
                  linewidth=2.2 if author == HUMAN_AUTHOR else 1.3, label=author)  # fmt: skip
    axis.set_xticks(angles, [DIMENSIONS_BY_KEY[k].short_label for k in matrix.columns])
    axis.set_ylim(0, 5)
    axis.legend(loc="upper right", bbox_to_anchor=(1.3, 1.1), frameon=False)
    axis.set_title(ctx.title("Dimension profile"), pad=18)
    return figure


def form_accuracy(ctx: FigureContext) -> Figure:
    """Rule-based form check per author: pass rate (Wilson CI) and mean form score."""
    checks = ctx.form_checks
    authors = ctx.ordered(checks["author"])
    frame = checks.set_index("author").loc[authors]
    figure = Figure(figsize=(max(4.5, 0.5 * len(authors) + 2) * 1.6, 2.8), layout="constrained")
    left, right = figure.subplots(1, 2)
    _bars(
        left,
        authors,
        frame["pass_rate"].tolist(),
        frame["pass_ci_low"].tolist(),
        frame["pass_ci_high"].tolist(),
    )
    left.set_ylim(0, 1.05)
    left.set_title("Form check passed (share, 95% CI)")
    _bars(
        right,
        authors,
        frame["form_score_mean"].tolist(),
        frame["form_score_ci_low"].tolist(),
        frame["form_score_ci_high"].tolist(),
    )
    right.set_ylim(0, 1.05)
    right.set_title("Mean form score (0-1)")
    figure.suptitle("Rule-based form accuracy")
    return figure


def form_heatmap(ctx: FigureContext) -> Figure:
    """Rule-based pass rate per author and poem form."""
    if ctx.data.form_checks.empty:
        raise FigureSkipped("no form checks (run `poemetric form run`)")
    by_form = form_check_scores(ctx.data.form_checks, by_form=True)
    matrix = by_form.pivot_table(index="author", columns="poem_form", values="pass_rate")
    matrix = matrix.loc[ctx.ordered(matrix.index.tolist())]
    figure = Figure(
        figsize=(1.6 + 0.75 * matrix.shape[1], 1.0 + 0.3 * matrix.shape[0]), layout="constrained"
    )
    axis = figure.subplots()
    image = axis.imshow(matrix.to_numpy(float), cmap=SEQUENTIAL_CMAP, vmin=0, vmax=1, aspect="auto")
    axis.set_xticks(range(matrix.shape[1]), matrix.columns, rotation=45, ha="right")
    axis.set_yticks(range(matrix.shape[0]), matrix.index)
    highlight_human_ticks(axis, "y")
    axis.grid(False)
    for (row, col), value in np.ndenumerate(matrix.to_numpy(float)):
        if np.isfinite(value):
            axis.text(
                col,
                row,
                f"{value:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="black" if value > 0.55 else "white",
            )
    figure.colorbar(image, ax=axis, label="pass rate", shrink=0.8)
    axis.set_title("Form check pass rate by form")
    return figure


def lexical(ctx: FigureContext) -> Figure:
    """TTR and MATTR-50 per author (mean +- SD over poems)."""
    summary = ctx.lexical
    authors = ctx.ordered(summary["author"])
    frame = summary.set_index("author").loc[authors]
    figure = Figure(figsize=(max(4.5, 0.5 * len(authors) + 2) * 1.6, 2.8), layout="constrained")
    for axis, metric, label in zip(
        figure.subplots(1, 2), ("ttr", "mattr"), ("TTR", "MATTR (window 50)"), strict=True
    ):
        mean, sd = frame[f"{metric}_mean"], frame[f"{metric}_sd"].fillna(0)
        _bars(axis, authors, mean.tolist(), (mean - sd).tolist(), (mean + sd).tolist())
        axis.set_ylim(0, 1.05)
        axis.set_title(f"{label}, mean ± SD")
    figure.suptitle("Lexical diversity")
    return figure


def rule_based(ctx: FigureContext) -> Figure:
    """Paper Fig. 5: form pass rate, TTR and repetition of the human original per author."""
    summary = ctx.lexical
    authors = ctx.ordered(summary["author"])
    lex = summary.set_index("author").loc[authors]
    figure = Figure(figsize=(max(4.0, 0.45 * len(authors) + 1.5) * 2.4, 2.8), layout="constrained")
    panels = figure.subplots(1, 3)
    try:
        checks = ctx.form_checks.set_index("author")
        have = [a for a in authors if a in checks.index]
        frame = checks.loc[have]
        _bars(
            panels[0],
            have,
            frame["pass_rate"].tolist(),
            frame["pass_ci_low"].tolist(),
            frame["pass_ci_high"].tolist(),
        )
        panels[0].set_title("Form accuracy (pass rate)")
    except FigureSkipped as skipped:
        panels[0].text(
            0.5,
            0.5,
            f"skipped:\n{skipped}",
            ha="center",
            va="center",
            transform=panels[0].transAxes,
        )
        panels[0].set_title("Form accuracy")
    _bars(panels[1], authors, lex["ttr_mean"].tolist(), (lex["ttr_mean"] - lex["ttr_sd"].fillna(0)).tolist(),
          (lex["ttr_mean"] + lex["ttr_sd"].fillna(0)).tolist())  # fmt: skip
    panels[1].set_title("TTR (mean ± SD)")
    llms = [a for a in authors if a != HUMAN_AUTHOR]
    rep = lex.loc[llms]
    _bars(panels[2], llms, rep["repetition_all_mean"].tolist(), (rep["repetition_all_mean"] - rep["repetition_all_sd"].fillna(0)).tolist(),
          (rep["repetition_all_mean"] + rep["repetition_all_sd"].fillna(0)).tolist())  # fmt: skip
    panels[2].set_title("Repetition of the human original")
    for axis in panels:
        axis.set_ylim(0, 1.05)
    figure.suptitle("Rule-based evaluation")
    return figure


def _word_heatmap(frame: pd.DataFrame, authors: list[str], title: str, top: int) -> Figure:
    if frame.empty:
        raise FigureSkipped("no words in the poems")
    totals = frame.groupby("word")["share"].mean().sort_values(ascending=False)
    words = totals.index[:top].tolist()
    matrix = frame.pivot_table(index="word", columns="author", values="share").reindex(
        index=words, columns=authors
    )
    figure = Figure(
        figsize=(1.5 + 0.5 * len(authors), 1.0 + 0.22 * len(words)), layout="constrained"
    )
    axis = figure.subplots()
    image = axis.imshow(matrix.fillna(0).to_numpy(float) * 100, cmap=SEQUENTIAL_CMAP, aspect="auto")
    axis.set_xticks(range(len(authors)), authors, rotation=45, ha="right")
    highlight_human_ticks(axis)
    axis.set_yticks(range(len(words)), words)
    axis.grid(False)
    figure.colorbar(
        image, ax=axis, label="% of tokens" if "content" in title else "% of poems", shrink=0.8
    )
    axis.set_title(title)
    return figure


def top_words_figure(ctx: FigureContext, k: int = 20) -> Figure:
    """Paper Fig. 10: shares of the most frequent content words, by author."""
    return _word_heatmap(
        top_words(ctx.data.generations, k=200), ctx.authors, "Top content words", k
    )


def opening_words_figure(ctx: FigureContext, k: int = 12) -> Figure:
    """Paper Fig. 11 (left): the most common first words of poems, by author."""
    return _word_heatmap(
        opening_words(ctx.data.generations, k=50), ctx.authors, "Top opening words", k
    )
