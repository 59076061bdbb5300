"""Shared matplotlib style: Agg backend, colour-blind-safe colours, human highlighted, saving."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from poemetric.analysis.data import HUMAN_AUTHOR

#: Okabe & Ito (2008) colours; vermillion is reserved for the human poets.
HUMAN_COLOUR = "#D55E00"
LLM_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#56B4E9", "#CC79A7", "#F0E442", "#999999")
SINGLE_LLM_COLOUR = "#0072B2"
PART_COLOURS = {
    "basic": "#0072B2",
    "advanced": "#009E73",
    "quality": "#E69F00",
    "appraisal": "#CC79A7",
}
SEQUENTIAL_CMAP = "cividis"
FIGURE_FORMATS: tuple[str, ...] = ("pdf", "png")

STYLE: dict[Any, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.05,
    "pdf.fonttype": 42,  # embed TrueType: editable text, accepted by publishers
    "ps.fonttype": 42,
    "svg.fonttype": "none",
}


@contextmanager
def figure_style() -> Iterator[None]:
    with plt.rc_context(STYLE):
        yield


def author_colours(authors: Sequence[str]) -> dict[str, str]:
    """Human in vermillion; up to 7 LLMs in distinct Okabe-Ito colours, more in one blue."""
    llms = [a for a in authors if a != HUMAN_AUTHOR]
    colours = {HUMAN_AUTHOR: HUMAN_COLOUR}
    if len(llms) <= len(LLM_COLOURS):
        colours |= dict(zip(llms, LLM_COLOURS, strict=False))
    else:
        colours |= dict.fromkeys(llms, SINGLE_LLM_COLOUR)
    return colours


def highlight_human_ticks(axis: Axes, which: str = "x") -> None:
    """Bold, vermillion tick label for the human author."""
    labels = axis.get_xticklabels() if which == "x" else axis.get_yticklabels()
    for label in labels:
        if label.get_text() == HUMAN_AUTHOR:
            label.set_fontweight("bold")
            label.set_color(HUMAN_COLOUR)


def save_figure(figure: Figure, out_dir: Path, name: str, formats: Sequence[str]) -> list[Path]:
    """Write `name.<fmt>` for each format (PNG at 300 dpi) and close the figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        if fmt not in {"pdf", "png", "svg"}:
            raise ValueError(f"unknown figure format {fmt!r}; use pdf, png or svg")
        path = out_dir / f"{name}.{fmt}"
        figure.savefig(path, dpi=300 if fmt == "png" else None, metadata=_metadata(fmt))
        written.append(path)
    plt.close(figure)
    return written


def _metadata(fmt: str) -> dict[str, str | None]:
    # No timestamps: the same run gives byte-stable PDFs and SVGs.
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": "POEMetric"}
    if fmt == "svg":
        return {"Date": None}
    return {"Software": "POEMetric"}
