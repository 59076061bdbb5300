"""Where a survey task keeps its answers. The app reads and writes answers only through a task's
`AnswerStore`: the expert survey keeps them in `survey_answers` (one row per rater, poem and
question); the line-level task keeps them in `line_annotations`, where imported sheets are.
Every method runs inside the caller's transaction (or read).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Protocol

from poemetric.survey.edits import WEB

Answer = tuple[float | None, str | None]  # (score, text)


class AnswerStore(Protocol):
    def load(
        self, conn: sqlite3.Connection, survey_id: str, rater: str, generation_id: str | None = None
    ) -> dict[str, dict[str, Answer]]:
        """generation_id -> question -> (score, text) of one rater (one poem of theirs)."""
        ...

    def save(
        self,
        conn: sqlite3.Connection,
        survey_id: str,
        rater: str,
        generation_id: str,
        values: Mapping[str, Answer],
        *,
        source: str,
        now: str,
    ) -> None:
        """Upsert answers to questions of one poem (already validated against its questions)."""
        ...

    def activity(
        self, conn: sqlite3.Connection, survey_id: str
    ) -> dict[str, tuple[int, str | None]]:
        """rater -> (answers stored, time of the last one)."""
        ...

    def imports(
        self, conn: sqlite3.Connection, survey_id: str, rater: str, generation_id: str
    ) -> dict[str, str]:
        """question -> when its stored answer was imported (not given on the web), of one
        rater's poem: what `edits.seen` and `edits.imported_since` compare."""
        ...


class SurveyAnswerTable:
    """`survey_answers`: one row per (survey, rater, poem, question); a re-saved answer replaces
    the earlier one."""

    def load(
        self, conn: sqlite3.Connection, survey_id: str, rater: str, generation_id: str | None = None
    ) -> dict[str, dict[str, Answer]]:
        sql = (
            "SELECT generation_id, question, score, text FROM survey_answers "
            "WHERE survey_id = ? AND rater_id = ?"
        )
        params = [survey_id, rater]
        if generation_id is not None:
            sql += " AND generation_id = ?"
            params.append(generation_id)
        out: dict[str, dict[str, Answer]] = {}
        for row in conn.execute(sql, params):
            out.setdefault(row[0], {})[row[1]] = (row[2], row[3])
        return out

    def save(
        self,
        conn: sqlite3.Connection,
        survey_id: str,
        rater: str,
        generation_id: str,
        values: Mapping[str, Answer],
        *,
        source: str,
        now: str,
    ) -> None:
        conn.executemany(
            """
            INSERT INTO survey_answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (survey_id, rater_id, generation_id, question) DO UPDATE SET
                score = excluded.score, text = excluded.text, source = excluded.source,
                updated_at = excluded.updated_at
            """,
            [
                (survey_id, rater, generation_id, key, score, text, source, now)
                for key, (score, text) in values.items()
            ],
        )

    def activity(
        self, conn: sqlite3.Connection, survey_id: str
    ) -> dict[str, tuple[int, str | None]]:
        # An empty comment is no answer (`answered`): "Save and next" sends every comment box,
        # so the empty boxes of a page left unanswered are neither counted nor its last answer.
        given = "(score IS NOT NULL OR COALESCE(text, '') != '')"
        rows = conn.execute(
            f"SELECT rater_id, SUM({given}), MAX(CASE WHEN {given} THEN updated_at END) "
            "FROM survey_answers WHERE survey_id = ? GROUP BY rater_id",
            (survey_id,),
        )
        return {row[0]: (row[1], row[2]) for row in rows}

    def imports(
        self, conn: sqlite3.Connection, survey_id: str, rater: str, generation_id: str
    ) -> dict[str, str]:
        rows = conn.execute(
            "SELECT question, updated_at FROM survey_answers WHERE survey_id = ? AND rater_id = ? "
            "AND generation_id = ? AND source != ?",
            (survey_id, rater, generation_id, WEB),
        )
        return {row[0]: row[1] for row in rows}


def answered(answers: Mapping[str, Answer]) -> set[str]:
    """Questions with an answer: a score, or text that is not empty."""
    return {key for key, (score, text) in answers.items() if score is not None or text}
