"""Word figures of App. F: top content words (Fig. 10), opening words and imagery (Fig. 11)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from poemetric.analysis.context import Count, FigureContext, FigureSkipped
from poemetric.analysis.heatmaps import (
    MIN_COLUMN_IN,
    HeatmapSpec,
    colour_bar_width,
    heatmap_figure,
    side_by_side,
    unprinted_values_note,
)
from poemetric.analysis.imagery import imagery_counts
from poemetric.analysis.lexical import opening_words, top_words
from poemetric.analysis.plotting import Drawing, counted_poems, label_width_in
from poemetric.text.plural import counted

#: Every word (opening word, image) of each author: the words shown are ranked by their mean
#: share over the authors, so each author's share of each must be there. Counted only within
#: each author's own top 200 (50 opening words, 100 images), a word an author used less often
#: was drawn as 0% for that author ("0.00" in its cell) and ranked too low.
EVERY_WORD = sys.maxsize


def _word_spec(ctx: FigureContext, frame: pd.DataFrame, word: str, value: str, top: int,
               colour_label: str, title: str = "", width: float | None = None) -> HeatmapSpec:  # fmt: skip
    """Words x authors, or authors x words when the authors would not fit as columns (then as
    many of the `top` words as fit the width: the title says how many)."""
    if frame.empty:
        raise FigureSkipped("no words in the poems")
    authors = ctx.ordered(frame["author"])
    matrix = frame.pivot_table(index=word, columns="author", values=value, aggfunc="sum")
    # The mean over every author shown: a word an author does not use counts as 0 for that
    # author, not as absent (that ranked a word one author used above words every author used).
    means = matrix.reindex(columns=authors).fillna(0).mean(axis=1)
    ranked = pd.DataFrame({"word": means.index.astype(str), "mean": means.to_numpy()})
    words = ranked.sort_values(["mean", "word"], ascending=[False, True])["word"].tolist()[:top]
    matrix.index = matrix.index.astype(str)
    names = ctx.labels.author_list(authors)
    width = width or ctx.width
    room = width - label_width_in(words) - colour_bar_width(width) - 0.1
    if room / max(len(authors), 1) >= MIN_COLUMN_IN:
        matrix = matrix.reindex(index=words, columns=authors).fillna(0) * 100
        return HeatmapSpec(matrix, words, names, colour_label, _from_zero(matrix), title=title,
                           authors_axis="x")  # fmt: skip
    room = width - label_width_in(names) - colour_bar_width(width) - 0.1
    fitting = max(1, int(room // MIN_COLUMN_IN))
    if fitting < len(words):
        words = words[:fitting]
        title = f"{title} (top {fitting})" if title else f"top {fitting}"
    matrix = matrix.reindex(index=words, columns=authors).fillna(0) * 100
    return HeatmapSpec(matrix.T, names, words, colour_label, _from_zero(matrix), title=title,
                       transposed=True)  # fmt: skip


def _from_zero(matrix: pd.DataFrame) -> tuple[float, float]:
    """The colours of a share start at 0%: scaled from the smallest share shown, a word in 80%
    of an author's poems was as dark as one in none (and as a 0% opening word beside it)."""
    high = float(np.nanmax(matrix.to_numpy(float), initial=0.0))
    return (0.0, high if high > 0 else 1.0)


def _figure(ctx: FigureContext, spec: HeatmapSpec) -> Figure:
    return heatmap_figure(ctx, spec)


#: Where the word figures' values are when their cells are too narrow to print them (the
#: analysis tables list each author's own top words, not every author's share of the words
#: shown).
WIDER = "a wider `--width` or fewer `--authors` print them"


def _shown(spec: HeatmapSpec, k: int) -> str:
    shown = len(spec.column_labels) if spec.transposed else len(spec.row_labels)
    return f"{shown}" if shown == k else f"{shown} (of the {k} asked for: no more fit the width)"


def _authors_note(ctx: FigureContext) -> str:
    """`31 authors (Human, ...), 22 poems each`: a cell's share is of that author's poems (or
    their words), and 1 of 16 poems (6.25%) reads otherwise than 1 of 160."""
    poems = ctx.generations["author"].value_counts().reindex(ctx.authors, fill_value=0)
    each = " each" if len(ctx.authors) > 1 else ""
    return (
        f"{counted(len(ctx.authors), 'author')} ({', '.join(ctx.labels.author_list(ctx.authors))})"
        f", {counted_poems(poems.tolist())}{each}"
    )


