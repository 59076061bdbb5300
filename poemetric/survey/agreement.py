"""Agreement of the raters of a survey so far (the admin page), with poemetric.reliability."""

from __future__ import annotations

from collections.abc import Sequence

from poemetric.reliability import (
    AGREEMENT_BOOTSTRAP,
    BOOTSTRAP_SEED,
    AgreementReport,
    Ratings,
    agreement_report,
)
from poemetric.store import RunStore
from poemetric.survey.db import RaterProgress, SurveyInfo
from poemetric.text.plural import counted, plural


def current_agreement(
    store: RunStore,
    survey: SurveyInfo,
    *,
    n_boot: int = AGREEMENT_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> AgreementReport | None:
    """Rater-vs-rater agreement on the task's scored items (None until two raters overlap).

    With the defaults of `analyze`, so that for the POEMetric survey it is `analyze --survey`'s
    agreement_experts table (`Ratings` resamples the poems in the order of their ids)."""
    ratings, scale = survey.task.ratings(store.conn, survey.survey_id)
    if len({r.rater for r in ratings}) < 2:
        return None
    report = agreement_report(Ratings.from_ratings(ratings, scale=scale), n_boot=n_boot, seed=seed)
    return report if report.overall.counts["n_pairs"] else None


def raters_counted(progress: Sequence[RaterProgress]) -> str:
    """Which raters the agreement counts, for a survey with attention checks: every one, those
    who failed a check too, as `analyze` and `figures` by default (their
    `--exclude-failed-checks` leaves them out, which this page does not)."""
    failed = [
        f"{p.rater} (failed {p.checks_failed} of {p.checks_taken} taken)"
        for p in progress
        if p.checks_failed
    ]
    if not failed:
        return (
            "Every rater counts here, as in `poemetric analyze`; none has failed an attention "
            "check so far."
        )
    return (
        f"Every rater counts here, the {counted(len(failed), 'rater')} who failed an attention "
        f"check too: {', '.join(failed)}. So does `poemetric analyze` by default; "
        f"`poemetric analyze --exclude-failed-checks` leaves {plural(len(failed), 'this rater', 'these raters')} out."
    )
