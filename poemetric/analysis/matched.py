"""The judge and the expert panel over the same poems (paper Figs. 6-8, the report's "Scores by
dimension"): per author and item, the poems an expert scored on the item AND the judge scored.
N/A (0 on imagery and literary devices) is no score here, as it counts in no mean: a poem one
side called N/A and the other scored is left out of both means on that item.

`judged_as_rated` keeps the judge's half, `rated_as_judged` the experts' half; the table
`experts_on_judged_poems` counts, per judge, author and item, the poems the experts rated that
were left out because the judge has no score for them (`n_left_out`: a failed judgment,
`judge --limit`, a poem not judged).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from poemetric.analysis.data import author_order
from poemetric.analysis.experts import experts_as_judgments
from poemetric.analysis.labels import Labels
from poemetric.analysis.scores import dimension_scores
from poemetric.questionnaire import DIMENSION_KEYS, DIMENSIONS, DIMENSIONS_BY_KEY
from poemetric.stats import CIMethod
from poemetric.text.listing import joined_with_and
from poemetric.text.plural import counted, plural

#: The items whose 0 is N/A, left out of their means.
NA_KEYS = tuple(d.key for d in DIMENSIONS if d.allows_na)


def _scored(frame: pd.DataFrame, *, scores_only: bool = False) -> pd.DataFrame:
    """Poem (generation_id) x item: whether a rater of `frame` answered it (N/A, 0, counts);
    `scores_only`: with a score its mean counts (N/A does not)."""
    values = frame.set_index("generation_id")[list(DIMENSION_KEYS)]
    scored = values.notna()
    if scores_only:
        for key in NA_KEYS:
            scored[key] &= values[key] != 0
    return scored.groupby(level=0).any()


def _keep(frame: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """The rows of `frame` of the poems `other` scored, each item only where `other` has a
    score that counts in its mean: were a poem `other` called N/A kept, `frame`'s mean would
    have a poem that `other`'s lacks."""
    scored = _scored(other, scores_only=True)
    kept = frame[frame["generation_id"].isin(scored.index)].copy()
    for key in DIMENSION_KEYS:
        kept[key] = kept[key].where(kept["generation_id"].map(scored[key]).astype(bool))
    return kept


def judged_as_rated(judgments: pd.DataFrame, experts: pd.DataFrame) -> pd.DataFrame:
    """The judgments of the poems the experts rated (the same generations: same author, same
    poem), each item kept only on the poems an expert scored it on (not N/A), so that
    the judge's mean per author and item is over the experts' poems: Figs. 6-8 drew the judge
    over every poem beside the experts over theirs."""
    return _keep(judgments, experts)


def rated_as_judged(experts: pd.DataFrame, judgments: pd.DataFrame) -> pd.DataFrame:
    """The expert ratings of the poems the judge scored (`judgments` of one judge), each item
    kept only on the poems the judge scored it on (not N/A): the experts' half of
    `judged_as_rated`, so that neither mean has a poem the other lacks."""
    return _keep(experts, judgments)


def _left_out(experts: pd.DataFrame, judgments: pd.DataFrame) -> pd.DataFrame:
    """Author x item: the poems the experts scored on the item that the judge did not."""
    rated = _scored(experts)
    judged = _scored(judgments).reindex(rated.index, fill_value=False)
    authors = experts.drop_duplicates("generation_id").set_index("generation_id")["author"]
    missing = (rated & ~judged).groupby(authors.reindex(rated.index)).sum()
    missing.index.name = "author"
    return missing.reset_index().melt(
        id_vars="author", var_name="dimension", value_name="n_left_out"
    )


