"""Figures of the judge's scores: Figs. 6-8 (with the expert panel), 9, 14-17, the heatmap and
the radar chart. Each function takes a `FigureContext` and returns a `Drawing`."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.figure import Figure

from poemetric.analysis.bars import (
    VALUE_TICKS,
    Panel,
    Series,
    draw_grid,
    floor_strokes,
    grid_height,
    grid_shape,
)
from poemetric.analysis.context import (
    Count,
    Dimensions,
    FigureContext,
    FigureSkipped,
    ScoreGroup,
    known_dimensions,
)
from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.heatmaps import (
    analysis_table_where,
    heatmap_figure,
    heatmap_spec,
    unprinted_values_note,
)
from poemetric.analysis.plotting import (
    EXPERT_COLOUR,
    LLM_COLOURS,
    MAX_HEIGHT_IN,
    PART_COLOURS,
    ROW_IN,
    SINGLE_LLM_COLOUR,
    Drawing,
    counted_poems,
    highlight_human_ticks,
)
from poemetric.analysis.score_captions import (
    CI_NOTE,
    expert_text,
    na_note,
    poems_each,
    radar_who,
    rated_counts,
    what_plotted,
)
from poemetric.analysis.scores import score_matrix
from poemetric.questionnaire import DIMENSIONS, DIMENSIONS_BY_KEY, GROUPS
from poemetric.tables.headers import dimension_label, part_label
from poemetric.text.listing import joined_with_and

LIKERT = (1.0, 5.0)


def _keys(group: str | None, dimensions: list[str] | None) -> list[str]:
    if dimensions:
        return list(known_dimensions(dimensions) or ())
    group = group or "all"
    if group == "all":
        return [d.key for d in DIMENSIONS]
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; use basic, advanced, appraisal or all")
    return list(GROUPS[group])


def _title(key: str) -> str:
    return dimension_label(key) + ("*" if DIMENSIONS_BY_KEY[key].allows_na else "")


def _by_author(scores: pd.DataFrame, key: str) -> pd.DataFrame:
    return scores[scores["dimension"] == key].set_index("author")[
        ["mean", "ci_low", "ci_high", "n"]
    ]


#: A `dimension_bars` note where the expert ratings have none of the poems shown.
NO_EXPERT_BARS = (
    "the expert ratings have none of the poems shown (of these authors and forms): drawn "
    "without the experts' bars"
)


def dimension_bars(ctx: FigureContext, group: ScoreGroup = "all", dimensions: Dimensions = None,
                   judge_poems: Literal["rated", "all"] = "rated") -> Drawing:  # fmt: skip
    """Paper Figs. 6-8: a panel per dimension, a bar per author; with expert ratings, the
    experts' mean beside the judge's (hatched grey), the judge's over the same poems as the
    experts' (`judge_poems: all`: over every poem of the author, beside the experts' over
    theirs)."""
    keys = _keys(group, dimensions)
    if judge_poems not in {"rated", "all"}:
        raise ValueError(f"unknown judge_poems {judge_poems!r}; use rated or all")
    experts = ctx.expert_scores
    # expert ratings given, but none of the poems shown: the figure is drawn without them, said
    notes = (NO_EXPERT_BARS,) if ctx.experts is not None and experts is None else ()
    matched = experts is not None and judge_poems == "rated"
    scores = ctx.judge_on_expert_poems if matched else ctx.scores
    if matched:  # the experts over the same poems as the judge (`experts_on_judged_poems`)
        experts = ctx.experts_on_judged_poems
    if scores is None:
        raise FigureSkipped(
            f"{ctx.judge_label} judged none of the poems the experts rated "
            "(`judge_poems: all` draws the judge over every poem)"
        )
    authors = ctx.ordered(scores["author"])
    # "Judge: Gemini-2.5-Pro", not "Gemini-2.5-Pro": the paper's judge is one of its authors too,
    # and its name beside a blue swatch read as that author's bars.
    judge_legend = f"Judge: {ctx.judge_label}" if ctx.judge else "LLM judge"
    panels = []
    for key in keys:
        judge_series = Series(_by_author(scores, key), label=judge_legend,
                              colour=SINGLE_LLM_COLOUR if experts is not None else None)  # fmt: skip
        series = [judge_series]
        if experts is not None:
            series.append(Series(_by_author(experts, key), colour=EXPERT_COLOUR, hatch="/////",
                                 label=f"{ctx.experts_label} ({ctx.expert_count})"))  # fmt: skip
        panels.append(Panel(_title(key), tuple(series), LIKERT, baseline=1.0,
                            authors=tuple(authors)))  # fmt: skip
    max_columns = 3 if len(keys) > 4 else 4
    if grid_shape(ctx, len(keys), len(authors), len(panels[0].series), max_columns=max_columns,
                  legend=experts is not None).height > MAX_HEIGHT_IN:  # fmt: skip
        heat = _dimension_heatmap(ctx, keys, group, dimensions, experts is not None)
        return Drawing(heat.figure, heat.caption, heat.notes + notes)
    figure = draw_grid(ctx, panels, value_label="mean score (1-5); whiskers: 95% CI",
                       legend=experts is not None, max_columns=max_columns)  # fmt: skip
    over = (
        f"the poems the experts rated ({rated_counts(ctx, scores, authors)})"
        if matched
        else f"{poems_each(scores)} each"
    )
    caption = (
        f"POEMetric scores, {what_plotted(group, dimensions)}, judged by {ctx.judge_label}: "
        f"mean Likert score per author over {over}; bars start at 1, the scale's minimum; {CI_NOTE}."
        f"{expert_text(ctx, authors, matched) if experts is not None else ''}"
        f"{na_note(keys, scores)}"
    )
    return Drawing(figure, caption, notes)


def _ranked(scores: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Authors x `keys` of mean scores, authors sorted by their mean over `keys` (best first)."""
    matrix = score_matrix(scores).reindex(columns=keys)
    return matrix.loc[matrix.mean(axis=1).sort_values(ascending=False).index]


