"""Raters who failed the survey's attention checks (`survey build --attention-checks`): named in
the notes, and left out of the expert tables on request (`analyze --exclude-failed-checks`).

A check is failed when its answer differs from the one it asked for; a check not taken (a poem
answered on paper, or not yet) is neither passed nor failed. A rater who failed any check they
took counts as failed. A check answered with no instructed answer to compare (its answer imported
from `poemetric export survey_answers` into a survey that did not give that check: the file holds
the answers, not what each check asked for) cannot be judged: its rater is kept and named.
By default every rater stays in (the POEMetric paper used no attention
check: Sec. 4.2 describes its 7 experts, none left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from poemetric.analysis.expert_rows import ATTENTION_QUESTION
from poemetric.analysis.experts import ExpertRatingsError
from poemetric.store import RunStore
from poemetric.text.plural import counted, plural

OPTION = "--exclude-failed-checks"


@dataclass(frozen=True)
class FailedChecks:
    """A rater (as the expert tables name them) who failed `failed` of the `taken` checks."""

    rater: str
    failed: int
    taken: int

    def __str__(self) -> str:
        return f"{self.rater} (failed {self.failed} of {self.taken} taken)"


@dataclass(frozen=True)
class UnjudgedChecks:
    """A rater (as the expert tables name them) with `answered` attention-check answers that no
    instructed answer goes with (imported into a survey that did not give those checks)."""

    rater: str
    answered: int

    def __str__(self) -> str:
        return f"{self.rater} ({counted(self.answered, 'check')})"


def _prefixed(store: RunStore, survey: str | None) -> bool:
    """Whether rater ids are prefixed with their survey, as `stored_expert_ratings` does."""
    where, args = (" WHERE survey_id = ?", [survey]) if survey else ("", [])
    return len(store.query("SELECT DISTINCT survey_id FROM survey_answers" + where, args)) > 1


def unjudged_checks(store: RunStore, survey: str | None = None) -> list[UnjudgedChecks]:
    """The raters of the run's surveys (`survey`, else every survey) with answers to attention
    checks their survey cannot judge: no page of theirs asked for an answer on that poem."""
    rows = store.query(
        """
        SELECT s.survey_id, s.rater_id, COUNT(*) AS answered FROM survey_answers s
        WHERE s.question = ? AND s.score IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM survey_assignments a WHERE a.survey_id = s.survey_id
          AND a.rater_id = s.rater_id AND a.generation_id = s.generation_id
          AND a.check_expected IS NOT NULL)"""
        + (" AND s.survey_id = ?" if survey else "")
        + " GROUP BY s.survey_id, s.rater_id ORDER BY s.survey_id, s.rater_id",
        [ATTENTION_QUESTION, *([survey] if survey else [])],
    )
    prefixed = _prefixed(store, survey)
    return [
        UnjudgedChecks(
            f"{row['survey_id']}:{row['rater_id']}" if prefixed else row["rater_id"],
            int(row["answered"]),
        )
        for row in rows
    ]


def failed_checks(store: RunStore, survey: str | None = None) -> list[FailedChecks]:
    """The raters of the run's surveys (`survey`, else every survey) who failed an attention
    check, with the rater ids of `stored_expert_ratings` (prefixed with the survey id when the
    answers span several surveys)."""
    rows = store.query(
        """
        SELECT a.survey_id, a.rater_id, COUNT(*) AS taken,
          SUM(s.score != a.check_expected) AS failed
        FROM survey_assignments a JOIN survey_answers s
          ON s.survey_id = a.survey_id AND s.rater_id = a.rater_id
          AND s.generation_id = a.generation_id AND s.question = ?
        WHERE a.check_expected IS NOT NULL AND s.score IS NOT NULL"""
        + (" AND a.survey_id = ?" if survey else "")
        + " GROUP BY a.survey_id, a.rater_id ORDER BY a.survey_id, a.rater_id",
        [ATTENTION_QUESTION, *([survey] if survey else [])],
    )
    prefixed = _prefixed(store, survey)
    return [
        FailedChecks(
            f"{row['survey_id']}:{row['rater_id']}" if prefixed else row["rater_id"],
            int(row["failed"]),
            int(row["taken"]),
        )
        for row in rows
        if row["failed"]
    ]


def screen_raters(
    ratings: pd.DataFrame,
    failed: list[FailedChecks],
    *,
    exclude: bool,
    where: str = "the expert tables",
    unjudged: Sequence[UnjudgedChecks] = (),
) -> tuple[pd.DataFrame, list[str]]:
    """The ratings without the raters who failed a check when `exclude`, and the note saying who
    was left out (or, when kept, who failed, and `where`: the expert tables of `analyze`, the
    expert panels of `figures`); and a note naming the raters kept whose checks cannot be
    judged (`unjudged`)."""
    rated = set(ratings["expert"])
    failed = [f for f in failed if f.rater in rated]
    names = ", ".join(map(str, failed))
    notes = _unjudged_note([u for u in unjudged if u.rater in rated], where, exclude)
    if not exclude:
        if not failed:
            return ratings, notes
        return ratings, [
            f"{counted(len(failed), 'rater')} failed an attention check and "
            f"{plural(len(failed), 'is', 'are')} kept in {where} ({OPTION} leaves "
            f"them out): {names}",
            *notes,
        ]
    if not failed:
        judged = " that could be judged" if notes else ""
        return ratings, [
            f"{OPTION}: no rater failed an attention check{judged}; none left out",
            *notes,
        ]
    kept = ratings[~ratings["expert"].isin({f.rater for f in failed})].reset_index(drop=True)
    return kept, [
        f"left out {counted(len(failed), 'rater')} who failed an attention check ({OPTION}): "
        f"{names}",
        *notes,
    ]


def _unjudged_note(unjudged: list[UnjudgedChecks], where: str, exclude: bool) -> list[str]:
    if not unjudged:
        return []
    return [
        f"{counted(len(unjudged), 'rater')} answered attention checks that cannot be judged "
        f"and {plural(len(unjudged), 'is', 'are')} kept in {where}"
        + (f" even with {OPTION}" if exclude else "")
        + ": their answers were imported (`survey import`) from a file that does not hold the "
        "answer each check asked for; only the survey that gave the checks can screen them: "
        + ", ".join(map(str, unjudged))
    ]


def refuse_file_screening(experts: str | Path, exclude: bool) -> None:
    """A ratings file cannot be screened: the instructed answers of the checks are in the
    run's survey, not in the file (an export of survey_answers holds the answers only)."""
    if exclude:
        raise ExpertRatingsError(
            f"{OPTION} reads the attention checks of the run's stored survey answers, "
            f"but --experts {experts} is a file, which holds no instructed answers to check "
            "against: leave out --experts (answers imported with `poemetric survey import` are "
            "stored), or remove the raters from the file"
        )
