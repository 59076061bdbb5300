"""Annotated heatmaps sized for a printed width (App. H scores, words and images per author)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd
from matplotlib.figure import Figure, SubFigure
from matplotlib.ticker import FuncFormatter

from poemetric.analysis.context import FigureContext
from poemetric.analysis.plotting import (
    MAX_HEIGHT_IN,
    ROW_IN,
    SEQUENTIAL_CMAP,
    highlight_human_ticks,
    label_width_in,
    plain_number,
    subfigures,
    text_width_in,
)
from poemetric.tables.cells import fixed

CELL_FONT_PT = 6.0
COLOURBAR_IN = 0.55
#: Narrower than this, the colour bar goes below the map (its width goes to the cells).
BOTTOM_BAR_BELOW_IN = 5.0
#: Narrowest column whose label fits at 45 degrees.
MIN_COLUMN_IN = 0.14


def colour_bar_width(width: float) -> float:
    return 0.05 if width < BOTTOM_BAR_BELOW_IN else COLOURBAR_IN


@dataclass(frozen=True)
class HeatmapSpec:
    matrix: pd.DataFrame
    row_labels: Sequence[str]
    column_labels: Sequence[str]
    colour_label: str
    value_range: tuple[float, float] | None = None
    title: str = ""
    #: Rows are authors (columns the words or items) rather than the other way round.
    transposed: bool = False
    #: The axis that lists authors ("y" rows, "x" columns): its human label is highlighted.
    authors_axis: str = "y"
    #: What the columns are ("poem form"), printed under them.
    column_title: str = ""

    @property
    def values(self) -> np.ndarray:
        return self.matrix.to_numpy(float)

    def bounds(self) -> tuple[float, float]:
        if self.value_range is not None:
            return self.value_range
        finite = self.values[np.isfinite(self.values)]
        return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)

    def bar_below(self, width: float) -> bool:
        """The colour bar goes below the map at one column, and beside it only when the map
        is taller than the bar's label (two rows of scores were not: the label ran off)."""
        rows_in = len(self.row_labels) * ROW_IN * 1.1
        return width < BOTTOM_BAR_BELOW_IN or rows_in < text_width_in(self.colour_label, 6.5)

    def cell_width(self, width: float) -> float:
        label_w = label_width_in(self.row_labels)
        bar_w = 0.05 if self.bar_below(width) else COLOURBAR_IN
        return (width - label_w - bar_w) / max(len(self.column_labels), 1)

    def flat_header(self, width: float) -> bool:
        cell = self.cell_width(width)
        return all(text_width_in(c, 6.5) + 0.04 <= cell for c in self.column_labels)

    def cell_decimals(self, width: float) -> int | None:
        """The decimals the cells print their values with at `width` (None: too narrow for any
        value, the cells are colour only and the caption must say so: `unprinted_values_note`)."""
        low, high = self.bounds()
        return _cell_decimals(self.cell_width(width), max(abs(low), abs(high)))

    def height(self, width: float) -> float:
        header = 0.2 if self.flat_header(width) else label_width_in(self.column_labels) * 0.75
        below = 0.45 if self.bar_below(width) else 0.0
        titles = (0.15 if self.title else 0) + (0.13 if self.column_title else 0)
        return len(self.row_labels) * ROW_IN * 1.1 + header + 0.4 + below + titles


def _cell_decimals(cell_width_in: float, high: float) -> int | None:
    """Decimals that fit a cell: two, one, none (or None: no annotation at all). Values under
    10 (Likert means, shares) keep at least one decimal: a mean of 3.55 printed as "4" beside
    4.40 as "4" misleads, and the colour scale reads better than that."""
    whole = len(f"{high:.0f}")
    for decimals in (2, 1) if abs(high) < 10 else (2, 1, 0):
        sample = "0" * whole + ("." + "0" * decimals if decimals else "")
        if text_width_in(sample, CELL_FONT_PT) + 0.03 <= cell_width_in:
            return decimals
    return None


#: The decimals the analysis tables print these values with (`to_markdown`, `to_latex`).
TABLE_DIGITS = 2


def cell_text(value: float, decimals: int) -> str:
    """`value` as a cell prints it: as the tables do (`fixed`) at their decimals; at fewer,
    rounded half up: Python's round-half-even printed the tables' 0.25 and 0.75 as "0.2" and
    "0.8" (a mean of 3.25 as "3.2" beside 3.75 as "3.8"). The value is rounded once (3.246 is
    "3.2", not the table's 3.25 rounded again), after 9 decimals drop a float's last-digit
    noise (a mean of 0.25 computed as 0.24999999999999997 is still "0.3")."""
    if decimals >= TABLE_DIGITS:
        return fixed(value, decimals)
    exact = Decimal(f"{value:.9f}")
    return fixed(float(exact.quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP)), decimals)


