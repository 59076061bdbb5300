"""The figure kinds a recipe names (`kind: dimension_bars`): kind -> the function that draws it
from a `FigureContext`, and whether it needs a judge's judgments (such figures are drawn once
per judge). A figure function's keyword parameters are the recipe entry's other keys
(`poemetric.analysis.recipes` checks them against its signature)."""

from __future__ import annotations

from collections.abc import Callable

from poemetric.analysis.case_study import case_study
from poemetric.analysis.context import FigureContext
from poemetric.analysis.figures_rules import form_accuracy, form_heatmap, lexical, rule_based
from poemetric.analysis.figures_scores import all_models, dimension_bars, heatmap, radar, ranking
from poemetric.analysis.figures_words import (
    imagery_figure,
    opening_imagery,
    opening_words_figure,
    top_words_figure,
)
from poemetric.analysis.plotting import Drawing

FigureFunction = Callable[..., Drawing]


def ghostwriting(ctx: FigureContext) -> Drawing:
    """Rhyme density, Raplyzer and uniqueness per author (poemetric.ghostwriting.figure)."""
    from poemetric.ghostwriting.figure import ghostwriting_figure  # it imports this package

    return ghostwriting_figure(ctx)


#: kind -> (function, needs judgments). Judge figures are drawn once per judge.
FIGURE_KINDS: dict[str, tuple[FigureFunction, bool]] = {
    "dimension_bars": (dimension_bars, True),
    "all_models": (all_models, True),
    "ranking": (ranking, True),
    "heatmap": (heatmap, True),
    "radar": (radar, True),
    "case_study": (case_study, True),
    "form_accuracy": (form_accuracy, False),
    "form_heatmap": (form_heatmap, False),
    "lexical": (lexical, False),
    "rule_based": (rule_based, False),
    "top_words": (top_words_figure, False),
    "opening_words": (opening_words_figure, False),
    "ghostwriting": (ghostwriting, False),
    "imagery": (imagery_figure, False),
    "opening_imagery": (opening_imagery, False),
}
