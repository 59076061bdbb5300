"""Bar panels with one bar (or one bar per rater) per author, and whiskers for intervals.

Few authors: vertical bars with rotated author labels. Many authors (when their labels would no
longer fit side by side at the printed width): horizontal bars, one row per author, so 31
authors stay readable in one column. Every panel grid states its whiskers' meaning in the value
axis label.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import FuncFormatter

from poemetric.analysis.context import FigureContext
from poemetric.analysis.plotting import (
    BAR_SLOT_IN,
    MAX_HEIGHT_IN,
    MIN_FONT_PT,
    ROW_IN,
    highlight_human_ticks,
    label_width_in,
    measured_width_in,
    plain_number,
    text_width_in,
)

#: Room above and below a value-axis label that runs up the figure's side, together (inches).
VALUE_LABEL_PAD_IN = 0.08


@dataclass(frozen=True)
class Series:
    """One rater's (or one measure's) values per author: columns mean, ci_low, ci_high."""

    frame: pd.DataFrame
    label: str = ""
    colour: str | None = None  # None: each author's own colour
    hatch: str | None = None


@dataclass(frozen=True)
class Panel:
    title: str
    series: tuple[Series, ...]
    value_range: tuple[float, float]
    #: Bars grow from here (1 for Likert means, 0 for shares).
    baseline: float = 0.0
    #: Authors this panel shows (default: the figure's authors).
    authors: tuple[str, ...] = ()
    #: Extra marks, e.g. a chance baseline: (label, values by author, marker).
    marks: tuple[tuple[str, pd.Series, str], ...] = ()
    #: A threshold drawn as a dashed line across the panel: (label, value).
    reference: tuple[str, float] | None = None


#: Value-axis tick labels, alike in every bar chart whichever way its bars run: "0", "0.2",
#: "1" and "10", "20" (vertical bars printed "0.0", "1.0" beside horizontal ones' "0", "1";
#: side by side, "1.0" and "0.0" of neighbouring panels touched in narrow columns).
VALUE_TICKS = FuncFormatter(plain_number)


@dataclass(frozen=True)
class Grid:
    figure: Figure
    axes: list[Axes]
    horizontal: bool
    columns: int
    #: The printed width of one panel's plot area, estimated (titles are wrapped to it).
    panel_in: float


def _rows_height(n_authors: int, n_series: int) -> float:
    return n_authors * ROW_IN * (1.0 if n_series == 1 else 0.75 * n_series)


#: How far a 45-degree label reaches to the left of its tick, per inch of its length.
ROTATED_REACH = math.sqrt(0.5)
#: Room left of a panel that its y tick labels take anyway (the 0.35 in per column less the
#: layout's padding).
TICK_ROOM_IN = 0.29
TITLE_PT = 7.5
#: The value axis label left of the first column of vertical panels.
SUPYLABEL_IN = 0.2
#: A one-row legend above a grid.
LEGEND_IN = 0.3
#: Author rows squeezed closer than this (a grid taller than a page is drawn a page tall) have
#: overlapping 6.5 pt labels; narrower panels side by side, down to NARROWEST_PANEL_IN, are
#: taken first (31 authors at ACL's 3.03 in column stacked three panels of 31 rows in 9 in).
SQUEEZED_ROW_IN = 0.11
NARROWEST_PANEL_IN = 0.5


def _reach_beyond(ctx: FigureContext, n_authors: int, slot: float) -> list[float]:
    """Per author label: how far (in) its rotated label reaches left of the panel's tick-label
    room when the authors' slots are `slot` inches wide (the first tick sits 0.6 slots in)."""
    widths = [measured_width_in(label, 6.5) for label in ctx.labels.author_list(ctx.authors)]
    return [
        ROTATED_REACH * width - (index + 0.6) * slot - TICK_ROOM_IN
        for index, width in enumerate(widths[:n_authors])
    ]


def horizontal_layout(ctx: FigureContext, n_authors: int, n_series: int, columns: int) -> bool:
    """True when vertical bars would be narrower than a rotated label at this width.

    Each label, rotated 45 degrees, reaches left of its tick by ~0.71 of its length; what reaches
    beyond the panel's left edge (and its tick labels) is taken from the panel's width by the
    layout, so the bars get narrower: a long name among the first authors left too little room
    at one column (labels crowded and overlapped) even when few authors were shown."""
    panel_width = ctx.width / columns - 0.35
    per_author = BAR_SLOT_IN * max(n_series, 1)
    if panel_width / max(n_authors, 1) < per_author:
        return True
    # The bars fit when each label's reach plus the slots from its tick to the right end do;
    # the first column's labels must also stay clear of the value axis label left of it.
    reach = _reach_beyond(ctx, n_authors, per_author)
    room = (ctx.width - SUPYLABEL_IN) / columns - 0.35
    return any(extra + per_author * (n_authors + 0.2) > room for extra in reach)


