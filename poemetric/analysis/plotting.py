"""Shared matplotlib style: Agg backend, page widths, colour-blind-safe colours, saving.

Figures are drawn at their printed size: one column (3.3 in) or two columns (6.8 in) wide, with
text of 6-7.5 pt, so a figure dropped into a paper at 100% keeps every label readable. Heights
grow with the number of authors; `MAX_HEIGHT_IN` keeps a figure on one page (figures switch to a
compact form, e.g. a heatmap, before they would exceed it).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure, SubFigure
from matplotlib.font_manager import FontProperties

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.paths import replaced_when_done
from poemetric.tables.latex_layout import LATEX_WIDTH_WORDS

#: Printed widths in inches (a two-column paper's column and full text width).
COLUMN_WIDTHS: dict[str, float] = {"one": 3.3, "two": 6.8}
MIN_FONT_PT = 6.0
MAX_HEIGHT_IN = 9.0
#: Height of one author row in horizontal bar charts and heatmaps (fits 6.5 pt labels).
ROW_IN = 0.125
#: Narrowest slot for one vertical bar whose label is rotated (fits 6.5 pt labels).
BAR_SLOT_IN = 0.13

#: Okabe & Ito (2008) colours; vermillion is reserved for the human poets.
HUMAN_COLOUR = "#D55E00"
LLM_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
SINGLE_LLM_COLOUR = "#0072B2"
#: The run-wide palette (`run_palette`): Okabe-Ito's 7, then colours of Paul Tol's schemes
#: (muted, light, medium-contrast, bright), none the vermillion of the human poets or the grey
#: of the expert panel, in rounds of 8 unlike hues (neighbours in the run's author order differ
#: in hue, not only in shade): 30 LLMs of a run get a colour each.
RUN_COLOURS = (
    *LLM_COLOURS, "#882255",
    "#332288", "#997700", "#117733", "#88CCEE", "#AA4499", "#DDCC77", "#994455", "#44AA99",
    "#004488", "#CCBB44", "#44BB99", "#FFAABB", "#999933", "#AA3377", "#99DDFF", "#6699CC",
    "#4477AA", "#EEDD88", "#228833", "#EE99AA", "#BBCC33", "#77AADD",
)  # fmt: skip
EXPERT_COLOUR = "#999999"
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
    "font.size": 7,
    "axes.titlesize": 7.5,
    "axes.labelsize": 7,
    "xtick.labelsize": 6.5,
    "ytick.labelsize": 6.5,
    "legend.fontsize": 6.5,
    "figure.titlesize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.major.size": 2.5,
    "ytick.major.size": 2.5,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "legend.frameon": False,
    "figure.constrained_layout.h_pad": 0.03,
    "figure.constrained_layout.w_pad": 0.03,
    "savefig.pad_inches": 0.02,
    "pdf.fonttype": 42,  # embed TrueType: editable text, accepted by publishers
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    # Poems, titles and model names are printed as written: "$5 ... $6" is not mathtext.
    "text.parse_math": False,
}


@dataclass(frozen=True)
class Drawing:
    """A drawn figure and its caption (written beside it as NAME.caption.txt); `notes`: what
    `figures` should say about it in the terminal (a panel left out for lack of data)."""

    figure: Figure
    caption: str
    notes: tuple[str, ...] = ()


def poem_count(counts: Iterable[int | float]) -> str:
    """The poems behind each bar or cell, for a caption: `16`, or `12-16` when they differ."""
    numbers = [int(n) for n in counts if n == n]  # NaN: no poems
    if not numbers:
        return "0"
    low, high = min(numbers), max(numbers)
    return f"{low}" if low == high else f"{low}-{high}"


def counted_poems(counts: int | Iterable[int | float], noun: str = "poem") -> str:
    """`poem_count` with its noun, singular for exactly one: `1 poem`, `16 poems`,
    `12-16 checked poems` (`noun="checked poem"`), `0 poems`."""
    said = poem_count([counts] if isinstance(counts, int) else counts)
    return f"{said} {noun}" if said == "1" else f"{said} {noun}s"


def subfigures(figure: Figure, rows: int, columns: int, **kwargs: Any) -> list[SubFigure]:
    """`figure.subfigures` as a flat list, whatever the grid's shape."""
    parts = figure.subfigures(rows, columns, squeeze=False, **kwargs)
    return [part for part in parts.flat]


