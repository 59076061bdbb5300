"""Agreement of LLM judges with human experts, and of the experts with each other (paper
Sec. 6.4, App. D, Table 2), computed by `poemetric.reliability` (the code behind `poemetric agree`).

* Units are poems. When a judge rated a poem several times, its first sample (lowest
  sample_index) is used: agreement needs the judge's actual answer, not an average.
* Judge vs experts: the pairwise statistics (PAo, adjacent, QWK, Spearman, Kendall) are taken
  over the (judge, expert) pairs only, pooled (PAo, adjacent) or averaged over experts (QWK,
  Spearman, Kendall); Krippendorff's alpha and Gwet's AC have the experts and the judge as raters.
  Compare them with the experts-vs-experts table, the human ceiling.
* N/A (0) is a category for PAo and adjacent agreement and missing for the other statistics.
* Item `all` pools the 10 items (units = poem x item pairs); CIs are percentile bootstrap
  intervals over poems (a poem's ratings by every rater, on every item, move together).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from poemetric.analysis.agreement import pao
from poemetric.analysis.matched import judged_as_rated
from poemetric.questionnaire import DIMENSION_KEYS
from poemetric.reliability import (
    AGREEMENT_BOOTSTRAP,
    BOOTSTRAP_SEED,
    OVERALL,
    Rating,
    Ratings,
    agreement_report,
)

# AGREEMENT_BOOTSTRAP and BOOTSTRAP_SEED are the defaults of `analyze`, `report` (their
# `--bootstrap` and `--seed`, poemetric.cli.options) and the survey's admin page, so that all
# show a run the same intervals; poemetric.agreement_defaults defines them, importing nothing,
# for the command line (no numpy) and the survey server (no pandas).

SCALE = [1.0, 2.0, 3.0, 4.0, 5.0]
#: The report's unit counts as the tables name them: `n_poems`, the poems with two ratings of
#: an item (the poems the statistics compare), and `n_poems_rated`, the poems anyone rated.
POEM_COUNTS = {"n_compared": "n_poems", "n_units": "n_poems_rated"}
ALL_ITEMS = "all"
JUDGE_PREFIX = "judge:"


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


def _ratings(frame: pd.DataFrame, rater_column: str, prefix: str = "") -> list[Rating]:
    """Long ratings of a frame with the 10 dimension columns; 0 becomes N/A."""
    long = _long(frame, rater_column)
    return [
        Rating(str(gid), prefix + str(rater), str(item), None if score == 0 else float(score))
        for gid, rater, item, score in long.itertuples(index=False)
    ]


def _table(ratings: list[Rating], focus: str | None, n_boot: int, seed: int) -> pd.DataFrame:
    coded = Ratings.from_ratings(ratings, scale=SCALE)
    report = agreement_report(coded, focus=focus, n_boot=n_boot, seed=seed)
    frame = pd.DataFrame(report.rows()).rename(columns=POEM_COUNTS)
    first = ["item", "n_poems", "n_poems_rated"]
    frame = frame[[*first, *(c for c in frame.columns if c not in first)]]
    frame["item"] = frame["item"].replace({OVERALL: ALL_ITEMS})
    order = {key: i for i, key in enumerate([*DIMENSION_KEYS, ALL_ITEMS])}
    return frame.sort_values("item", key=lambda s: s.map(order)).reset_index(drop=True)


def judge_agreement(
    experts: pd.DataFrame,
    judgments: pd.DataFrame,
    *,
    n_boot: int = AGREEMENT_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> pd.DataFrame:
    """Per judge x item (and `all`): each judge against the experts, with bootstrap CIs."""
    frames = []
    for judge, rows in judge_first_samples(judgments).groupby("judge", sort=True):
        poems = set(experts["generation_id"]) & set(rows["generation_id"])
        if not poems:
            continue
        ratings = _ratings(experts[experts["generation_id"].isin(poems)], "expert")
        ratings += _ratings(rows[rows["generation_id"].isin(poems)], "judge", JUDGE_PREFIX)
        table = _table(ratings, JUDGE_PREFIX + str(judge), n_boot, seed)
        frames.append(table.assign(judge=judge)[["judge", *table.columns]])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def expert_agreement(
    experts: pd.DataFrame, *, n_boot: int = AGREEMENT_BOOTSTRAP, seed: int = BOOTSTRAP_SEED
) -> pd.DataFrame:
    """Per item (and `all`): the experts with each other (every pair of experts), with CIs."""
    if experts["expert"].nunique() < 2:
        return pd.DataFrame()
    return _table(_ratings(experts, "expert"), None, n_boot, seed)


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
    experts rated (every expert rating and every judge sample counts as one rating). `poems`:
    the expert-rated poems a row covers (the experts': those they scored on the item; a
    judge's: those of them it scored). A judge that scored only some of them (a failed
    judgment, `judge --limit`, a non-poem) is set beside the experts over the same poems:
    `expert_n`, `expert_mean` and `expert_sd` are the experts' ratings of the poems its row
    covers (the experts' own row: all of theirs), so each judge's SD is compared like with
    like."""
    scored = experts[experts[item].notna()]

    def summary(scores: pd.Series) -> dict[str, float | int]:
        return {
            "n": int(scores.notna().sum()),
            "mean": float(scores.mean()),
            "sd": float(scores.std(ddof=1)),
        }

    def beside(poems: set[str]) -> dict[str, float | int]:
        same = summary(scored.loc[scored["generation_id"].isin(poems), item])
        return {f"expert_{key}": value for key, value in same.items()}

    everything = set(scored["generation_id"])
    rows = [
        {
            "rater": "experts",
            "poems": len(everything),
            **summary(scored[item]),
            **beside(everything),
        }
    ]
    rated = judgments[judgments["generation_id"].isin(everything) & judgments[item].notna()]
    for judge, ratings in rated.groupby("judge", sort=True):
        poems = set(ratings["generation_id"])
        rows.append(
            {"rater": str(judge), "poems": len(poems), **summary(ratings[item]), **beside(poems)}
        )
    return pd.DataFrame(rows, columns=DISCRIMINATION_COLUMNS)


def discrimination_notes(table: pd.DataFrame, label: Callable[[str], str] = str) -> list[str]:
    """A note per judge (named by `label`, as the table's rows are) that scored fewer of the
    expert-rated poems than the experts did: its SD is to be read beside the experts' over the
    same poems (`expert_sd`), not the experts' row over all of theirs."""
    if table.empty or "experts" not in set(table["rater"]):
        return []
    everything = int(table.loc[table["rater"] == "experts", "poems"].iloc[0])
    notes = []
    for row in table.to_dict("records"):
        rater, poems = str(row["rater"]), int(row["poems"])
        if rater != "experts" and poems < everything:
            notes.append(
                f"discrimination (Table 2): {label(rater)} scored {poems} of the {everything} poems the "
                f"experts rated; its SD {_sd(float(row['sd']))} is over those, beside the experts' "
                f"{_sd(float(row['expert_sd']))} over the same poems (column expert_sd; the experts' row "
                "is over all of theirs)"
            )
    return notes


def _sd(value: float) -> str:
    return f"{value:.2f}" if math.isfinite(value) else "undefined (one rating)"


DISCRIMINATION_COLUMNS = ["rater", "poems", "n", "mean", "sd", "expert_n", "expert_mean",
                          "expert_sd"]  # fmt: skip


__all__ = [
    "discrimination",
    "discrimination_notes",
    "expert_agreement",
    "expert_pao",
    "judge_agreement",
    "judge_first_samples",
    "judged_as_rated",
]