@dataclass(frozen=True)
class Shape:
    """How a grid of bar panels is laid out: orientation, columns, rows, height (uncapped) and
    the estimated printed width of one panel's plot area."""

    horizontal: bool
    columns: int
    rows: int
    height: float
    panel_in: float


def _row_pitch(n_panels: int, columns: int, n_authors: int, rows_in: float,
               legend: bool) -> float:  # fmt: skip
    """The height of one author's row once the grid is drawn at most a page tall."""
    stacks = math.ceil(n_panels / columns)
    overhead = stacks * 0.45 + 0.35 + (LEGEND_IN if legend else 0.0)
    return rows_in / max(n_authors, 1) * min(1.0, (MAX_HEIGHT_IN - overhead) / (stacks * rows_in))


def grid_shape(ctx: FigureContext, n_panels: int, n_authors: int, n_series: int = 1, *,
               max_columns: int = 4, share_labels: bool = True, force_horizontal: bool = False,
               legend: bool = False, fit_page: bool = False) -> Shape:  # fmt: skip
    """Vertical panels while the rotated labels fit side by side, the page holds the rows and
    they are not much taller than horizontal bars; otherwise horizontal bars, one row per
    author (with room for a legend above them). With `fit_page`, horizontal panels too many
    for a page stacked go side by side, narrower, rather than squeeze their rows."""
    labels = ctx.labels.author_list(ctx.authors)
    label_w = label_width_in(labels)
    columns = min(n_panels, max_columns)
    vertical_columns = next(
        (c for c in range(columns, 0, -1) if not horizontal_layout(ctx, n_authors, n_series, c)),
        0,
    )
    rows = math.ceil(n_panels / max(vertical_columns, 1))
    vertical_height = rows * (1.25 + label_w * 0.75) + 0.3
    panel_min = 0.75 if share_labels else label_w + 0.9
    usable = ctx.width - (label_w if share_labels else 0.0)
    columns = max(1, min(n_panels, max_columns, int(usable // panel_min)))
    rows_in = _rows_height(n_authors, n_series)
    while (fit_page and columns < min(n_panels, max_columns)
           and _row_pitch(n_panels, columns, n_authors, rows_in, legend) < SQUEEZED_ROW_IN
           and usable / (columns + 1) >= NARROWEST_PANEL_IN):  # fmt: skip
        columns += 1
    height = math.ceil(n_panels / columns) * (rows_in + 0.45) + 0.35
    height += LEGEND_IN if legend else 0.0
    horizontal = Shape(True, columns, math.ceil(n_panels / columns), height, usable / columns)
    # Long rotated names stack panels into a tall column: four authors at one column made a
    # figure 7.9 in tall that horizontal bars draw in 2.6 in.
    if (force_horizontal or vertical_columns == 0 or vertical_height > MAX_HEIGHT_IN
            or vertical_height > 2 * horizontal.height):  # fmt: skip
        return horizontal
    column_in = ctx.width / vertical_columns - 0.35
    slot = column_in / (n_authors + 0.2)
    panel_in = column_in - max([0.0, *_reach_beyond(ctx, n_authors, slot)])
    return Shape(False, vertical_columns, rows, vertical_height, panel_in)


def panel_grid(
    ctx: FigureContext,
    n_panels: int,
    n_authors: int,
    n_series: int = 1,
    *,
    value_label: str,
    max_columns: int = 4,
    share_labels: bool = True,
    force_horizontal: bool = False,
    legend: bool = False,
) -> Grid:
    """A figure of `n_panels` bar panels sized for the context's width (`grid_shape`), at most
    a page tall."""
    shape = grid_shape(ctx, n_panels, n_authors, n_series, max_columns=max_columns,
                       share_labels=share_labels, force_horizontal=force_horizontal,
                       legend=legend, fit_page=True)  # fmt: skip
    horizontal, columns, rows = shape.horizontal, shape.columns, shape.rows
    height = shape.height
    if not horizontal:
        # The value label runs up the figure's side: one row of panels of short names was
        # about as tall as the label (cut by a pixel or two at each end) or shorter (no human
        # poets: "share or score (0-1); whiskers: 95% CI" left the figure at both ends).
        height = max(height, measured_width_in(value_label, 7) + VALUE_LABEL_PAD_IN)
    height = min(height, MAX_HEIGHT_IN)
    figure = Figure(figsize=(ctx.width, height), layout="constrained")
    grid = figure.subplots(
        rows, columns, squeeze=False, sharey=share_labels and horizontal, sharex=False
    )
    axes = list(grid.flat)
    for axis in axes[n_panels:]:
        axis.set_visible(False)
    if horizontal:
        figure.supxlabel(value_label, fontsize=7)
    else:
        figure.supylabel(value_label, fontsize=7)
    return Grid(figure, axes[:n_panels], horizontal, columns, shape.panel_in)


def floor_strokes(axis: Axes, slots: np.ndarray, means: np.ndarray, baseline: float,
                  half: float, colours: Sequence[Any], horizontal: bool) -> None:  # fmt: skip
    """A mean at the scale's minimum (every poem scored 1) is a bar of no length: a stroke in
    its colour on the axis, `half` wide each side of its slot, keeps it from reading as a
    missing bar (an empty panel)."""
    floor = np.isfinite(means) & np.isclose(means, baseline)
    if floor.any():
        stroke = axis.vlines if horizontal else axis.hlines
        at = slots[floor]
        stroke(np.full(len(at), baseline), at - half, at + half, linewidth=2.5, zorder=3,
               colors=[c for c, f in zip(colours, floor, strict=True) if f], clip_on=False)  # fmt: skip


def missing_marks(axis: Axes, slots: np.ndarray, baseline: float, horizontal: bool) -> None:
    """ "n/a" where an author has no mean to draw, on the axis at its slot."""
    for slot in slots:
        if horizontal:
            axis.text(baseline, slot, " n/a", ha="left", va="center", fontsize=MIN_FONT_PT,
                      color="0.35")  # fmt: skip
        else:
            axis.text(slot, baseline, " n/a", ha="center", va="bottom", rotation=90,
                      fontsize=MIN_FONT_PT, color="0.35")  # fmt: skip


def draw_panel(ctx: FigureContext, axis: Axes, panel: Panel, horizontal: bool, *,
               show_labels: bool = True, title_in: float | None = None) -> None:  # fmt: skip
    """Bars (grouped by series) per author, whiskers from ci_low to ci_high; the title wrapped
    to `title_in` inches when given."""
    authors = list(panel.authors) or ctx.authors
    colours = ctx.colours(authors)
    slots = np.arange(len(authors), dtype=float)
    count = len(panel.series)
    width = 0.8 / count
    for index, series in enumerate(panel.series):
        frame = series.frame.reindex(authors)
        means = frame["mean"].to_numpy(float)
        low = np.nan_to_num(means - frame["ci_low"].to_numpy(float), nan=0.0)
        high = np.nan_to_num(frame["ci_high"].to_numpy(float) - means, nan=0.0)
        offset = slots + (index - (count - 1) / 2) * width
        colour = [series.colour or colours[a] for a in authors]
        # No mean (every answer N/A, no poem long enough for MATTR): no bar and no whisker,
        # "n/a" on the axis. A bar of no length drew a hairline and a whisker cap at the
        # scale's minimum, read as a mean of 1 (or 0).
        lengths = means - panel.baseline
        style: dict[str, Any] = {"color": colour, "edgecolor": "black", "linewidth": 0.3, "hatch": series.hatch,
                 "label": series.label or None,
                 "error_kw": {"elinewidth": 0.6, "capsize": 1.2, "capthick": 0.6}}  # fmt: skip
        if horizontal:
            axis.barh(offset, lengths, height=width * 0.92, left=panel.baseline,
                      xerr=[low, high], **style)  # fmt: skip
        else:
            axis.bar(offset, lengths, width=width * 0.92, bottom=panel.baseline,
                     yerr=[low, high], **style)  # fmt: skip
        floor_strokes(axis, offset, means, panel.baseline, width * 0.46, colour, horizontal)
        missing_marks(axis, offset[np.isnan(means)], panel.baseline, horizontal)
    for label, values, marker in panel.marks:
        points = values.reindex(authors).to_numpy(float)
        style = {"marker": marker, "linestyle": "none", "color": "black",
                 "markerfacecolor": "white", "markersize": 3.5, "markeredgewidth": 0.8,
                 "label": label, "zorder": 4}  # fmt: skip
        if horizontal:
            axis.plot(points, slots, **style)
        else:
            axis.plot(slots, points, **style)
    if panel.reference is not None:
        label, value = panel.reference
        line = axis.axvline if horizontal else axis.axhline
        line(value, linestyle="--", linewidth=0.7, color="black", label=label, zorder=3)
    names = ctx.labels.author_list(authors)
    low_end, high_end = panel.value_range
    likert_ticks = [1, 2, 3, 4, 5] if panel.value_range == (1.0, 5.0) else None
    if horizontal:
        if show_labels:  # shared y axes share their tick labels: set them once
            axis.set_yticks(slots, names)
            axis.set_ylim(len(authors) - 0.5, -0.5)
        axis.set_xlim(low_end, high_end)
        axis.xaxis.set_major_formatter(VALUE_TICKS)
        if likert_ticks:
            axis.set_xticks(likert_ticks)
        axis.grid(axis="x", alpha=0.3)
        axis.grid(axis="y", visible=False)
        highlight_human_ticks(axis, ctx.human_label, "y")
    else:
        axis.set_xticks(slots, names, rotation=45, ha="right", rotation_mode="anchor")
        axis.set_xlim(-0.6, len(authors) - 0.4)
        axis.set_ylim(low_end, high_end)
        axis.yaxis.set_major_formatter(VALUE_TICKS)
        if likert_ticks:
            axis.set_yticks(likert_ticks)
        highlight_human_ticks(axis, ctx.human_label, "x")
    axis.set_title(_wrapped(panel.title, title_in))


def _wrapped(title: str, width_in: float | None) -> str:
    """The title in lines that fit `width_in` inches (a narrow panel's "Repetition of original"
    ran into its neighbour or off the figure)."""
    if width_in is None or text_width_in(title, TITLE_PT) <= width_in:
        return title
    chars = max(8, int(width_in / text_width_in("x", TITLE_PT)))
    return textwrap.fill(title, chars, break_long_words=False, break_on_hyphens=False)


def grid_height(ctx: FigureContext, n_panels: int, n_authors: int, n_series: int = 1) -> float:
    """The height a horizontal grid with shared author labels would need (uncapped)."""
    label_w = label_width_in(ctx.labels.author_list(ctx.authors))
    columns = max(1, min(n_panels, 4, int((ctx.width - label_w) // 0.75)))
    rows = math.ceil(n_panels / columns)
    return rows * (_rows_height(n_authors, n_series) + 0.45) + 0.35


def draw_grid(ctx: FigureContext, panels: Sequence[Panel], *, value_label: str,
              max_columns: int = 4, legend: bool = False,
              force_horizontal: bool = False) -> Figure:  # fmt: skip
    """Panels on a grid sized for the width; a legend above when several series or marks."""
    n_authors = max(len(p.authors) or len(ctx.authors) for p in panels)
    n_series = max(len(p.series) for p in panels)
    grid = panel_grid(ctx, len(panels), n_authors, n_series, value_label=value_label,
                      max_columns=max_columns, force_horizontal=force_horizontal,
                      legend=legend)  # fmt: skip
    columns = grid.columns
    for index, (axis, panel) in enumerate(zip(grid.axes, panels, strict=True)):
        draw_panel(ctx, axis, panel, grid.horizontal,
                   show_labels=not grid.horizontal or index % columns == 0,
                   title_in=grid.panel_in)  # fmt: skip
    if legend:
        found: dict[str, Any] = {}
        for axis in grid.axes:
            for handle, name in zip(*axis.get_legend_handles_labels(), strict=True):
                found.setdefault(name, handle)
        handles, names = list(found.values()), list(found)
        if handles:
            grid.figure.legend(handles, names, loc="outside upper center",
                               ncols=legend_columns(names, ctx.width))  # fmt: skip
    return grid.figure


def legend_columns(names: Sequence[str], width_in: float) -> int:
    """The entries a row of a legend holds: all of them where they fit the width, else as many
    as fit (the local judge's name beside "Human experts (7)" ran off both sides of a 3.03 in
    column in one row)."""
    size = FontProperties(size=plt.rcParams["legend.fontsize"]).get_size_in_points()
    em_in = size / 72
    handle = (plt.rcParams["legend.handlelength"] + plt.rcParams["legend.handletextpad"]) * em_in
    gap = plt.rcParams["legend.columnspacing"] * em_in
    entries = [measured_width_in(name, size) + handle for name in names]
    if sum(entries) + gap * (len(entries) - 1) <= width_in:
        return len(names)
    return max(1, int((width_in + gap) // (max(entries) + gap)))


def summary_frame(frame: pd.DataFrame, mean: str, low: str, high: str) -> pd.DataFrame:
    """Rename a table's mean / interval columns to mean, ci_low, ci_high, indexed by author."""
    renamed = frame.set_index("author")[[mean, low, high]]
    renamed.columns = pd.Index(["mean", "ci_low", "ci_high"])
    return renamed