def _blank_note(matrix: pd.DataFrame) -> str:
    """What a blank cell of a score heatmap is, where it has one (it was not said)."""
    if not matrix.isna().to_numpy().any():
        return ""
    return " A blank cell: the author has no mean (every answer N/A)."


def _score_heatmap(ctx: FigureContext, matrix: pd.DataFrame) -> tuple[Figure, str]:
    """The heatmap of an authors x dimensions matrix of means, and the caption's note when its
    cells are too narrow for their values (`unprinted_values_note`)."""
    keys = [str(k) for k in matrix.columns]
    spec = heatmap_spec(matrix, [_title(k) for k in keys], ctx.labels.author_list(matrix.index),
                        colour_label="mean score (1-5)", value_range=LIKERT)  # fmt: skip
    note = unprinted_values_note(spec, ctx.width, analysis_table_where("dimension_matrix"))
    return heatmap_figure(ctx, spec), note


def _dimension_heatmap(ctx: FigureContext, keys: list[str], group: str,
                       dimensions: list[str] | None, experts: bool) -> Drawing:  # fmt: skip
    """`dimension_bars` for more authors than a page of bars holds (31 authors x 10 panels
    were squeezed until every label overlapped): the judge's means as a heatmap."""
    ranked = _ranked(ctx.scores, keys)
    figure, unprinted = _score_heatmap(ctx, ranked)
    what = what_plotted(group, dimensions)
    caption = (
        f"POEMetric scores, {what}, judged by {ctx.judge_label}: mean Likert score per author "
        f"over {poems_each(ctx.scores)}, authors sorted by their mean over these "
        "dimensions; shown as a heatmap without intervals because bars for these authors would "
        "not fit a page at this width (fewer `--authors`, e.g. paper7, draw bars with 95% CIs)."
        + (
            " The judge's and the experts' scores over the same poems are in the tables "
            "judge_on_expert_poems and experts_on_judged_poems (`poemetric analyze`)."
            if experts
            else ""
        )
        + _blank_note(ranked)
        + unprinted
        + na_note(keys, ctx.scores)
    )
    return Drawing(figure, caption)


def all_models(ctx: FigureContext, group: ScoreGroup = "all", dimensions: Dimensions = None,
               layout: Literal["auto", "bars", "heatmap"] = "auto") -> Drawing:  # fmt: skip
    """Paper Figs. 14-17: every author, sorted by the mean over the panels' dimensions, one
    horizontal bar panel per dimension. `layout`: bars, heatmap, or auto (the heatmap when the
    bars would not fit on a page at this width)."""
    keys = _keys(group, dimensions)
    scores = ctx.scores
    ranked = _ranked(scores, keys)
    order = ranked.index.tolist()
    if layout not in {"auto", "bars", "heatmap"}:
        raise ValueError(f"unknown layout {layout!r}; use auto, bars or heatmap")
    too_tall = grid_height(ctx, len(keys), len(order)) > MAX_HEIGHT_IN
    what = what_plotted(group, dimensions)
    if layout == "heatmap" or (layout == "auto" and too_tall):
        figure, unprinted = _score_heatmap(ctx, ranked)
        caption = (
            f"POEMetric scores of every author, {what}, judged by {ctx.judge_label}: mean Likert "
            f"score per author over {poems_each(scores)}, authors sorted by their mean "
            f"over these dimensions (shown as a heatmap: bars would not fit at this width; "
            f"a recipe entry's `layout: bars` forces them).{_blank_note(ranked)}{unprinted}"
            f"{na_note(keys, scores)}"
        )
        return Drawing(figure, caption)
    panels = [
        Panel(
            _title(key),
            (Series(_by_author(scores, key)),),
            LIKERT,
            baseline=1.0,
            authors=tuple(order),
        )
        for key in keys
    ]
    figure = draw_grid(ctx, panels, value_label="mean score (1-5); whiskers: 95% CI",
                       force_horizontal=True)  # fmt: skip
    caption = (
        f"POEMetric scores of every author, {what}, judged by {ctx.judge_label}: mean Likert "
        f"score per author over {poems_each(scores)}, sorted by the mean over the "
        f"dimensions shown; bars start at 1, the scale's minimum; {CI_NOTE}."
        f"{na_note(keys, scores)}"
    )
    return Drawing(figure, caption)


