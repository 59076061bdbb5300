"""The ghostwriting figure: per author, the paper's rhyme density, the Raplyzer rhyme factor and
uniqueness (mean with a t 95% CI), the near-copy threshold marked.

Drawn from the run's data as every figure is (`FigureContext`), in the shared bar layout (sized
for the chosen column width, horizontal rows when there are many authors). The reference corpus
is the tables' (`ghostwriting_tables`): every human poem of the run's dataset snapshot, whatever
`--limit` prompted and whichever originals were answered by poems.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from poemetric.analysis.bars import Panel, Series, draw_grid
from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.plotting import Drawing, counted_poems
from poemetric.ghostwriting.metrics import DEFAULT_OPTIONS, poem_measures
from poemetric.ghostwriting.references import poem_references
from poemetric.ghostwriting.uniqueness import NEAR_COPY_THRESHOLD, ReferenceText
from poemetric.stats import summarize

PANELS = (
    ("rhyme_density", "Rhyme dens.", (0.0, 1.0)),
    ("rhyme_density_raplyzer", "Raplyzer (vowels)", None),
    ("uniqueness", "Uniqueness", (0.0, 1.0)),
)


def _summary(poems: pd.DataFrame, column: str, authors: list[str],
             domain: tuple[float, float] | None) -> pd.DataFrame:  # fmt: skip
    rows = {
        author: summarize(
            poems.loc[poems["author"] == author, column].to_numpy(dtype=float), domain=domain
        )
        for author in authors
    }
    return pd.DataFrame(
        {"mean": [s.mean for s in rows.values()], "ci_low": [s.ci_low for s in rows.values()],
         "ci_high": [s.ci_high for s in rows.values()]},
        index=pd.Index(list(rows), name="author"),
    )  # fmt: skip


def _references(ctx: FigureContext) -> list[ReferenceText]:
    """The tables' reference corpus: every poem of the dataset snapshot. They were the originals
    of the poems-only generations shown, so a `--limit` run (or a prompt every author refused)
    had a smaller corpus, and uniqueness other values, than the ghostwriting table. Run data
    made without the snapshot (`RunData` built by hand) keeps the originals it has."""
    if not ctx.data.dataset_poems.empty:
        return poem_references(ctx.data.dataset_poems)
    originals = ctx.data.generations.drop_duplicates("poem_id")
    return [
        ReferenceText(str(r.poem_id), str(r.human_poem), str(r.poem_id))
        for r in originals.itertuples(index=False)
    ]


def ghostwriting_figure(ctx: FigureContext) -> Drawing:
    generations = ctx.generations
    if generations.empty:
        raise FigureSkipped("no poems")
    references = _references(ctx)
    originals = {reference.id: reference.text for reference in references}
    poems = poem_measures(generations, references, DEFAULT_OPTIONS, originals,
                          cache=ctx.measures).frame  # fmt: skip
    authors = ctx.ordered(poems["author"])
    panels: list[Panel] = []
    for column, title, domain in PANELS:
        frame = _summary(poems, column, authors, domain)
        if domain is None:
            top = np.nanmax(frame[["mean", "ci_high"]].to_numpy(float), initial=0.0)
            domain = (0.0, float(top) * 1.1 if top > 0 else 1.0)
        reference = (
            (f"near-copy threshold ({NEAR_COPY_THRESHOLD:g})", NEAR_COPY_THRESHOLD)
            if column == "uniqueness"
            else None
        )
        panels.append(Panel(title, (Series(frame),), domain, authors=tuple(authors),
                            reference=reference))  # fmt: skip
    figure = draw_grid(ctx, panels, value_label="mean per poem; whiskers: 95% CI", legend=True,
                       max_columns=3)  # fmt: skip
    caption = (
        'Ghostwriting measures per author (docs/ghostwriting.md): rhyme density ("Rhyme dens.": '
        "rhymed syllables / all syllables, entropy-weighted), the Raplyzer rhyme factor (the mean "
        "length, in vowels, of each word's longest vowel sequence matching an earlier word's; "
        "not bounded by 1) and uniqueness (maximum tf-idf cosine similarity to the "
        "reference poems, every human poem of the run's dataset as in the ghostwriting table; "
        "the dashed line is the near-copy threshold); means over "
        f"{counted_poems(poems.groupby('author').size())} each with the 95% CI "
        "of the mean (Student t), clipped to 0-1 where the measure is bounded."
        + ctx.not_poems_sentence()
    )
    return Drawing(figure, caption)
