"""Paper Fig. 3: the judge's scores of two poems written for the same prompt."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.data import HUMAN_AUTHOR, judgments_per_generation
from poemetric.analysis.plotting import HUMAN_COLOUR, SINGLE_LLM_COLOUR
from poemetric.judge.answer import DIMENSION_KEYS, DIMENSIONS


def pick_case(
    per_poem: pd.DataFrame, author: str | None, poem_id: str | None, other: str
) -> tuple[str, str]:
    """(author, poem_id) to show. Defaults: the LLM with the best mean overall quality, and the
    prompt where its poem's mean score most exceeds `other`'s (the most striking showcase)."""
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
        keys = list(DIMENSION_KEYS)
        gap = mine.loc[shared, keys].mean(axis=1) - theirs.loc[shared, keys].mean(axis=1)
        poem_id = str(gap.groupby(level=0).mean().idxmax())
    elif poem_id not in shared:
        raise FigureSkipped(f"poem {poem_id!r} is not judged for both {author!r} and {other!r}")
    return author, poem_id


def case_study(
    ctx: FigureContext,
    author: str | None = None,
    poem_id: str | None = None,
    other: str = HUMAN_AUTHOR,
) -> Figure:
    """Grouped bars: poem A (`author`) vs poem B (`other`, the human poet by default)."""
    per_poem = judgments_per_generation(ctx.judgments)
    author, poem_id = pick_case(per_poem, author, poem_id, other)
    rows = {
        name: per_poem[(per_poem["author"] == name) & (per_poem["poem_id"] == poem_id)].iloc[0]
        for name in (author, other)
    }
    x = np.arange(len(DIMENSIONS))
    figure = Figure(figsize=(7.2, 2.9), layout="constrained")
    axis = figure.subplots()
    colours = {author: SINGLE_LLM_COLOUR, other: HUMAN_COLOUR}
    for offset, (label, name) in zip((-0.2, 0.2), (("A", author), ("B", other)), strict=True):
        values = np.array([rows[name][d.key] for d in DIMENSIONS], dtype=float)
        bars = axis.bar(x + offset, np.nan_to_num(values), width=0.4, color=colours[name],
                        edgecolor="black", linewidth=0.4, label=f"Poem {label}: {name}")  # fmt: skip
        for bar, value in zip(bars, values, strict=True):
            text = "N/A" if np.isnan(value) else f"{value:g}"
            axis.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.05, text,
                      ha="center", va="bottom", fontsize=7)  # fmt: skip
    axis.set_xticks(x, [d.short_label for d in DIMENSIONS], rotation=30, ha="right")
    axis.set_ylim(0, 5.6)
    axis.set_ylabel("score (1-5)")
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=2, frameon=False)
    axis.set_title(ctx.title(f"Case study, prompt {poem_id}"))
    return figure