def ranking(ctx: FigureContext) -> Drawing:
    """Paper Fig. 9: authors ranked by the POEMetric score (mean of basic, advanced and
    quality), with the three parts as bars and the score's 95% CI."""
    groups = ctx.groups
    wide = groups.pivot_table(index="author", columns="part", values="mean")
    wide = wide.sort_values("poemetric", ascending=False)
    score = groups[groups["part"] == "poemetric"].set_index("author").loc[wide.index]
    parts = ["basic", "advanced", "quality"]
    names = ctx.labels.author_list(wide.index)
    height = min(MAX_HEIGHT_IN, 0.9 + len(wide) * ROW_IN * 1.7)
    figure = Figure(figsize=(ctx.width, height), layout="constrained")
    axis = figure.subplots()
    y = np.arange(len(wide))
    bar = 0.8 / len(parts)
    for index, part in enumerate(parts):
        axis.barh(y + (index - 1) * bar, wide[part] - 1, left=1, height=bar * 0.95,
                  color=PART_COLOURS[part], label=part_label(part), edgecolor="black", linewidth=0.2)  # fmt: skip
        floor_strokes(axis, y + (index - 1) * bar, wide[part].to_numpy(float), 1.0,
                      bar * 0.475, [PART_COLOURS[part]] * len(wide), horizontal=True)  # fmt: skip
    errors = np.nan_to_num([score["mean"] - score["ci_low"], score["ci_high"] - score["mean"]])
    axis.errorbar(score["mean"], y, xerr=errors, fmt="D", color="black", markersize=3,
                  elinewidth=0.7, capsize=1.5, label="POEMetric score (95% CI)")  # fmt: skip
    axis.set_yticks(y, names)
    axis.set_ylim(len(wide) - 0.5, -0.6)
    highlight_human_ticks(axis, ctx.human_label, "y")
    axis.set_xlim(*LIKERT)
    axis.xaxis.set_major_formatter(VALUE_TICKS)  # `1`, `1.5`, as every bar chart (was `1.0`)
    figure.supxlabel("mean score (1-5)" + ("\n" if ctx.narrow else "; ")
                     + "diamond: POEMetric score, whiskers: its 95% CI", fontsize=7)  # fmt: skip
    axis.grid(axis="x", alpha=0.3)
    axis.grid(axis="y", visible=False)
    figure.legend(loc="outside upper center", ncols=4 if not ctx.narrow else 2)
    caption = (
        f"POEMetric ranking, judged by {ctx.judge_label}: authors sorted by the POEMetric score, "
        "the per-poem mean of the basic, advanced and overall-quality scores averaged over "
        f"{counted_poems(score['n'])} each (diamond; whiskers: its 95% CI over poems, "
        "Student t). Bars: the three parts' means, starting at 1, the scale's minimum."
    )
    return Drawing(figure, caption)


def heatmap(ctx: FigureContext) -> Drawing:
    """Authors x dimensions mean scores (App. H in one figure)."""
    matrix = score_matrix(ctx.scores)
    matrix = matrix.loc[ctx.ordered(matrix.index)]
    figure, unprinted = _score_heatmap(ctx, matrix)
    caption = (
        f"Mean score per author and dimension, judged by {ctx.judge_label} (1-5; "
        f"{poems_each(ctx.scores)} per author).{_blank_note(matrix)}{unprinted}"
        f"{na_note(list(matrix.columns), ctx.scores)}"
    )
    return Drawing(figure, caption)


RADAR_TICKS = (2, 3, 4, 5)


#: Radial distance (score units) within which a line crowds a radial tick label.
RADAR_LABEL_CLEARANCE = 0.15


def _radius_at(r0: float, r1: float, step: float, offset: float) -> float:
    """Where a straight edge from radius r0 (one spoke) to r1 (the next, `step` radians on)
    crosses the angle `offset` radians past the first spoke."""
    across = r0 * np.sin(offset) + r1 * np.sin(step - offset)
    return 0.0 if across <= 0 else float(r0 * r1 * np.sin(step) / across)


