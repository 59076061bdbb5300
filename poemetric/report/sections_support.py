"""Small helpers shared by section builders."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from poemetric.analysis.author_kinds import all_language_models
from poemetric.analysis.plotting import author_colours, run_palette
from poemetric.report.model import ReportRun
from poemetric.tables.headers import dimension_label
from poemetric.text.ordering import author_order


def records(
    run: ReportRun, frame: pd.DataFrame | None, *, rater: str = "judge"
) -> list[dict[str, Any]]:
    """A table's rows as dicts, with display names (`label`, `rater_label`) and dimension
    labels (`item_label`) added."""
    if frame is None or frame.empty:
        return []
    rows: list[dict[str, Any]] = []
    for row in frame.to_dict("records"):
        extra: dict[str, Any] = {}
        if "author" in row:
            extra["label"] = run.labels.author(str(row["author"]))
        if rater in row:
            extra["rater_label"] = run.labels.judge(str(row[rater]))
        if "item" in row:
            extra["item_label"] = dimension_label(str(row["item"]))
        rows.append({**{str(k): v for k, v in row.items()}, **extra})
    return rows


def chart_colours(run: ReportRun, authors: Sequence[str]) -> dict[str, str]:
    """Each of `authors` (a chart's rows) -> its colour as the run's figures draw it: the
    human poets vermillion, up to 7 LLMs each in its run colour, more LLMs one blue."""
    everyone = [*run.data.generations["author"].unique(), *authors]
    return author_colours(list(dict.fromkeys(authors)), run_palette(dict.fromkeys(everyone)))


def generated_authors(run: ReportRun, authors: Sequence[str]) -> str:
    """What a chart's legend calls the generated authors among `authors`: "LLMs", or "Models"
    where one of them is not a language model (the Markov baseline)."""
    return "LLMs" if all_language_models(run.data.generations, authors) else "Models"


def authors_not_scored(run: ReportRun, scored: Iterable[str]) -> list[str]:
    """The display names of the authors with answers (poems or not) that are not in `scored`,
    the authors a judge's table has rows for: every judgment of theirs failed or is not made."""
    rows = set(scored)
    return [run.labels.author(a) for a in author_order(run.data.generations["author"])
            if a not in rows]  # fmt: skip
