"""Inline SVG charts for the report: one row per author, a dot for the estimate and a line for
its interval. Text is real SVG text (searchable, copyable, readable by screen readers).

Colours and lines follow the paper figures (`poemetric.analysis.plotting`): the human poets in
vermillion, each LLM in its run colour (one blue past 7 LLMs), the experts grey; the experts'
dots are hollow and their whiskers dashed (the figures hatch their bars), so that they differ
from the judge's in print and for colour-blind readers too. A chart that shows more than one
kind of row has a legend above its rows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

HUMAN_COLOUR = "#D55E00"
LLM_COLOUR = "#0072B2"
#: Font size of the chart text in chart units (report.css says the same), the smallest size (px)
#: it may be drawn at, and a generous width of one label character at that font size: wide
#: enough for DejaVu Sans, the widest common sans-serif, in bold (the human row).
FONT_SIZE = 12
MIN_FONT_PX = 10
CHAR_WIDTH = 7.6


@dataclass(frozen=True)
class Row:
    label: str
    value: float
    low: float = math.nan
    high: float = math.nan
    human: bool = False
    colour: str | None = None  # else HUMAN_COLOUR or LLM_COLOUR
    #: The expert panel's estimate (a hollow dot, a dashed whisker), not a judge's.
    expert: bool = False


#: The height (chart units) of the legend's line above the rows.
LEGEND_HEIGHT = 20


def _legend(rows: Sequence[Row], generated: str) -> list[tuple[str, list[str], bool]]:
    """(label, dot colours, hollow) for each kind of row shown: the human poets, the generated
    authors (`generated`: "LLMs" or "Models"; a dot for each of their colours) and the experts;
    none when the rows are of one kind."""
    entries: list[tuple[str, list[str], bool]] = []
    judged = [row for row in rows if not row.expert]
    human = [row for row in judged if row.human]
    if human:
        entries.append(("Human poets", [human[0].colour or HUMAN_COLOUR], False))
    llm_colours = list(dict.fromkeys(row.colour or LLM_COLOUR for row in judged if not row.human))
    if llm_colours:
        label = generated if len(llm_colours) == 1 else f"{generated} (a colour each)"
        entries.append((label, llm_colours, False))
    experts = [row for row in rows if row.expert]
    if experts:
        entries.append(("Experts", [experts[0].colour or LLM_COLOUR], True))
    return entries if len(entries) > 1 else []


def _dot(cx: float, cy: float, colour: str, hollow: bool, tip: str = "") -> str:
    fill = f'fill="#fff" stroke="{colour}" stroke-width="1.6"' if hollow else f'fill="{colour}"'
    return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" {fill}>{tip}</circle>'


def _legend_svg(entries: list[tuple[str, list[str], bool]], x: float, y: float) -> str:
    """The legend's line: each entry's dot(s) (on a whisker) and its label."""
    parts = ['<g class="legend">']
    for label, colours, hollow in entries:
        dash = ' stroke-dasharray="3 2"' if hollow else ""
        for colour in colours:
            parts.append(
                f'<line x1="{x - 2:.1f}" x2="{x + 10:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" class="whisker"{dash}/>' + _dot(x + 4, y, colour, hollow)
            )
            x += 12
        parts.append(f'<text x="{x + 2:.1f}" y="{y + 4:.1f}" class="legend-label">'
                     f"{escape(label)}</text>")  # fmt: skip
        x += 2 + len(label) * CHAR_WIDTH + 14
    parts.append("</g>")
    return "".join(parts)


def interval_chart(
    rows: Sequence[Row],
    *,
    domain: tuple[float, float],
    ticks: Sequence[float],
    title: str,
    width: int = 560,
    label_width: int = 200,
    row_height: int = 17,
    generated: str = "LLMs",
) -> Markup:
    """Dot-and-whisker chart; `title` names the chart and says what the whiskers are. The label
    column widens to the longest label (the plot keeps its width), so that no label is cut at
    the left edge; the chart shrinks with its container down to MIN_FONT_PX text, then scrolls
    sideways in its `div.chart-scroll`. `generated` names the rows of the generated authors in the
    legend: "Models" where one of them is not a language model (the Markov baseline)."""
    low, high = domain
    plot = width - label_width - 16
    longest = max((len(row.label) for row in rows), default=0)
    label_width = max(label_width, math.ceil(longest * CHAR_WIDTH) + 12)
    width = label_width + plot + 16
    legend = _legend(rows, generated)
    legend_width = sum(12 * len(c) + 16 + len(label) * CHAR_WIDTH for label, c, _ in legend)
    width = max(width, math.ceil(legend_width) + 16)
    smallest = math.ceil(width * MIN_FONT_PX / FONT_SIZE)
    top, bottom = 8 + (LEGEND_HEIGHT if legend else 0), 26
    height = top + bottom + row_height * len(rows)

    def x(value: float) -> float:
        return label_width + (min(max(value, low), high) - low) / (high - low) * plot

    parts = [
        f'<div class="chart-scroll"><svg class="chart" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" style="min-width: {smallest}px" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
    if legend:
        parts.append(_legend_svg(legend, 10, 8 + LEGEND_HEIGHT / 2 - 2))
    axis_y = top + row_height * len(rows)
    for tick in ticks:
        tx = x(tick)
        parts.append(
            f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{top}" y2="{axis_y}" class="grid"/>'
            f'<text x="{tx:.1f}" y="{axis_y + 14}" class="tick">{tick:g}</text>'
        )
    for index, row in enumerate(rows):
        y = top + row_height * index + row_height / 2
        colour = row.colour or (HUMAN_COLOUR if row.human else LLM_COLOUR)
        weight = ' font-weight="bold"' if row.human else ""
        parts.append(
            f'<text x="{label_width - 8}" y="{y + 4:.1f}" class="label"{weight}>'
            f"{escape(row.label)}</text>"
        )
        if math.isnan(row.value):
            # No estimate (every answer N/A): "n/a" at the axis's start, as the paper figures
            # say it (`bars.missing_marks`); the row was left empty, read as a lost dot.
            parts.append(
                f'<text x="{x(low) + 4:.1f}" y="{y + 4:.1f}" class="missing">n/a'
                f"<title>{escape(row.label)}: no mean</title></text>"
            )
            continue
        if not (math.isnan(row.low) or math.isnan(row.high)):
            dash = ' stroke-dasharray="3 2"' if row.expert else ""
            parts.append(
                f'<line x1="{x(row.low):.1f}" x2="{x(row.high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" class="whisker"{dash}/>'
            )
        interval = "" if math.isnan(row.low) else f" [{row.low:.2f}, {row.high:.2f}]"
        tip = f"<title>{escape(row.label)}: {row.value:.2f}{interval}</title>"
        parts.append(_dot(x(row.value), y, colour, row.expert, tip))
    parts.append("</svg></div>")
    return Markup("".join(parts))
