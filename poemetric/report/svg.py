"""Inline SVG charts for the report: one row per author, a dot for the estimate and a line for
its interval. Text is real SVG text (searchable, copyable, readable by screen readers)."""

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


def interval_chart(
    rows: Sequence[Row],
    *,
    domain: tuple[float, float],
    ticks: Sequence[float],
    title: str,
    width: int = 560,
    label_width: int = 200,
    row_height: int = 17,
) -> Markup:
    """Dot-and-whisker chart; `title` names the chart and says what the whiskers are. The label
    column widens to the longest label (the plot keeps its width), so that no label is cut at
    the left edge; the chart shrinks with its container down to MIN_FONT_PX text, then scrolls
    sideways in its `div.chart-scroll`."""
    low, high = domain
    plot = width - label_width - 16
    longest = max((len(row.label) for row in rows), default=0)
    label_width = max(label_width, math.ceil(longest * CHAR_WIDTH) + 12)
    width = label_width + plot + 16
    smallest = math.ceil(width * MIN_FONT_PX / FONT_SIZE)
    top, bottom = 8, 26
    height = top + bottom + row_height * len(rows)

    def x(value: float) -> float:
        return label_width + (min(max(value, low), high) - low) / (high - low) * plot

    parts = [
        f'<div class="chart-scroll"><svg class="chart" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" style="min-width: {smallest}px" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
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
            parts.append(
                f'<line x1="{x(row.low):.1f}" x2="{x(row.high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" class="whisker"/>'
            )
        interval = "" if math.isnan(row.low) else f" [{row.low:.2f}, {row.high:.2f}]"
        parts.append(
            f'<circle cx="{x(row.value):.1f}" cy="{y:.1f}" r="4" fill="{colour}">'
            f"<title>{escape(row.label)}: {row.value:.2f}{interval}</title></circle>"
        )
    parts.append("</svg></div>")
    return Markup("".join(parts))