@contextmanager
def figure_style() -> Iterator[None]:
    with plt.rc_context(STYLE):
        yield


#: Words for the column widths, those of `analyze --latex-width` too. Numbers are always inches:
#: `2` was an alias of `two` (6.8 in) although 2 in is a valid width.
WIDTH_WORDS = LATEX_WIDTH_WORDS
WIDTH_RANGE_IN = (2.0, 10.0)
WIDTH_CHOICES = (
    f"'one' (also 'single', 'column': {COLUMN_WIDTHS['one']:g} in), 'two' (also 'double', "
    f"'page': {COLUMN_WIDTHS['two']:g} in) or a number of inches from "
    f"{WIDTH_RANGE_IN[0]:g} to {WIDTH_RANGE_IN[1]:g}"
)


def parse_width(value: str | float) -> float:
    """A column width by word (`WIDTH_WORDS`: 'one' 3.3 in, 'two' 6.8 in) or a width in inches
    (2-10; a number is always inches, '2' is 2 in)."""
    text = str(value).strip().lower()
    if text in WIDTH_WORDS:
        return COLUMN_WIDTHS[WIDTH_WORDS[text]]
    try:
        inches = float(text.removesuffix("in").strip())
    except ValueError:
        raise ValueError(f"width {value!r}: use {WIDTH_CHOICES}") from None
    low, high = WIDTH_RANGE_IN
    if not low <= inches <= high:
        raise ValueError(
            f"width {value!r}: inches must be between {low:g} and {high:g}; for a column width "
            f"say 'one' ({COLUMN_WIDTHS['one']:g} in) or 'two' ({COLUMN_WIDTHS['two']:g} in)"
        )
    return inches


def run_palette(authors: Iterable[str]) -> dict[str, str]:
    """Every author of a run -> its colour in every figure of the run, whichever authors a
    figure shows: the human poets vermillion; the LLMs, in `author_order`, take `RUN_COLOURS`
    in turn (a run of up to 7 LLMs gets Okabe-Ito as before; past 30 the colours repeat).
    It was assigned per selection: `paper7` and another 7 of a 30-model run gave one model two
    colours."""
    llms = [a for a in author_order(authors) if a != HUMAN_AUTHOR]
    colours = {HUMAN_AUTHOR: HUMAN_COLOUR}
    colours |= {a: RUN_COLOURS[i % len(RUN_COLOURS)] for i, a in enumerate(llms)}
    return colours


#: The authors' line styles and markers (the radar's lines), by the author's place in the run as
#: its colour (`run_palette`). They went by the author's place in the figure: DeepSeek-V3 was
#: dotted in one radar and dashed in another, in the same colour. The style changes with each
#: round of `RUN_COLOURS` (8 unlike hues, then their kin in the next round: the blue and the
#: dark blue of two LLMs differ in style too), the marker within a round (the lines of a
#: printout in grey stay apart); the human poets alone have dots.
LINE_STYLES = ("-", "--", "-.", ":")
LINE_MARKERS = ("s", "^", "D", "v", "P", "X", "*", "p")
COLOUR_ROUND = 8


@dataclass(frozen=True)
class LineStyle:
    """How one author's line is drawn in every line figure of a run."""

    linestyle: str
    marker: str


HUMAN_LINE = LineStyle("-", "o")


