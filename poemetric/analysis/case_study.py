"""Paper Fig. 3 (and 12-13): two poems written for the same prompt, their text and titles, and
the judge's scores of each side by side."""

from __future__ import annotations

import ast
import json
import textwrap
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure, SubFigure
from matplotlib.transforms import offset_copy

from poemetric.analysis.bars import floor_strokes
from poemetric.analysis.context import Count, FigureContext, FigureSkipped
from poemetric.analysis.data import HUMAN_AUTHOR, judgments_per_generation
from poemetric.analysis.plotting import (
    Drawing,
    measured_width_in,
    subfigures,
    text_width_in,
)
from poemetric.questionnaire import DIMENSION_KEYS, DIMENSIONS
from poemetric.tables.headers import dimension_label
from poemetric.text.ordering import author_order

POEM_FONT_PT = 6.5
LINE_IN = POEM_FONT_PT * 1.25 / 72
HEADING_PT = 7
#: A heading line's height in poem lines (7 pt at matplotlib's 1.2 line spacing).
HEADING_LINES = HEADING_PT * 1.2 / (POEM_FONT_PT * 1.25)
#: A line's baseline below the top of its text, in ems (DejaVu's ascent is 0.76 em).
ASCENT_EM = 0.8
_TITLE_NOTE = "removed title line: "


def title_from_notes(notes: object) -> str | None:
    """The title the generation stage removed from a model's answer (its extraction notes)."""
    try:
        items = json.loads(notes) if isinstance(notes, str) else []
    except json.JSONDecodeError:
        return None
    for note in items if isinstance(items, list) else []:
        if isinstance(note, str) and note.startswith(_TITLE_NOTE):
            try:
                line = str(ast.literal_eval(note[len(_TITLE_NOTE) :]))
            except (ValueError, SyntaxError):
                return None
            line = line.strip().lstrip("#").strip().strip("*_").strip()
            if line.lower().startswith("title:"):
                line = line[6:].strip().strip("*_").strip()
            return line.strip('"“”') or None
    return None


def pick_case(
    per_poem: pd.DataFrame,
    author: str | None,
    poem_id: str | None,
    other: str,
    short_prompts: set[str] | None = None,
) -> tuple[str, str]:
    """(author, poem_id) to show. Defaults: the LLM with the best mean overall quality, and the
    prompt where its poem's mean score most exceeds `other`'s (the most striking showcase),
    among prompts whose poems fit on a page (`short_prompts`) when there are any."""
    if author is None:
        llms = per_poem[per_poem["author"] != other]
        if llms.empty:
            raise FigureSkipped(f"no judged poems by an author other than {other!r}")
        author = str(llms.groupby("author")["overall_quality"].mean().idxmax())
    mine = per_poem[per_poem["author"] == author].set_index("poem_id")
    theirs = per_poem[per_poem["author"] == other].set_index("poem_id")
    shared = sorted(set(mine.index) & set(theirs.index))
    if poem_id is None:
        if not shared:
            raise FigureSkipped(f"no prompt judged for both {author!r} and {other!r}")
        candidates = [p for p in shared if p in (short_prompts or set())] or shared
        keys = list(DIMENSION_KEYS)
        gap = mine.loc[candidates, keys].mean(axis=1) - theirs.loc[candidates, keys].mean(axis=1)
        poem_id = str(gap.groupby(level=0).mean().idxmax())
    elif poem_id not in shared:
        raise FigureSkipped(f"poem {poem_id!r} is not judged for both {author!r} and {other!r}")
    return author, poem_id


def _wrap(poem: str, chars: int, max_lines: int) -> tuple[list[str], int]:
    """Poem lines wrapped to `chars` (continuations indented) and cut at `max_lines`."""
    printed: list[str] = []
    for line in poem.strip("\n").split("\n"):
        printed += textwrap.wrap(line, chars, subsequent_indent="    ") or [""]
    if len(printed) <= max_lines:
        return printed, 0
    return printed[: max_lines - 1], len(printed) - (max_lines - 1)


def _wrap_heading(heading: str, width_in: float) -> list[str]:
    """A poem's heading ("Poem B: <its title>") in lines that fit its panel: unwrapped, a long
    title ran off the figure at one column ("… nothing like the" for Sonnet 130)."""
    lines = [""]
    for word in heading.split():
        candidate = f"{lines[-1]} {word}".strip()
        if lines[-1] and measured_width_in(candidate, HEADING_PT, bold=True) > width_in:
            lines.append(word)
        else:
            lines[-1] = candidate
    return lines