def experts_on_judged_poems(
    experts: pd.DataFrame, judgments: pd.DataFrame, *, method: CIMethod = "t", seed: int = 0
) -> pd.DataFrame:
    """The experts' scores per judge, author and dimension over the poems the judge (column
    `judge`) scored too, with `n_left_out`: the poems the experts rated on the item that the
    judge has no score for. An author whose every rated poem was left out has a row with n 0."""
    tables = []
    for judge, rows in judgments.groupby("judge", sort=True):
        scores = dimension_scores(
            experts_as_judgments(rated_as_judged(experts, rows)), method=method, seed=seed
        ).drop(columns="judge")
        left_out = _left_out(experts, rows)
        table = left_out.merge(scores, on=["author", "dimension"], how="left")
        table["n"] = table["n"].fillna(0).astype(int)
        table["group"] = table["dimension"].map(lambda key: DIMENSIONS_BY_KEY[key].group)
        tables.append(table.assign(judge=str(judge)))
    if not tables:
        return pd.DataFrame(columns=["judge", "author", "dimension", "n", "n_left_out"])
    table = pd.concat(tables, ignore_index=True)
    columns = ["judge", *[c for c in table.columns if c not in {"judge", "n_left_out"}]]
    return table[[*columns, "n_left_out"]]


def left_out_poems(table: pd.DataFrame) -> pd.Series:
    """Per author (of one judge's `experts_on_judged_poems`): the poems the experts rated that
    were left out, the most of any item (a poem without a judgment is left out of every item);
    only authors with some."""
    most = table.groupby("author")["n_left_out"].max().astype(int)
    return most[most > 0]


def left_out_text(left_out: pd.Series, judge: str, label: Callable[[str], str] = str) -> str:
    """`2 poems the experts rated are left out, which judge-x has no score for (model-a 2)`,
    or "" when none is."""
    if left_out.empty:
        return ""
    total = int(left_out.sum())
    ordered = author_order(left_out.index)
    per_author = ", ".join(f"{label(str(a))} {int(left_out[a])}" for a in ordered)
    return (
        f"{counted(total, 'poem')} the experts rated {plural(total, 'is', 'are')} left out of "
        f"both, as {judge} has no score for {plural(total, 'it', 'them')} ({per_author})"
    )


def unscored_authors(table: pd.DataFrame) -> list[str]:
    """The authors (of one judge's `experts_on_judged_poems`) none of whose rated poems the
    judge scored: every poem left out, so they have neither bar."""
    most = table.groupby("author")["n"].max()
    return author_order(most[most == 0].index)


def unscored_text(authors: list[str], judge: str, mark: str, label: Callable[[str], str] = str,
                  where: str = "") -> str:  # fmt: skip
    """`No bars for model-a: judge-x scored none of the poems the experts rated of it` (`mark`
    'No bars'; `where`, after the names: ' in these charts'), or "" when no author is so."""
    if not authors:
        return ""
    names = [label(str(a)) for a in authors]
    listed = joined_with_and(names)
    them = plural(len(names), "it", "them")
    return (
        f"{mark} for {listed}{where}: {judge} scored none of the poems the experts rated of {them}"
    )


def left_out_notes(table: pd.DataFrame, labels: Labels | None = None) -> list[str]:
    """A note per judge whose `experts_on_judged_poems` left out poems the experts rated, naming
    the authors left with no bar (as the figures' captions do); judges and authors are named by
    `labels`, as the tables and captions name them."""
    labels = labels or Labels()
    notes = []
    for judge, rows in table.groupby("judge", sort=True):
        shown = labels.judge(str(judge))
        if text := left_out_text(left_out_poems(rows), shown, labels.author):
            no_bar = unscored_text(unscored_authors(rows), shown, "no bars", labels.author)
            notes.append(
                f"judge vs experts over the same poems (Figs. 6-8): {text}"
                + (f"; {no_bar}" if no_bar else "")
            )
    return notes


__all__ = [
    "experts_on_judged_poems",
    "judged_as_rated",
    "left_out_notes",
    "left_out_poems",
    "left_out_text",
    "rated_as_judged",
    "unscored_authors",
    "unscored_text",
]
