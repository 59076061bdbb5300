"""The ghostwriting figure: per author, the paper's rhyme density, the Raplyzer rhyme factor and
uniqueness (mean with t 95% CI), the human poems first and the near-copy threshold marked.

Drawn from the run's data as every figure is (`FigureContext`): the reference corpus is the
human originals of the run's prompts, which is the dataset's whole snapshot except in runs
prepared with `--limit` (the tables use the whole snapshot).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.plotting import author_colours
from poemetric.analysis.stats import summarize
from poemetric.ghostwriting.metrics import poem_measures
from poemetric.ghostwriting.uniqueness import NEAR_COPY_THRESHOLD, ReferenceText

PANELS = (
    ("rhyme_density", "rhyme density (entropy-weighted)", (0.0, 1.0)),
    ("rhyme_density_raplyzer", "Raplyzer rhyme factor", None),
    ("uniqueness", "uniqueness (max tf-idf similarity)", (0.0, 1.0)),
)


def ghostwriting_figure(ctx: FigureContext) -> Figure:
    generations = ctx.data.generations
    if generations.empty:
        raise FigureSkipped("no poems")
    originals = generations.drop_duplicates("poem_id")
    references = [
        ReferenceText(str(r.poem_id), str(r.human_poem), str(r.poem_id))
        for r in originals.itertuples(index=False)
    ]
    poems = poem_measures(generations, references).frame
    authors = ctx.ordered(poems["author"])
    colours = author_colours(authors)
    width = max(2.6, 0.32 * len(authors) + 1.0)
    figure = Figure(figsize=(width * len(PANELS), 2.9), layout="constrained")
    x = np.arange(len(authors))
    for axis, (column, title, domain) in zip(figure.subplots(1, len(PANELS)), PANELS, strict=True):
        summaries = [
            summarize(poems.loc[poems["author"] == a, column].to_numpy(dtype=float), domain=domain)
            for a in authors
        ]
        means = np.array([s.mean for s in summaries])
        errors = np.nan_to_num(
            np.array(
                [[s.mean - s.ci_low for s in summaries], [s.ci_high - s.mean for s in summaries]]
            )
        )
        axis.bar(x, means, yerr=errors, color=[colours[a] for a in authors], capsize=2,
                 width=0.75, edgecolor="black", linewidth=0.4)  # fmt: skip
        axis.set_xticks(x, authors, rotation=45 if len(authors) > 3 else 0,
                        ha="right" if len(authors) > 3 else "center")  # fmt: skip
        for tick in axis.get_xticklabels():
            if tick.get_text() == HUMAN_AUTHOR:
                tick.set_fontweight("bold")
        axis.set_title(title)
        if column == "uniqueness":
            axis.axhline(NEAR_COPY_THRESHOLD, linestyle="--", linewidth=0.8, color="black")
            axis.text(-0.45, NEAR_COPY_THRESHOLD + 0.02, "near-copy", fontsize=7, va="bottom")
            axis.set_ylim(0, 1.05)
    figure.suptitle("Ghostwriting measures per author (mean, 95% CI)")
    return figure
