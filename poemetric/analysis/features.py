"""Per-poem lexical features and their per-author summary (paper Sec. 4.2, Fig. 5)."""

from __future__ import annotations

import math

import pandas as pd

from poemetric.analysis.data import author_order
from poemetric.analysis.lexical import MATTR_WINDOW, mattr, mtld
from poemetric.analysis.repetition import repetition_features
from poemetric.stats import summarize
from poemetric.text.tokens import tokenize, type_token_ratio

#: Per-author lexical metrics, each summarised as mean, SD and 95% CI over poems.
LEXICAL_METRICS = ("tokens", "ttr", "mattr", "mtld", "repetition_all", "repetition_all_chance",
                   "repetition_all_excess", "repetition_content", "repetition_content_chance",
                   "repetition_content_excess")  # fmt: skip
_PROPORTIONS = {"ttr", "mattr", "repetition_all", "repetition_all_chance", "repetition_content",
                "repetition_content_chance"}  # fmt: skip
_DIFFERENCES = {"repetition_all_excess", "repetition_content_excess"}
#: Counts of tokens and MTLD (a mean run length) are never negative: a t interval of a few
#: poems is clipped at 0 as the proportions are at 0 and 1 (`tokens 55.00 [-517.00, 627.00]`).
_NON_NEGATIVE = {"tokens", "mtld"}
_STATS = ("mean", "sd", "ci_low", "ci_high")


def poem_features(generations: pd.DataFrame, window: int = MATTR_WINDOW) -> pd.DataFrame:
    """One row per poem: tokens, TTR, MATTR, MTLD, and repetition of the human original with
    its chance baseline (`repetition.repetition_features`; NaN for the human poems)."""
    rows: list[dict[str, object]] = []
    for row in generations.itertuples(index=False):
        tokens = tokenize(str(row.poem))
        rows.append(
            {
                "generation_id": row.generation_id,
                "author": row.author,
                "poem_form": row.poem_form,
                "tokens": len(tokens),
                "ttr": type_token_ratio(tokens),
                "mattr": mattr(tokens, window),
                "mtld": mtld(tokens),
            }
        )
    columns = ["generation_id", "author", "poem_form", "tokens", "ttr", "mattr", "mtld"]
    features = pd.DataFrame(rows, columns=columns)
    repetition = repetition_features(generations).drop(columns="chance_pool")
    return features.merge(repetition, on="generation_id", how="left")


def lexical_summary(features: pd.DataFrame) -> pd.DataFrame:
    """Per author: poems, and mean / SD / 95% t CI (clipped to the metric's range: 0-1 for the
    shares, -1 to 1 for their differences, at 0 for tokens and MTLD) of every
    metric in `LEXICAL_METRICS`; `mattr_short` counts poems too short for the MATTR window."""
    columns = ["author", "n", "mattr_short", *[f"{m}_{s}" for m in LEXICAL_METRICS for s in _STATS]]
    if features.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for author in author_order(features["author"].unique()):
        poems = features[features["author"] == author]
        row: dict[str, object] = {
            "author": author,
            "n": len(poems),
            "mattr_short": int(poems["mattr"].isna().sum()),
        }
        for metric in LEXICAL_METRICS:
            values = pd.to_numeric(poems[metric], errors="coerce").to_numpy(float)
            domain = (0.0, 1.0) if metric in _PROPORTIONS else None
            domain = (-1.0, 1.0) if metric in _DIFFERENCES else domain
            domain = (0.0, math.inf) if metric in _NON_NEGATIVE else domain
            summary = summarize(values, domain=domain)
            row |= {f"{metric}_{stat}": getattr(summary, stat) for stat in _STATS}
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)