def _print_lines(axis: Axes, lines: list[str], top_pt: float, pitch_pt: float,
                 **style: Any) -> None:  # fmt: skip
    """Each line as a text of its own, its baseline `pitch_pt` below the one before. One
    multi-line text is spaced by matplotlib 3.11 from each line's own ascent and descent: a
    line without descenders ("face sun and silver thread") sat 3 px (at 300 dpi) closer to the
    next, so a poem's lines were unevenly spaced."""
    figure = axis.get_figure(root=True)
    first = top_pt + ASCENT_EM * float(style["fontsize"])
    for index, line in enumerate(lines):
        if line.strip():  # a stanza break keeps its place, with nothing to draw
            baseline = offset_copy(axis.transAxes, fig=figure, y=-(first + index * pitch_pt),
                                   units="points")  # fmt: skip
            axis.text(0, 1, line, va="baseline", ha="left", transform=baseline, **style)


def _poem_panel(axis: Axes, heading: list[str], lines: list[str], cut: int) -> None:
    axis.axis("off")
    axis.set_xlim(0, 1)
    axis.set_ylim(0, 1)
    _print_lines(axis, heading, 0, HEADING_LINES * LINE_IN * 72, fontsize=HEADING_PT,
                 fontweight="bold")  # fmt: skip
    body = [*lines, *([f"[… {cut} more lines]"] if cut else [])]
    below = (1.6 + HEADING_LINES * (len(heading) - 1)) * LINE_IN * 72
    _print_lines(axis, body, below, LINE_IN * 72, fontsize=POEM_FONT_PT, family="DejaVu Serif")


def _score_bars(ctx: FigureContext, container: Figure | SubFigure, rows: dict[str, pd.Series],
                names: dict[str, str]) -> None:  # fmt: skip
    axis = container.subplots()
    x = np.arange(len(DIMENSIONS))
    # Each poem in its author's colour in the run's other figures (poem A was always blue).
    palette = ctx.colours(list(rows))
    colours = [palette[name] for name in rows]
    scores = {
        key: np.array([row[d.key] for d in DIMENSIONS], dtype=float) for key, row in rows.items()
    }
    # Means over judge samples (`judge --samples 3`) print one decimal ("3.3"; `:g` printed
    # "3.33333" and each label ran into its neighbour's); at one column two of them side by
    # side still touch, so they stand upright there, as "N/A" does.
    decimals = any(np.any(v[~np.isnan(v)] % 1 != 0) for v in scores.values())
    upright = 90 if decimals and ctx.narrow else 0
    for index, ((key, values), colour) in enumerate(zip(scores.items(), colours, strict=True)):
        offset = x + (index - 0.5) * 0.4
        axis.bar(offset, np.nan_to_num(values - 1), bottom=1, width=0.38, color=colour,
                 edgecolor="black", linewidth=0.3, label=names[key])  # fmt: skip
        floor_strokes(axis, offset, values, 1.0, 0.19, [colour] * len(values), horizontal=False)
        for position, value in zip(offset, values, strict=True):
            if np.isnan(value):
                axis.text(position, 1.08, "N/A", ha="center", va="bottom", rotation=90, fontsize=6)
            else:
                axis.text(position, value + 0.05, f"{value:.1f}".removesuffix(".0"),
                          ha="center", va="bottom", rotation=upright, fontsize=6)  # fmt: skip
    axis.set_xticks(x, [dimension_label(d.key) for d in DIMENSIONS], rotation=45, ha="right",
                    rotation_mode="anchor")  # fmt: skip
    axis.set_ylim(1, 5.6)
    axis.set_yticks([1, 2, 3, 4, 5])
    axis.set_ylabel("score (1-5)")
    # The judge is named above the bars: as part of the axis label, a long name (the local
    # judge's "Qwen/Qwen2.5-72B-Instruct (local)") was taller than the bars. The two poems'
    # entries share a row when they fit the width (a long model name does not at one column).
    entries_in = sum(text_width_in(name, 6.5) + 0.45 for name in names.values())
    legend = container.legend(loc="outside upper center", ncols=2 if entries_in < ctx.width else 1,
                              title=f"judged by {ctx.judge_label}")  # fmt: skip
    legend.get_title().set_fontsize(6.5)