def free_label_angle(profiles: np.ndarray, low: float = LIKERT[0]) -> float:
    """The angle (degrees) between two spokes where the radial tick labels meet the fewest
    author lines (then: the farthest from them): matplotlib put them at 22.5 degrees, on the
    lines; no line is ever clear of them all, so they also carry a white halo. Candidates are
    half-way between spokes, away from the dimension labels and spoke lines."""
    spokes = profiles.shape[1]
    step = 2 * np.pi / spokes
    rows = [row - low for row in profiles if np.isfinite(row).all()]
    best, best_key = step / 2, (np.inf, 0.0)
    for k in range(spokes):
        radii = [_radius_at(row[k], row[(k + 1) % spokes], step, step / 2) + low for row in rows]
        gaps = [abs(r - t) for r in radii for t in RADAR_TICKS]
        key = (sum(gap < RADAR_LABEL_CLEARANCE for gap in gaps), -min(gaps, default=np.inf))
        if key < best_key:
            best, best_key = step * (k + 0.5), key
    return float(np.degrees(best))


def radar(ctx: FigureContext, max_authors: Count = 8) -> Drawing:
    """Dimension profile of the human poets and the best LLMs by POEMetric score."""
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
    chosen = ctx.ordered(chosen[: min(max_authors, len(LLM_COLOURS) + 1)])
    angles = np.linspace(0, 2 * np.pi, matrix.shape[1], endpoint=False)
    size = min(ctx.width, 4.6)
    figure = Figure(figsize=(size, size + 0.25 * ((len(chosen) + 1) // 2)), layout="constrained")
    axis = figure.add_subplot(projection="polar")
    colours, styles = ctx.colours(chosen), ctx.line_styles(chosen)
    for author in chosen:
        values = matrix.loc[author].to_numpy(float)
        closed = np.append(values, values[0])
        # Style and marker by author, as the colour (they went by place in the figure); a
        # marker on each mean keeps one between two missing ones visible.
        axis.plot(np.append(angles, angles[0]), closed, linestyle=styles[author].linestyle,
                  marker=styles[author].marker, markersize=2.5, color=colours[author],
                  linewidth=1.6 if author == HUMAN_AUTHOR else 0.9, label=ctx.label(author))  # fmt: skip
    axis.set_xticks(angles, [_title(str(k)) for k in matrix.columns])
    axis.tick_params(axis="x", pad=-5)
    # Each label grows away from the rim (centred, "Form" at 0 degrees and "Emotion" at 180
    # sat across the circle and the author lines).
    for label, theta in zip(axis.get_xticklabels(), angles, strict=True):
        x, y = np.cos(theta), np.sin(theta)
        label.set_horizontalalignment("left" if x > 0.1 else "right" if x < -0.1 else "center")
        label.set_verticalalignment("bottom" if y > 0.1 else "top" if y < -0.1 else "center")
    axis.set_ylim(1, 5)
    # Radial tick labels centred on their circle at the angle freest of the lines, small and
    # grey with a white halo (matplotlib's sat on the lines at 22.5 degrees).
    axis.set_yticks(RADAR_TICKS, [""] * len(RADAR_TICKS))
    angle = np.radians(free_label_angle(matrix.loc[chosen].to_numpy(float)))
    halo = [patheffects.withStroke(linewidth=1.8, foreground="white")]
    for tick in RADAR_TICKS:
        axis.text(angle, tick, str(tick), ha="center", va="center", fontsize=6, color="0.4",
                  path_effects=halo, zorder=5)  # fmt: skip
    figure.legend(loc="outside lower center", ncols=1 if ctx.narrow else 2)
    llms = len([a for a in best if a != HUMAN_AUTHOR])
    shown = ctx.scores[ctx.scores["author"].isin(chosen)]
    poems = poems_each(shown)
    caption = (
        f"Dimension profile (mean score, 1 at the centre to 5 at the rim) of "
        f"{radar_who(ctx, chosen, llms)}, judged by {ctx.judge_label}, over {poems} each."
        f"{_line_breaks(ctx, matrix.loc[chosen])}"
        f"{na_note([str(k) for k in matrix.columns], shown)}"
    )
    return Drawing(figure, caption)


def _line_breaks(ctx: FigureContext, profiles: pd.DataFrame) -> str:
    """Where a radar line breaks and why: ` A line breaks where its author has no mean (every
    answer N/A): GPT-4o at Imagery.` (it broke without a word)."""
    gaps = [
        f"{ctx.label(str(author))} at "
        + joined_with_and([dimension_label(str(k)) for k in row.index[row.isna()]])
        for author, row in profiles.iterrows()
        if row.isna().any()
    ]
    if not gaps:
        return ""
    return f" A line breaks where its author has no mean (every answer N/A): {'; '.join(gaps)}."
