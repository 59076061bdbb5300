"""Per-author fluency and coherence from line annotations (Potash et al., Sec. 6.1, eq. 1).

The grades come from `line_annotations` (imported sheets and the survey web app alike). A
poem's score is the mean over every annotation of every line (each annotator's grade of each
line counts once): (strong + 0.5 x weak) / annotations. First lines have no coherence grade. An
author's score is the mean of its poems' scores, with a t 95% CI over poems; the shares of
strong / weak / not grades are over all annotations, and the raw agreement is the share of
annotator pairs that gave a line the same grade (paper: 0.67 for fluency, 0.43 for coherence).
"""

from __future__ import annotations

import itertools
import math

import pandas as pd

from poemetric.stats import summarize
from poemetric.store import RunStore
from poemetric.text.ordering import author_order

GRADES = {"strong": 1.0, "weak": 0.5, "not": 0.0}


def load_line_annotations(store: RunStore) -> pd.DataFrame:
    """The stored line grades, from sheets and from the survey web app alike. A poem counts for
    an annotator once every line of it is graded (a sheet is imported only so; a web page while
    the rater is still at it is left out until its last grade is given)."""
    return pd.read_sql_query(
        "SELECT a.sheet_id, a.annotator, a.generation_id, a.line_number, a.fluency, a.coherence, "
        "g.author FROM line_annotations a JOIN generations g USING (generation_id) "
        "WHERE NOT EXISTS (SELECT 1 FROM line_annotations b WHERE b.sheet_id = a.sheet_id "
        "AND b.annotator = a.annotator AND b.generation_id = a.generation_id "
        "AND (b.fluency IS NULL OR (b.coherence IS NULL AND b.line_number > 1)))",
        store.conn,
    )


def raw_agreement(annotations: pd.DataFrame, column: str) -> float:
    """Share of annotator pairs agreeing on a line's grade (lines with two or more grades)."""
    agree = pairs = 0
    graded = annotations.dropna(subset=[column])
    for _, line in graded.groupby(["sheet_id", "generation_id", "line_number"]):
        for left, right in itertools.combinations(line[column].tolist(), 2):
            pairs += 1
            agree += left == right
    return agree / pairs if pairs else math.nan


def fluency_scores(annotations: pd.DataFrame) -> pd.DataFrame:
    """One row per author (see the module docstring)."""
    rows: list[dict[str, object]] = []
    for author in author_order(annotations["author"].unique()):
        mine = annotations[annotations["author"] == author]
        row: dict[str, object] = {
            "author": author,
            "poems": mine["generation_id"].nunique(),
            "annotators": mine["annotator"].nunique(),
            "annotations": len(mine),
        }
        for question in ("fluency", "coherence"):
            graded = mine.dropna(subset=[question])
            per_poem = graded.groupby("generation_id")[question].mean()
            summary = summarize(per_poem.to_numpy(), domain=(0.0, 1.0))
            row[question] = summary.mean
            row[f"{question}_ci_low"] = summary.ci_low
            row[f"{question}_ci_high"] = summary.ci_high
            for grade, value in GRADES.items():
                share = (graded[question] == value).mean() if len(graded) else math.nan
                row[f"{question}_{grade}"] = share
            row[f"{question}_agreement"] = raw_agreement(mine, question)
        rows.append(row)
    return pd.DataFrame(rows)
