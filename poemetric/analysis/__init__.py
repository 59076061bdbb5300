"""Analysis of a run: per-author scores, lexical features, agreement with experts, tables and
figures (paper Sec. 4-6, App. D, F, H).

    from poemetric.analysis import analyze_run, make_figures
    with RunStore("runs/demo", create=False) as store:
        result = analyze_run(store)
        result.write("runs/demo/analysis")
        make_figures(store, "runs/demo/figures")

The names below are imported when first used: importing one submodule (`poemetric.analysis.agreement`
for a kappa) no longer loads matplotlib, pandas and SciPy through the figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from poemetric.analysis.agreement import (
        cohen_kappa,
        gwet_ac,
        krippendorff_alpha,
        pao,
        spearman,
    )
    from poemetric.analysis.data import HUMAN_AUTHOR, RunData, author_order, load_run_data
    from poemetric.analysis.experts import ExpertRatingsError, load_expert_ratings
    from poemetric.analysis.lexical import mattr, mtld
    from poemetric.analysis.recipes import (
        FIGURE_KINDS,
        FigureReport,
        Recipe,
        RecipeError,
        load_recipe,
        make_figures,
        render_figures,
    )
    from poemetric.analysis.repetition import repetition_rate
    from poemetric.analysis.run import AnalysisResult, analyze_run
    from poemetric.text.tokens import tokenize, type_token_ratio

_EXPORTS = {
    "cohen_kappa": "poemetric.analysis.agreement",
    "gwet_ac": "poemetric.analysis.agreement",
    "krippendorff_alpha": "poemetric.analysis.agreement",
    "pao": "poemetric.analysis.agreement",
    "spearman": "poemetric.analysis.agreement",
    "HUMAN_AUTHOR": "poemetric.analysis.data",
    "RunData": "poemetric.analysis.data",
    "author_order": "poemetric.analysis.data",
    "load_run_data": "poemetric.analysis.data",
    "ExpertRatingsError": "poemetric.analysis.experts",
    "load_expert_ratings": "poemetric.analysis.experts",
    "mattr": "poemetric.analysis.lexical",
    "mtld": "poemetric.analysis.lexical",
    "tokenize": "poemetric.text.tokens",
    "type_token_ratio": "poemetric.text.tokens",
    "FIGURE_KINDS": "poemetric.analysis.recipes",
    "FigureReport": "poemetric.analysis.recipes",
    "Recipe": "poemetric.analysis.recipes",
    "RecipeError": "poemetric.analysis.recipes",
    "load_recipe": "poemetric.analysis.recipes",
    "make_figures": "poemetric.analysis.recipes",
    "render_figures": "poemetric.analysis.recipes",
    "repetition_rate": "poemetric.analysis.repetition",
    "AnalysisResult": "poemetric.analysis.run",
    "analyze_run": "poemetric.analysis.run",
}

__all__ = [
    "FIGURE_KINDS",
    "HUMAN_AUTHOR",
    "AnalysisResult",
    "ExpertRatingsError",
    "FigureReport",
    "Recipe",
    "RecipeError",
    "RunData",
    "analyze_run",
    "author_order",
    "cohen_kappa",
    "gwet_ac",
    "krippendorff_alpha",
    "load_expert_ratings",
    "load_recipe",
    "load_run_data",
    "make_figures",
    "mattr",
    "mtld",
    "pao",
    "render_figures",
    "repetition_rate",
    "spearman",
    "tokenize",
    "type_token_ratio",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'poemetric.analysis' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The imported names and the ones imported on first use (`dir()`, a shell's completion)."""
    return sorted({*globals(), *__all__})