def top_words_figure(ctx: FigureContext, k: Count = 20) -> Drawing:
    """Paper Fig. 10: shares of the most frequent content words, by author."""
    frame = top_words(ctx.generations, k=EVERY_WORD)
    spec = _word_spec(ctx, frame, "word", "share", k, "% of content tokens")
    caption = (
        f"The {_shown(spec, k)} most frequent content words (stop words removed, case-insensitive) over "
        f"{_authors_note(ctx)}, ranked by their mean share; cells: % of each author's content "
        "tokens." + unprinted_values_note(spec, ctx.width, WIDER) + ctx.not_poems_sentence()
    )
    return Drawing(_figure(ctx, spec), caption)


def _opening_spec(ctx: FigureContext, k: int, width: float | None = None) -> HeatmapSpec:
    frame = opening_words(ctx.generations, k=EVERY_WORD)
    return _word_spec(ctx, frame, "word", "share", k, "% of poems", "Opening words", width)


def _imagery_spec(ctx: FigureContext, k: int, width: float | None = None) -> HeatmapSpec:
    frame = imagery_counts(ctx.generations, k=EVERY_WORD)
    return _word_spec(ctx, frame, "image", "poem_share", k, "% of poems", "Imagery", width)


def opening_words_figure(ctx: FigureContext, k: Count = 12) -> Drawing:
    """Paper Fig. 11 (left): the most common first words of poems, by author."""
    spec = _opening_spec(ctx, k)
    caption = (
        f"The {_shown(spec, k)} most common opening words (first word of each poem) over "
        f"{_authors_note(ctx)}; cells: % of each author's poems that begin with the word."
        + unprinted_values_note(spec, ctx.width, WIDER)
        + ctx.not_poems_sentence()
    )
    return Drawing(_figure(ctx, spec), caption)


def imagery_figure(ctx: FigureContext, k: Count = 15) -> Drawing:
    """Paper Fig. 11 (right): the images (App. F lexicon) most authors use, by author."""
    spec = _imagery_spec(ctx, k)
    caption = (
        f"The {_shown(spec, k)} most used images (nouns of the imagery lexicon, docs/analysis.md; "
        f"plurals folded) over {_authors_note(ctx)}; cells: % of each author's poems that use "
        "the image." + unprinted_values_note(spec, ctx.width, WIDER) + ctx.not_poems_sentence()
    )
    return Drawing(_figure(ctx, spec), caption)


def opening_imagery(ctx: FigureContext, k: Count = 12) -> Drawing:
    """Paper Fig. 11: opening words and imagery side by side (stacked at one column)."""
    width = ctx.width if ctx.narrow else ctx.width / 2
    specs = [_opening_spec(ctx, k, width), _imagery_spec(ctx, k, width)]
    where = ("Top", "Bottom") if ctx.narrow else ("Left", "Right")
    caption = (
        f"{where[0]}: the {_shown(specs[0], k)} most common opening words (% of each author's "
        f"poems beginning with the word). {where[1]}: the {_shown(specs[1], k)} most used images "
        f"(% of each author's poems using the image; imagery lexicon in docs/analysis.md). "
        f"{_authors_note(ctx)[0].upper()}{_authors_note(ctx)[1:]}."
        + _unprinted_side_by_side(specs, where, width)
        + ctx.not_poems_sentence()
    )
    return Drawing(side_by_side(ctx, specs), caption)


def _unprinted_side_by_side(specs: list[HeatmapSpec], where: tuple[str, str], width: float) -> str:
    """`unprinted_values_note` for the heatmaps of one figure, naming the ones it is about."""
    bare = [side for spec, side in zip(specs, where, strict=True)
            if unprinted_values_note(spec, width, WIDER)]  # fmt: skip
    if not bare:
        return ""
    which = "both heatmaps" if len(bare) == len(specs) else f"the {bare[0].lower()} heatmap"
    return f" The cells of {which} are too narrow at this width to print their values: {WIDER}."
