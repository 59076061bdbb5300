"""Agreement of the raters of a survey so far (the admin page), with poemetric.reliability."""

from __future__ import annotations

from poemetric.reliability import (
    AGREEMENT_BOOTSTRAP,
    BOOTSTRAP_SEED,
    AgreementReport,
    Ratings,
    agreement_report,
)
from poemetric.store import RunStore
from poemetric.survey.db import SurveyInfo


def current_agreement(
    store: RunStore,
    survey: SurveyInfo,
    *,
    n_boot: int = AGREEMENT_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> AgreementReport | None:
    """Rater-vs-rater agreement on the task's scored items (None until two raters overlap).

    With the defaults of `analyze`, so that for the POEMetric survey it is `analyze --survey`'s
    agreement_experts table (the task gives the ratings in that table's order)."""
    ratings, scale = survey.task.ratings(store.conn, survey.survey_id)
    if len({r.rater for r in ratings}) < 2:
        return None
    report = agreement_report(Ratings.from_ratings(ratings, scale=scale), n_boot=n_boot, seed=seed)
    return report if report.overall.counts["n_pairs"] else None