def case_study(
    ctx: FigureContext,
    author: str | None = None,
    poem_id: str | None = None,
    other: str = HUMAN_AUTHOR,
    max_lines: Count = 40,
) -> Drawing:
    """Poem A (`author`, default the best LLM) and poem B (`other`, default the human poet) for
    one prompt: both texts with their titles, and the judge's scores as grouped bars."""
    per_poem = judgments_per_generation(ctx.judgments)
    poems = ctx.data.generations
    present = author_order(poems["author"].unique())
    for name in (author, other):  # "no prompt judged for both" sent the user to the judge
        if name is not None and name not in present:
            raise FigureSkipped(
                f"{name!r} has no poems in this run (authors: {', '.join(present)})"
            )
        if name is not None and name not in ctx.authors:  # it was "no prompt judged" too
            raise FigureSkipped(
                f"{name!r} is left out by {ctx.selected_by or 'the author selection'} (shown: "
                f"{', '.join(ctx.authors)}); name it there too to draw this figure"
            )
    line_counts = poems.assign(lines=poems["poem"].astype(str).str.count("\n") + 1)
    longest = line_counts.groupby("poem_id")["lines"].max()
    short = set(longest[longest <= max_lines].index)
    author, poem_id = pick_case(per_poem, author, poem_id, other, short)
    chosen = {
        name: per_poem[(per_poem["author"] == name) & (per_poem["poem_id"] == poem_id)].iloc[0]
        for name in (author, other)
    }
    texts = poems[poems["poem_id"] == poem_id].set_index("author")
    human_title = str(texts["poem_title"].iloc[0] or "")
    titles = {
        name: (human_title if name == HUMAN_AUTHOR else title_from_notes(
            texts.at[name, "extraction_notes"] if "extraction_notes" in texts else None))
        for name in (author, other)
    }  # fmt: skip
    narrow = ctx.narrow
    panel_width = ctx.width - 0.2 if narrow else ctx.width / 2 - 0.2
    chars = max(24, int(panel_width * 72 / (POEM_FONT_PT * 0.5)))
    wrapped = {name: _wrap(str(texts.at[name, "poem"]), chars, max_lines) for name in chosen}
    headings = {
        name: _wrap_heading(
            f"Poem {label}: {titles[name]}" if titles[name] else f"Poem {label} (untitled)",
            panel_width,
        )
        for label, name in (("A", author), ("B", other))
    }
    heights = {
        n: (len(lines) + (1 if cut else 0) + 2 + HEADING_LINES * (len(headings[n]) - 1)) * LINE_IN
        for n, (lines, cut) in wrapped.items()
    }
    text_height = sum(heights.values()) if narrow else max(heights.values())
    bars_height = 1.75
    figure = Figure(figsize=(ctx.width, text_height + bars_height + 0.1), layout="constrained")
    top, bottom = subfigures(figure, 2, 1, height_ratios=[text_height, bars_height])
    if narrow:
        ratios = [heights[author], heights[other]]
        axes = top.subplots(2, 1, gridspec_kw={"height_ratios": ratios})
    else:
        axes = top.subplots(1, 2)
    for axis, name in zip(axes, (author, other), strict=True):
        _poem_panel(axis, headings[name], *wrapped[name])
    names = {author: f"Poem A ({ctx.label(author)})", other: f"Poem B ({ctx.label(other)})"}
    _score_bars(ctx, bottom, chosen, names)
    cut_note = "".join(
        f" Poem {label} is cut after {max_lines - 1} printed lines ({wrapped[name][1]} more)."
        for label, name in (("A", author), ("B", other))
        if wrapped[name][1]
    )
    caption = (
        f"A showcase of the poems by {ctx.label(author)} (Poem A) and "
        f"{'a human poet' if other == HUMAN_AUTHOR else ctx.label(other)} (Poem B) for the same "
        f"prompt (poem {poem_id}). The bars show their POEMetric scores judged by "
        f"{ctx.judge_label} (the mean over judge samples where there are several); N/A: the "
        f"judge found no imagery or literary devices.{cut_note}"
    )
    return Drawing(figure, caption)
