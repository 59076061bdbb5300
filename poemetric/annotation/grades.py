"""The `line_annotations` table: the one place line-level fluency / coherence grades are kept,
whether they come from filled sheets (`ghostwriting import-lines`) or from the survey web app
(`survey build --task lines`). Both write through `store_line_grades`; the analysis reads the
table with `poemetric.ghostwriting.fluency.load_line_annotations`.

A grade of None is a line not graded yet: the web app stores every line of a poem once a rater
grades any of it (so the table shows how far each rater got), and the analysis counts a poem for
an annotator only once all of its lines are graded, as the importer requires of a sheet.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class LineGrade:
    sheet_id: str
    annotator: str
    generation_id: str
    line_number: int
    fluency: float | None
    coherence: float | None
    source: str


_COLUMNS = ("sheet_id", "annotator", "generation_id", "line_number", "fluency", "coherence",
            "source")  # fmt: skip


def store_line_grades(conn: sqlite3.Connection, grades: Iterable[LineGrade], now: str) -> None:
    """Upsert grades by (sheet, annotator, poem, line), inside the caller's transaction."""
    conn.executemany(
        f"INSERT INTO line_annotations ({', '.join(_COLUMNS)}, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (sheet_id, annotator, generation_id, line_number) DO UPDATE SET "
        "fluency = excluded.fluency, coherence = excluded.coherence, "
        "source = excluded.source, updated_at = excluded.updated_at",
        [(*(getattr(grade, column) for column in _COLUMNS), now) for grade in grades],
    )


def stored_line_grades(
    conn: sqlite3.Connection,
    sheet_id: str,
    *,
    annotator: str | None = None,
    generation_id: str | None = None,
) -> list[tuple[LineGrade, str]]:
    """The sheet's stored grades (of one annotator / poem), each with its `updated_at`."""
    where, params = ["sheet_id = ?"], [sheet_id]
    for column, value in (("annotator", annotator), ("generation_id", generation_id)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    rows = conn.execute(
        f"SELECT {', '.join(_COLUMNS)}, updated_at FROM line_annotations "
        f"WHERE {' AND '.join(where)} ORDER BY annotator, generation_id, line_number",
        params,
    )
    return [(LineGrade(*row[:-1]), row[-1]) for row in rows]
