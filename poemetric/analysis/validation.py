"""Agreement of an LLM judge with human experts (paper Sec. 6.4, App. D, Table 2).

Pairs are (expert rating, judge rating) of the same poem and item. When the judge rated a poem
several times, its first sample (lowest sample_index) is used, since agreement statistics need
the judge's actual answer rather than an average.

* PAo counts N/A (0) as a category of its own (both said N/A = agreement).
* Weighted kappa, Gwet's AC2, Spearman and Krippendorff's alpha use the 1-5 scale and treat N/A
  as not rated.
* Krippendorff's alpha per item has the experts and the judge as coders and the poems as units;
  `alpha_experts` is the experts alone (the human ceiling to compare with). For "all" items the
  units are (poem, item) pairs.
* CIs: percentile bootstrap over poems (all of a poem's ratings move together).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from poemetric.analysis.agreement import cohen_kappa, gwet_ac, krippendorff_alpha, pao, spearman
from poemetric.judge.answer import DIMENSION_KEYS

SCALE = np.arange(1.0, 6.0)
ALL_ITEMS = "all"


def judge_first_samples(judgments: pd.DataFrame) -> pd.DataFrame:
    """One row per (judge, generation): the judge's first sample."""
    if judgments.empty:
        return judgments
    ordered = judgments.sort_values("sample_index")
    return ordered.drop_duplicates(["judge", "generation_id"], keep="first")


def _long(frame: pd.DataFrame, rater: str) -> pd.DataFrame:
    melted = frame.melt(
        id_vars=["generation_id", rater],
        value_vars=list(DIMENSION_KEYS),
        var_name="item",
        value_name="score",
    )
    return melted.dropna(subset=["score"])


STAT_NAMES = (
    "pao",
    "kappa_quadratic",
    "gwet_ac2_quadratic",
    "spearman",
    "alpha_ordinal",
    "alpha_interval",
)


