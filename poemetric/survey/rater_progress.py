"""Each rater's progress in a survey, as the admin page and `survey status` show it: pages
assigned and completed, answers and the last one's time, and the attention checks (failed of
taken, not shown, not answered yet)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from poemetric.survey import edits
from poemetric.survey.tasks import ATTENTION_KEY

if TYPE_CHECKING:
    from poemetric.store import RunStore
    from poemetric.survey.db import SurveyInfo


@dataclass(frozen=True)
class RaterProgress:
    rater: str
    assigned: int
    completed: int
    answers: int
    last_answer_at: str | None
    checks: int
    checks_failed: int
    #: Checks answered; checks on poems answered only on paper (an imported sheet has none).
    checks_taken: int = 0
    checks_imported: int = 0
    #: Every answer of the rater so far came from imported files (none given on the web).
    on_paper: bool = False
    #: Checks answered on poems where this survey asked for no answer (imported answers).
    checks_unjudged: int = 0

    def last_answer_text(self) -> str:
        """The last answer's time as the admin page and `survey status` show it, in UTC to the
        second (`2026-11-27 12:47:43`; their column says UTC); the page showed the stored ISO
        stamp (`2026-11-27T12:47:43.118+00:00`). "–" when there is none."""
        return utc_second(self.last_answer_at) if self.last_answer_at else "–"

    def checks_text(self) -> str:
        """The attention checks as the admin page and `survey status` show them: failed of
        taken, then those never shown (poems answered on paper) and the rest: "not answered
        yet", or, for a rater answering on paper, whose sheet has no check, "not shown (on
        paper, not imported yet)"."""
        if not self.checks and not self.checks_unjudged:
            return "–"
        parts = [f"{self.checks_failed} / {self.checks_taken} failed"] if self.checks_taken else []
        pending = self.checks - self.checks_taken - self.checks_imported
        waiting = "not shown (on paper, not imported yet)" if self.on_paper else "not answered yet"
        for count, what in ((self.checks_imported, "not shown (imported)"),
                            (pending, waiting)):  # fmt: skip
            if count:
                parts.append(what if count == self.checks else f"{count} {what}")
        if self.checks_unjudged:  # an exported file's answers: it lacks what the check asked
            parts.append(f"{self.checks_unjudged} not judged (imported, no instructed answer)")
        return ", ".join(parts)


def utc_second(stamp: str) -> str:
    """An ISO time as `YYYY-MM-DD HH:MM:SS` in UTC (one with another offset converted, one
    without taken as UTC); a stamp that is not an ISO time, as it is."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def rater_progress(store: RunStore, survey: SurveyInfo) -> list[RaterProgress]:
    """Per rater of `survey`: pages assigned and completed, answers, last answer, attention
    checks (`poemetric.survey.db.progress`)."""
    survey_id = survey.survey_id
    activity = survey.task.answers.activity(store.conn, survey_id)
    rows = store.conn.execute(
        """
        WITH checks AS (  -- the attention checks answered: their answer and the one asked for
          SELECT a.rater_id, s.score, a.check_expected
          FROM survey_assignments a JOIN survey_answers s
            ON s.survey_id = a.survey_id AND s.rater_id = a.rater_id
            AND s.generation_id = a.generation_id AND s.question = :check
          WHERE a.survey_id = :survey AND a.check_expected IS NOT NULL AND s.score IS NOT NULL
        )
        SELECT r.rater_id,
          (SELECT COUNT(*) FROM survey_assignments a
             WHERE a.survey_id = r.survey_id AND a.rater_id = r.rater_id) AS assigned,
          (SELECT COUNT(*) FROM survey_assignments a WHERE a.survey_id = r.survey_id
             AND a.rater_id = r.rater_id AND a.completed_at IS NOT NULL) AS completed,
          (SELECT COUNT(*) FROM survey_assignments a WHERE a.survey_id = r.survey_id
             AND a.rater_id = r.rater_id AND a.check_expected IS NOT NULL) AS checks,
          (SELECT COUNT(*) FROM checks c WHERE c.rater_id = r.rater_id
             AND c.score != c.check_expected) AS failed,
          (SELECT COUNT(*) FROM checks c WHERE c.rater_id = r.rater_id) AS taken,
          (SELECT COUNT(*) FROM survey_assignments a
             WHERE a.survey_id = r.survey_id AND a.rater_id = r.rater_id
             AND a.check_expected IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM survey_answers s WHERE s.survey_id = a.survey_id
               AND s.rater_id = a.rater_id AND s.generation_id = a.generation_id
               AND s.question = :check AND s.score IS NOT NULL)
             AND EXISTS (SELECT 1 FROM survey_answers s WHERE s.survey_id = a.survey_id
               AND s.rater_id = a.rater_id AND s.generation_id = a.generation_id
               AND s.source != :web)) AS imported,
          (EXISTS (SELECT 1 FROM survey_answers s WHERE s.survey_id = r.survey_id
             AND s.rater_id = r.rater_id AND s.source != :web)
           AND NOT EXISTS (SELECT 1 FROM survey_answers s WHERE s.survey_id = r.survey_id
             AND s.rater_id = r.rater_id AND s.source = :web)) AS on_paper,
          (SELECT COUNT(*) FROM survey_answers s WHERE s.survey_id = r.survey_id
             AND s.rater_id = r.rater_id AND s.question = :check AND s.score IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM survey_assignments a WHERE a.survey_id = s.survey_id
               AND a.rater_id = s.rater_id AND a.generation_id = s.generation_id
               AND a.check_expected IS NOT NULL)) AS unjudged
        FROM survey_raters r WHERE r.survey_id = :survey ORDER BY r.rater_id
        """,
        {"check": ATTENTION_KEY, "survey": survey_id, "web": edits.WEB},
    ).fetchall()
    return [
        RaterProgress(row["rater_id"], row["assigned"], row["completed"],
                      *activity.get(row["rater_id"], (0, None)), row["checks"], row["failed"],
                      checks_taken=row["taken"], checks_imported=row["imported"],
                      on_paper=bool(row["on_paper"]), checks_unjudged=row["unjudged"])
        for row in rows
    ]  # fmt: skip
