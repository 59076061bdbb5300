"""Checks of a drawn figure's text at its printed size: size, overlaps, clipping.

Used by the tests on every figure kind at one- and two-column widths, and available to users
who write their own figure functions:

    problems = text_problems(drawing.figure)   # [] when every label is readable

Rotated labels are compared as rotated rectangles (the renderer's axis-aligned extents of two
neighbouring 45-degree labels overlap although their letters do not).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from poemetric.analysis.plotting import COLUMN_WIDTHS, MIN_FONT_PT

#: `figures` checks the labels of every figure it draws narrower than this (one column): the
#: tests check every kind at one and two columns, and below about 3 in the paper's 31 authors
#: do not fit. The check costs about 0.1-0.4 s of CPU per figure, so wider figures skip it.
CHECKED_BELOW_IN = COLUMN_WIDTHS["one"]


def _undrawn_tick_labels(figure: Figure) -> set[int]:
    """Tick labels outside their axis' view interval: they exist but are not drawn."""
    hidden: set[int] = set()
    for axes in figure.get_axes():
        for axis in (axes.xaxis, axes.yaxis):
            low, high = sorted(axis.get_view_interval())
            margin = (high - low) * 1e-9
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if not low - margin <= tick.get_loc() <= high + margin:
                    hidden.update({id(tick.label1), id(tick.label2)})
    return hidden


def _visible_texts(figure: Figure) -> list[Text]:
    texts = []
    hidden = _undrawn_tick_labels(figure)
    for text in figure.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in hidden:
            continue
        axes = text.axes
        if axes is not None and not axes.get_visible():
            continue
        texts.append(text)
    return texts


def _corners(text: Text, renderer: RendererAgg) -> np.ndarray:
    """The text's box as 4 display-space corners (rotated with the text)."""
    box = text.get_window_extent(renderer)
    angle = math.radians(text.get_rotation() % 180)
    if abs(math.sin(angle)) < 1e-6:
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    lines = text.get_text().split("\n")
    sizes = [
        renderer.get_text_width_height_descent(line, text.get_fontproperties(), ismath=False)
        for line in lines
    ]
    width = max(w for w, _, _ in sizes)
    height = sum(h for _, h, _ in sizes) * (text.get_linespacing() if len(lines) > 1 else 1.0)
    # A rotated rectangle keeps its centre: the centre of the renderer's axis-aligned extent.
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    half = np.array([[-width, -height], [width, -height], [width, height], [-width, height]]) / 2
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return centre + half @ rotation.T


def _overlap(a: np.ndarray, b: np.ndarray, slack: float) -> bool:
    """Separating-axis test of two convex quadrilaterals, shrunk by `slack` pixels."""
    for polygon in (a, b):
        for index in range(4):
            edge = polygon[(index + 1) % 4] - polygon[index]
            normal = np.array([-edge[1], edge[0]])
            length = float(np.hypot(*normal))
            if length == 0:
                continue
            normal /= length
            pa, pb = a @ normal, b @ normal
            if pa.max() - slack <= pb.min() + slack or pb.max() - slack <= pa.min() + slack:
                return False
    return True


def text_problems(
    figure: Figure, *, min_size: float = MIN_FONT_PT, slack_px: float = 0.5
) -> list[str]:
    """Text under `min_size` points, text boxes that overlap each other, and text outside the
    figure. Extents come from the Agg renderer at the figure's own size and dpi."""
    figure.set_dpi(72)  # extents in points
    canvas = FigureCanvasAgg(figure)
    # the layout and every text's extent without rasterising a pixel (drawing took most of it)
    figure.draw_without_rendering()
    renderer = canvas.get_renderer()
    bounds = figure.bbox
    problems: list[str] = []
    shapes: list[tuple[Text, np.ndarray]] = []
    for text in _visible_texts(figure):
        label = repr(text.get_text()[:40])
        if float(text.get_fontsize()) < min_size - 1e-9:
            problems.append(f"{label} is {text.get_fontsize():g} pt (< {min_size:g} pt)")
        box = text.get_window_extent(renderer)
        if (box.x0 < bounds.x0 - 1 or box.y0 < bounds.y0 - 1 or box.x1 > bounds.x1 + 1
                or box.y1 > bounds.y1 + 1):  # fmt: skip
            problems.append(f"{label} leaves the figure")
        if box.width > 0 and box.height > 0:
            shapes.append((text, _corners(text, renderer)))
    if shapes:
        # Axis-aligned bounds first (vectorised); the exact test only for pairs that touch.
        corners = np.stack([shape for _, shape in shapes])
        low, high = corners.min(axis=1) + slack_px, corners.max(axis=1) - slack_px
        touching = np.all(
            (low[:, None, :] < high[None, :, :]) & (low[None, :, :] < high[:, None, :]), axis=2
        )
        for i, j in zip(*np.nonzero(np.triu(touching, k=1)), strict=True):
            (first, a), (second, b) = shapes[i], shapes[j]
            if _overlap(a, b, slack_px):
                problems.append(f"{first.get_text()[:40]!r} overlaps {second.get_text()[:40]!r}")
    return problems


def crowding_warning(figure: Figure, width: float) -> str | None:
    """What `figures` says of a figure drawn at `width` inches whose text overlaps, leaves the
    figure or is too small (None when it is readable, or when `width` is not under
    `CHECKED_BELOW_IN`: those widths are not checked)."""
    if width >= CHECKED_BELOW_IN:
        return None
    problems = text_problems(figure)
    if not problems:
        return None
    count = f"{len(problems)} label problem{'s' if len(problems) > 1 else ''}"
    return (
        f"at {width:g} in, {count} (e.g. {problems[0]}): show fewer authors (--authors) or "
        f"draw it wider (--width one: {COLUMN_WIDTHS['one']:g} in)"
    )