def _tensors(
    experts: pd.DataFrame, ratings: pd.DataFrame, poems: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Expert ratings as experts x poems x items, judge ratings as poems x items (NaN = none)."""
    expert_ids = sorted(experts["expert"].astype(str).unique())
    poem_index = {gid: i for i, gid in enumerate(poems)}
    expert_tensor = np.full((len(expert_ids), len(poems), len(DIMENSION_KEYS)), np.nan)
    for e, expert in enumerate(expert_ids):
        rows = experts[experts["expert"].astype(str) == expert]
        rows = rows[rows["generation_id"].isin(poem_index)]
        expert_tensor[e, rows["generation_id"].map(poem_index).to_numpy()] = rows[
            list(DIMENSION_KEYS)
        ].to_numpy(float)
    judge_matrix = np.full((len(poems), len(DIMENSION_KEYS)), np.nan)
    rows = ratings[ratings["generation_id"].isin(poem_index)]
    judge_matrix[rows["generation_id"].map(poem_index).to_numpy()] = rows[
        list(DIMENSION_KEYS)
    ].to_numpy(float)
    return expert_tensor, judge_matrix


def _statistics(expert_tensor: np.ndarray, judge_matrix: np.ndarray) -> dict[str, float]:
    """All statistics for experts x units x items and units x items ratings."""
    judge_tensor = np.broadcast_to(judge_matrix, expert_tensor.shape)
    paired = np.isfinite(expert_tensor) & np.isfinite(judge_tensor)
    expert, judge = expert_tensor[paired], judge_tensor[paired]
    scaled = (expert > 0) & (judge > 0)
    e, j = expert[scaled], judge[scaled]
    coders = np.concatenate([expert_tensor, judge_matrix[None]], axis=0).reshape(
        expert_tensor.shape[0] + 1, -1
    )
    coders = np.where(coders > 0, coders, np.nan)
    experts_only = coders[:-1]
    return {
        "n_pairs": float(paired.sum()),
        "pao": pao(expert, judge) if expert.size else math.nan,
        "kappa_quadratic": cohen_kappa(e, j, weights="quadratic", categories=SCALE),
        "gwet_ac2_quadratic": gwet_ac(e, j, weights="quadratic", categories=SCALE),
        "spearman": spearman(e, j),
        "alpha_ordinal": krippendorff_alpha(coders, level="ordinal"),
        "alpha_interval": krippendorff_alpha(coders, level="interval"),
        "alpha_experts_interval": krippendorff_alpha(experts_only, level="interval")
        if experts_only.shape[0] >= 2
        else math.nan,
    }


def judge_agreement(
    experts: pd.DataFrame,
    judgments: pd.DataFrame,
    *,
    n_boot: int = 500,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per judge x item (and 'all' items): agreement statistics with bootstrap CIs over poems."""
    judge_rows = judge_first_samples(judgments)
    rows: list[dict[str, object]] = []
    items: list[tuple[str, list[int]]] = [(k, [i]) for i, k in enumerate(DIMENSION_KEYS)]
    items.append((ALL_ITEMS, list(range(len(DIMENSION_KEYS)))))
    for judge, ratings in judge_rows.groupby("judge", sort=True):
        poems = sorted(set(experts["generation_id"]) & set(ratings["generation_id"]))
        expert_tensor, judge_matrix = _tensors(experts, ratings, poems)
        rng = np.random.default_rng(seed)
        draws = [
            rng.integers(0, len(poems), len(poems)) for _ in range(n_boot if len(poems) >= 2 else 0)
        ]
        for item, columns in items:
            e_item, j_item = expert_tensor[:, :, columns], judge_matrix[:, columns]
            row: dict[str, object] = {"judge": judge, "item": item, "n_poems": len(poems)}
            row |= _statistics(e_item, j_item)
            boot = [_statistics(e_item[:, d], j_item[d]) for d in draws]
            for name in STAT_NAMES:
                row[f"{name}_ci_low"], row[f"{name}_ci_high"] = _percentiles(
                    [b[name] for b in boot], confidence
                )
            rows.append(row)
    return pd.DataFrame(rows)


def _percentiles(values: list[float], confidence: float) -> tuple[float, float]:
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return math.nan, math.nan
    tail = (1 - confidence) / 2 * 100
    return float(np.percentile(finite, tail)), float(np.percentile(finite, 100 - tail))


def expert_pao(experts: pd.DataFrame, judgments: pd.DataFrame) -> pd.DataFrame:
    """PAo of each judge with each expert over all 10 items."""
    judge_long = _long(judge_first_samples(judgments), "judge")
    expert_long = _long(experts, "expert")
    pairs = expert_long.merge(
        judge_long, on=["generation_id", "item"], suffixes=("_expert", "_judge")
    )
    rows = [
        {"judge": judge, "expert": expert, "n_pairs": len(group),
         "pao": pao(group["score_expert"].to_numpy(), group["score_judge"].to_numpy())}
        for (judge, expert), group in pairs.groupby(["judge", "expert"], sort=True)
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["judge", "expert", "n_pairs", "pao"])


def discrimination(
    experts: pd.DataFrame, judgments: pd.DataFrame, item: str = "overall_quality"
) -> pd.DataFrame:
    """Table 2: mean and SD of one item by the experts and by each judge on the poems the
    experts rated (every expert rating and every judge sample counts as one rating)."""
    rated = set(experts["generation_id"])

    def summary(scores: pd.Series) -> dict[str, float]:
        return {
            "n": float(scores.notna().sum()),
            "mean": float(scores.mean()),
            "sd": float(scores.std(ddof=1)),
        }

    rows = [{"rater": "experts", **summary(experts[item])}]
    for judge, ratings in judgments[judgments["generation_id"].isin(rated)].groupby(
        "judge", sort=True
    ):
        rows.append({"rater": str(judge), **summary(ratings[item])})
    return pd.DataFrame(rows, columns=["rater", "n", "mean", "sd"])
