"""When each web answer was last edited, so that an older save never replaces a newer answer.

A rater may have one poem open in two tabs, or two saves of one answer may reach the server out
of order; the server stored whatever arrived last, so "Save and next" in a tab drawn before an
answer was changed elsewhere stored the older answer over it. Each answer the page sends
therefore carries the time it was last edited by the rater's browser clock (ms since 1970): a
field the rater changes gets a new time (survey.js), an unchanged one the stored time the page
was drawn with (also all a page without JavaScript sends). `survey_edits` keeps the newest time
per (survey, rater, poem, question), for both tasks' answer stores, and a save older than it is
not stored.

Times are only ever compared with times from the same rater's browsers, never with the server's
clock, so a browser clock that is off does not matter on one device; the page also takes each
new time past the stored one it was drawn with, so an edit made after seeing an answer is newer
than it whatever the clocks say. An answer without a time (stored before edit times, or never
edited with JavaScript) counts as the oldest: a timed save replaces it, and a save without a
time replaces only an answer without one (as before edit times). `survey import` and
`ghostwriting import-lines` replace answers as before and leave the times alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

#: Longest edit time accepted (digits of ms since 1970).
MAX_DIGITS = 15


def parse_time(raw: str) -> int | None:
    """An edit time as sent by the page: ms since 1970, or '' for none. ValueError otherwise."""
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= MAX_DIGITS):
        raise ValueError(f"edit time {raw[:20]!r} is not a time in ms")
    return int(raw)


def load(
    conn: sqlite3.Connection, survey_id: str, rater: str, generation_id: str
) -> dict[str, int]:
    """question -> newest stored edit time of one rater's answers on one poem."""
    rows = conn.execute(
        "SELECT question, edited_at FROM survey_edits WHERE survey_id = ? AND rater_id = ? "
        "AND generation_id = ?",
        (survey_id, rater, generation_id),
    )
    return {row[0]: row[1] for row in rows}


def stale(held: Mapping[str, int], edited: Mapping[str, int | None]) -> set[str]:
    """Questions whose save is older than the stored answer (no time = oldest; a tie is not
    older: the page was drawn with that answer's time and nothing newer came since)."""
    return {
        key for key, time in edited.items() if key in held and (time is None or time < held[key])
    }


def record(
    conn: sqlite3.Connection,
    survey_id: str,
    rater: str,
    generation_id: str,
    edited: Mapping[str, int | None],
) -> None:
    """Keep the newest edit time of each stored answer (within the caller's transaction)."""
    conn.executemany(
        "INSERT INTO survey_edits VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (survey_id, rater_id, generation_id, question) DO UPDATE SET "
        "edited_at = MAX(edited_at, excluded.edited_at)",
        [
            (survey_id, rater, generation_id, key, time)
            for key, time in edited.items()
            if time is not None
        ],
    )