def draw_heatmap(
    container: Figure | SubFigure, spec: HeatmapSpec, width: float, human_label: str
) -> None:
    """Draw `spec` into a figure or subfigure `width` inches wide."""
    values = spec.values
    low, high = spec.bounds()
    axis = container.subplots()
    # Vector cells (a PDF that scales in print): imshow put a bitmap inside the vector PDF.
    rows, columns = values.shape
    image = axis.pcolormesh(np.arange(columns + 1) - 0.5, np.arange(rows + 1) - 0.5,
                            np.ma.masked_invalid(values), cmap=SEQUENTIAL_CMAP, vmin=low,
                            vmax=high, shading="flat", edgecolors="face", linewidth=0.1,
                            rasterized=False)  # fmt: skip
    axis.set_xlim(-0.5, columns - 0.5)
    axis.set_ylim(rows - 0.5, -0.5)  # the first row on top, as imshow drew it
    if spec.flat_header(width):
        axis.set_xticks(range(len(spec.column_labels)), list(spec.column_labels))
    else:
        axis.set_xticks(range(len(spec.column_labels)), list(spec.column_labels), rotation=45,
                        ha="right", rotation_mode="anchor")  # fmt: skip
    axis.set_yticks(range(len(spec.row_labels)), list(spec.row_labels))
    highlight_human_ticks(axis, human_label, spec.authors_axis)
    axis.grid(False)
    axis.tick_params(length=0)
    for spine in axis.spines.values():
        spine.set_visible(False)
    decimals = spec.cell_decimals(width)
    if decimals is not None:
        middle = low + (high - low) * 0.55
        for (row, col), value in np.ndenumerate(values):
            if np.isfinite(value):
                axis.text(col, row, cell_text(value, decimals), ha="center", va="center",
                          fontsize=CELL_FONT_PT, color="black" if value > middle else "white")  # fmt: skip
    if spec.bar_below(width):
        bar = container.colorbar(image, ax=axis, location="bottom", shrink=0.7, aspect=30,
                                 pad=0.01)  # fmt: skip
    else:
        height = spec.height(width)
        bar = container.colorbar(image, ax=axis, shrink=min(1.0, 2.5 / height), aspect=25,
                                 pad=0.02)  # fmt: skip
    if bar.solids is not None:  # matplotlib makes a bitmap of a bar of 50+ colours
        bar.solids.set_rasterized(False)
        # Each colour's edge drawn in its colour: antialiased viewers showed seams between them.
        bar.solids.set_edgecolor("face")
        bar.solids.set_linewidth(0.3)
    bar.set_label(spec.colour_label, fontsize=6.5)
    bar.ax.tick_params(labelsize=6)
    # "0 ... 1" as the bar charts print it (the pass-rate bar read "0.0 ... 1.0").
    bar.formatter = FuncFormatter(plain_number)
    bar.update_ticks()
    if spec.column_title:
        axis.set_xlabel(spec.column_title, fontsize=7)
    if spec.title:
        axis.set_title(spec.title)


def unprinted_values_note(spec: HeatmapSpec, width: float, where: str) -> str:
    """` The cells are too narrow ... see WHERE.` when the heatmap drawn at `width` prints no
    value in its cells (31 authors x 10 dimensions at one column: a caption that did not say so
    left the reader to guess the numbers from the colour bar); "" when they are printed."""
    if spec.cell_decimals(width) is not None:
        return ""
    return (
        " The cells are too narrow at this width to print their values, which are left out "
        f"(colour only): {where}."
    )


def analysis_table_where(table: str) -> str:
    """Where `poemetric analyze` writes the values of a heatmap: its table `table`."""
    return (
        f"`poemetric analyze` writes them in its {table} table "
        f"(RUN/analysis/{table}.csv, .md and .tex)"
    )


def heatmap_spec(
    matrix: pd.DataFrame,
    column_labels: Sequence[str],
    row_labels: Sequence[str],
    *,
    colour_label: str,
    value_range: tuple[float, float] | None = None,
    title: str = "",
    column_title: str = "",
) -> HeatmapSpec:
    """Rows x columns of numbers coloured by value (`heatmap_figure` draws it), each cell
    annotated when its number fits (two, one or no decimals, by the cell's printed width; a
    caption asks `unprinted_values_note` whether they do)."""
    return HeatmapSpec(matrix, list(row_labels), list(column_labels), colour_label, value_range,
                       title, column_title=column_title)  # fmt: skip


def heatmap_figure(ctx: FigureContext, spec: HeatmapSpec) -> Figure:
    """One heatmap filling the context's width."""
    height = min(MAX_HEIGHT_IN, spec.height(ctx.width))
    figure = Figure(figsize=(ctx.width, height), layout="constrained")
    draw_heatmap(figure, spec, ctx.width, ctx.human_label)
    return figure


def side_by_side(ctx: FigureContext, specs: Sequence[HeatmapSpec]) -> Figure:
    """Several heatmaps in one figure: side by side at two columns, stacked at one."""
    if ctx.narrow:
        heights = [spec.height(ctx.width) for spec in specs]
        figure = Figure(figsize=(ctx.width, min(MAX_HEIGHT_IN, sum(heights))), layout="constrained")
        parts = subfigures(figure, len(specs), 1, height_ratios=heights)
        widths = [ctx.width] * len(specs)
    else:
        widths = [ctx.width / len(specs)] * len(specs)
        height = max(spec.height(w) for spec, w in zip(specs, widths, strict=True))
        figure = Figure(figsize=(ctx.width, min(MAX_HEIGHT_IN, height)), layout="constrained")
        parts = subfigures(figure, 1, len(specs))
    for part, spec, width in zip(parts, specs, widths, strict=True):
        draw_heatmap(part, spec, width, ctx.human_label)
    return figure
