"""Analysis of a run: per-author scores, lexical features, agreement with experts, tables and
figures (paper Sec. 4-6, App. D, F, H).

    from poemetric.analysis import analyze_run, make_figures
    with RunStore("runs/demo", create=False) as store:
        result = analyze_run(store)
        result.write("runs/demo/analysis")
        make_figures(store, "runs/demo/figures")
"""

from poemetric.analysis.agreement import (
    cohen_kappa,
    gwet_ac,
    krippendorff_alpha,
    pao,
    spearman,
)
from poemetric.analysis.data import HUMAN_AUTHOR, RunData, author_order, load_run_data
from poemetric.analysis.experts import ExpertRatingsError, load_expert_ratings
from poemetric.analysis.lexical import mattr, mtld, tokenize, type_token_ratio
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
