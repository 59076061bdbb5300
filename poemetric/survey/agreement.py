"""Agreement of the raters of a survey so far (the admin page), with poemetric.reliability."""

from __future__ import annotations

from poemetric.reliability import AgreementReport, Rating, Ratings, agreement_report
from poemetric.store import RunStore
from poemetric.survey.db import SurveyInfo


def current_agreement(
    store: RunStore, survey: SurveyInfo, *, n_boot: int = 200, seed: int = 0
) -> AgreementReport | None:
    """Rater-vs-rater agreement on the task's scored items (None until two raters overlap)."""
    keys, scale, na_value = survey.task.agreement_items()
    marks = ",".join("?" * len(keys))
    rows = store.query(
        f"SELECT rater_id, generation_id, question, score FROM survey_answers "
        f"WHERE survey_id = ? AND question IN ({marks}) AND score IS NOT NULL",
        [survey.survey_id, *keys],
    )
    ratings = [
        Rating(r["generation_id"], r["rater_id"], r["question"],
               None if r["score"] == na_value else float(r["score"]))
        for r in rows
    ]  # fmt: skip
    if len({r.rater for r in ratings}) < 2:
        return None
    report = agreement_report(Ratings.from_ratings(ratings, scale=scale), n_boot=n_boot, seed=seed)
    return report if report.overall.counts["n_pairs"] else None