def run_line_styles(authors: Iterable[str]) -> dict[str, LineStyle]:
    """Every author of a run -> its line style and marker in every figure of the run, whichever
    authors a figure shows: the human poets solid with dots; the LLMs, in `author_order`, a
    style per round of colours and a marker per place in it."""
    llms = [a for a in author_order(authors) if a != HUMAN_AUTHOR]
    styles = {HUMAN_AUTHOR: HUMAN_LINE}
    styles |= {
        a: LineStyle(
            LINE_STYLES[(i // COLOUR_ROUND) % len(LINE_STYLES)],
            LINE_MARKERS[i % COLOUR_ROUND],
        )
        for i, a in enumerate(llms)
    }
    return styles


def author_colours(authors: Sequence[str], palette: dict[str, str] | None = None) -> dict[str, str]:
    """The colours of the authors one figure shows: up to 7 LLMs each in its `palette` colour
    (default: `run_palette(authors)`), the human poets in vermillion. With more LLMs every LLM
    bar is one blue: the figures then label each bar directly (its tick label) instead of
    relying on a legend, since no palette keeps 30 colours apart."""
    llms = [a for a in authors if a != HUMAN_AUTHOR]
    colours = {HUMAN_AUTHOR: HUMAN_COLOUR}
    if len(llms) > len(LLM_COLOURS):
        return colours | dict.fromkeys(llms, SINGLE_LLM_COLOUR)
    palette = run_palette(authors) if palette is None else palette
    return colours | {a: palette[a] for a in llms}


def plain_number(value: float, _position: object = None) -> str:
    """A tick label as every figure prints it: "0", "0.2", "1", "10" (never "1.0"): bar charts'
    value axes and heatmaps' colour bars alike."""
    return f"{value:g}"


def highlight_human_ticks(axis: Axes, human_label: str, which: str = "x") -> None:
    """Bold, vermillion tick label for the human author."""
    labels = axis.get_xticklabels() if which == "x" else axis.get_yticklabels()
    for label in labels:
        if label.get_text() == human_label:
            label.set_fontweight("bold")
            label.set_color(HUMAN_COLOUR)


def text_width_in(text: str, size_pt: float) -> float:
    """A safe upper estimate of a label's printed width (DejaVu Sans averages ~0.6 em)."""
    return len(text) * size_pt * 0.62 / 72


#: The most characters an author's name prints in a figure: every figure kind is laid out for
#: names up to the paper's longest, `DeepSeek-R1-Distill-Llama-70B` (29 characters).
LABEL_LIMIT = 29


@functools.lru_cache(maxsize=4096)
def measured_width_in(text: str, size_pt: float, bold: bool = False) -> float:
    """The printed width of `text` in the figures' font (`bold`: its bold face), from the Agg
    renderer's metrics (the estimate above is safe but 10% wide for names, and half as wide for
    "mmm")."""
    font = FontProperties(
        family=STYLE["font.family"], size=size_pt, weight="bold" if bold else "normal"
    )
    width, _, _ = _MEASURE.get_text_width_height_descent(text, font, ismath=False)
    return float(width) / 72


_MEASURE = RendererAgg(1, 1, 72)


def label_width_in(labels: Sequence[str], size_pt: float = 6.5) -> float:
    return max((text_width_in(label, size_pt) for label in labels), default=0.0) + 0.08


def save_figure(drawing: Drawing, out_dir: Path, name: str, formats: Sequence[str]) -> list[Path]:
    """Write `name.<fmt>` for each format (PNG at 300 dpi) at the figure's exact size, and its
    caption as `name.caption.txt`; close the figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        if fmt not in {"pdf", "png", "svg"}:
            raise ValueError(f"unknown figure format {fmt!r}; use pdf, png or svg")
        path = out_dir / f"{name}.{fmt}"
        # A fixed salt: SVG clip-path and image ids are otherwise salted with a random uuid.
        with (
            replaced_when_done(path) as temp,
            plt.rc_context({"svg.hashsalt": f"poemetric:{name}"}),
        ):
            drawing.figure.savefig(
                temp, format=fmt, dpi=300 if fmt == "png" else None, metadata=_metadata(fmt)
            )
        written.append(path)
    caption = out_dir / f"{name}.caption.txt"
    with replaced_when_done(caption) as temp:
        temp.write_text(drawing.caption.strip() + "\n", encoding="utf-8")
    written.append(caption)
    plt.close(drawing.figure)
    return written


def _metadata(fmt: str) -> dict[str, str | None]:
    # No timestamps: the same run gives byte-stable PDFs and SVGs.
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": "POEMetric"}
    if fmt == "svg":
        return {"Date": None}
    return {"Software": "POEMetric"}
