"""Per-author (and per-form) scores: judge dimensions, group averages, rule-based form checks."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from poemetric.analysis.data import author_order, judgments_per_generation
from poemetric.questionnaire import DIMENSIONS, GROUPS
from poemetric.stats import CIMethod, summarize, wilson_interval

if TYPE_CHECKING:
    from poemetric.progress_lines import Advance

#: Figure 9 of the paper ranks authors by the average of these three parts.
RANKING_PARTS: tuple[str, ...] = ("basic", "advanced", "quality")

SUMMARY_COLUMNS = ["n", "mean", "sd", "ci_low", "ci_high"]
#: Judge scores are 1-5 once N/A (0) is left out.
LIKERT_DOMAIN = (1.0, 5.0)


def _ordered(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    if frame.empty or "author" not in frame:
        return frame.reset_index(drop=True)
    order = {a: i for i, a in enumerate(author_order(frame["author"].unique()))}
    rank = frame["author"].map(order)
    return (
        frame.assign(_rank=rank)
        .sort_values(["_rank", *by])
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def dimension_scores(
    judgments: pd.DataFrame,
    *,
    by_form: bool = False,
    method: CIMethod = "t",
    seed: int = 0,
    advance: Advance | None = None,
) -> pd.DataFrame:
    """Long table: one row per judge x author (x form) x dimension; `advance(done, total)` after
    each judge x author (x form) group.

    Statistics are over poems (repeated judge samples of a poem are averaged first). For imagery
    and literary devices N/A answers are left out of the mean and reported as `n_na` and
    `na_share` (of the poems rated on the item; a blank expert score is not N/A).
    """
    columns = ["judge", "author", *(["poem_form"] if by_form else []), "dimension", "group",
               *SUMMARY_COLUMNS, "n_na", "na_share"]  # fmt: skip
    per_poem = judgments_per_generation(judgments)
    if per_poem.empty:
        return pd.DataFrame(columns=columns)
    keys = ["judge", "author", *(["poem_form"] if by_form else [])]
    rows: list[dict[str, object]] = []
    grouped = per_poem.groupby(keys, sort=False)
    for done, (group_key, poems) in enumerate(grouped, start=1):
        labels = dict(
            zip(keys, group_key if isinstance(group_key, tuple) else (group_key,), strict=True)
        )
        for dimension in DIMENSIONS:
            summary = summarize(
                poems[dimension.key].to_numpy(), method=method, seed=seed, domain=LIKERT_DOMAIN
            )
            n_na = int(poems[f"{dimension.key}_na"].sum()) if dimension.allows_na else 0
            rated = summary.n + n_na  # poems someone scored or called N/A on this item
            rows.append(
                {
                    **labels,
                    "dimension": dimension.key,
                    "group": dimension.group,
                    **summary.as_dict(),
                    "n_na": n_na,
                    "na_share": n_na / rated if dimension.allows_na and rated else np.nan,
                }
            )
        if advance is not None:
            advance(done, grouped.ngroups)
    return _ordered(pd.DataFrame(rows, columns=columns), [k for k in keys if k != "author"])


def group_scores(
    judgments: pd.DataFrame,
    *,
    method: CIMethod = "t",
    seed: int = 0,
    advance: Advance | None = None,
) -> pd.DataFrame:
    """Per judge x author: the basic / advanced / appraisal averages, overall quality, and the
    POEMetric ranking score (mean of basic, advanced and quality, as in the paper's Fig. 9);
    `advance(done, total)` after each judge x author.

    A poem's group score is the mean of its non-N/A dimensions in the group; the statistics are
    over poems. `appraisal` averages overall quality and human authorship.
    """
    columns = ["judge", "author", "part", *SUMMARY_COLUMNS]
    per_poem = judgments_per_generation(judgments)
    if per_poem.empty:
        return pd.DataFrame(columns=columns)
    parts: dict[str, pd.Series] = {
        name: per_poem[list(keys)].mean(axis=1, skipna=True) for name, keys in GROUPS.items()
    }
    parts["quality"] = per_poem["overall_quality"]
    parts["poemetric"] = pd.DataFrame({p: parts[p] for p in RANKING_PARTS}).mean(axis=1)
    scored = per_poem[["judge", "author"]].assign(**parts)
    rows: list[dict[str, object]] = []
    grouped = scored.groupby(["judge", "author"], sort=False)
    for done, ((judge, author), poems) in enumerate(grouped, start=1):
        for part in (*GROUPS, "quality", "poemetric"):
            summary = summarize(
                poems[part].to_numpy(), method=method, seed=seed, domain=LIKERT_DOMAIN
            )
            rows.append({"judge": judge, "author": author, "part": part, **summary.as_dict()})
        if advance is not None:
            advance(done, grouped.ngroups)
    return _ordered(pd.DataFrame(rows, columns=columns), ["judge"])


def score_matrix(scores: pd.DataFrame, judge: str | None = None) -> pd.DataFrame:
    """Author x dimension matrix of means (authors in the standard order)."""
    if scores.empty:
        return pd.DataFrame()
    frame = scores if judge is None else scores[scores["judge"] == judge]
    matrix = frame.pivot_table(index="author", columns="dimension", values="mean", sort=False)
    dims = [d.key for d in DIMENSIONS if d.key in matrix.columns]
    return matrix.loc[author_order(matrix.index), dims]


def dimension_matrix(scores: pd.DataFrame) -> pd.DataFrame:
    """The wide table of the paper's App. H: one row per judge x author, one column of means
    per dimension (questionnaire order)."""
    keys = [d.key for d in DIMENSIONS]
    if scores.empty:
        return pd.DataFrame(columns=["judge", "author", *keys])
    wide = scores.pivot_table(
        index=["judge", "author"], columns="dimension", values="mean", sort=False
    ).reset_index()
    wide.columns.name = None
    return _ordered(wide.reindex(columns=["judge", "author", *keys]), ["judge"])


#: The scores a checked poem may lack, with the column counting the poems that have one: a
#: poem whose form and annotation ask for no meter (most ballads of the POEMetric dataset, whose
#: meter is not annotated) or no rhyme (a sestina) has none, and is left out of that mean.
SCORED_COUNTS = {"meter_score": "n_meter", "rhyme_score": "n_rhyme"}


def _scored_count(score: str) -> list[str]:
    return [SCORED_COUNTS[score]] if score in SCORED_COUNTS else []


def form_check_scores(form_checks: pd.DataFrame, *, by_form: bool = False) -> pd.DataFrame:
    """Per author (x form): pass rate with a Wilson CI and mean meter / rhyme / form scores.

    Poems the checker could not assess (`passed` NULL, e.g. an error) are counted in
    `n_unchecked` and left out of the rates. The meter and rhyme means are over the poems that
    have such a score, `n_meter` and `n_rhyme` of the `n` checked.
    """
    keys = ["author", *(["poem_form"] if by_form else [])]
    columns = [*keys, "n", "n_unchecked", "pass_rate", "pass_ci_low", "pass_ci_high"]
    for score in ("meter_score", "rhyme_score", "form_score"):
        summary_columns = [f"{score}_{part}" for part in ("mean", "sd", "ci_low", "ci_high")]
        columns += [*_scored_count(score), *summary_columns]
    if form_checks.empty:
        return pd.DataFrame(columns=columns)
    rows: list[dict[str, object]] = []
    for group_key, checks in form_checks.groupby(keys, sort=False):
        labels = dict(
            zip(keys, group_key if isinstance(group_key, tuple) else (group_key,), strict=True)
        )
        passed = pd.to_numeric(checks["passed"], errors="coerce")
        checked = passed.dropna()
        successes = int(checked.sum())
        low, high = wilson_interval(successes, len(checked))
        row: dict[str, object] = {
            **labels,
            "n": len(checked),
            "n_unchecked": int(passed.isna().sum()),
            "pass_rate": successes / len(checked) if len(checked) else np.nan,
            "pass_ci_low": low,
            "pass_ci_high": high,
        }
        for score in ("meter_score", "rhyme_score", "form_score"):
            summary = summarize(
                pd.to_numeric(checks[score], errors="coerce").to_numpy(), domain=(0.0, 1.0)
            )
            row |= {
                **dict.fromkeys(_scored_count(score), summary.n),
                f"{score}_mean": summary.mean,
                f"{score}_sd": summary.sd,
                f"{score}_ci_low": summary.ci_low,
                f"{score}_ci_high": summary.ci_high,
            }
        rows.append(row)
    return _ordered(pd.DataFrame(rows, columns=columns), keys[1:])
