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
time replaces only an answer without one (as before edit times).

An import (`survey import`; `ghostwriting import-lines` of a line survey's sheet) counts as an
edit made after every page open at the time: whatever the browser clocks say, a page drawn
before an import cannot store over an answer it imported (the page still showed the earlier
one). The page carries the time of the newest imported answer it shows (`seen`, the server's
clock, compared only with the import times it stores); a web save of an answer imported later
than that is not stored. A page drawn after the import edits it like any other answer. Each
task's `AnswerStore.imports` says which of its answers were imported and when (`survey_answers`
or `line_annotations`: `source` other than `WEB`, `updated_at`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

#: Longest edit time accepted (digits of ms since 1970).
MAX_DIGITS = 15
#: `source` of an answer given on the web (`survey_answers`, `line_annotations`); an import
#: stores the file's name (and line).
WEB = "web"
#: Longest `seen` value accepted (an ISO time as `utc_now` writes it is 29 characters).
MAX_SEEN = 40


def parse_time(raw: str) -> int | None:
    """An edit time as sent by the page: ms since 1970, or '' for none. ValueError otherwise."""
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= MAX_DIGITS):
        raise ValueError(f"edit time {raw[:20]!r} is not a time in ms")
    return int(raw)


def parse_seen(raw: str) -> str:
    """The import time a page was drawn with ('' for none). ValueError when it is no such time."""
    if len(raw) > MAX_SEEN or not raw.isascii() or not raw.isprintable():
        raise ValueError(f"import time {raw[:20]!r} is not a time")
    return raw


def seen(imports: Mapping[str, str]) -> str:
    """When the newest imported answer of one rater's poem was stored ('' for none), from its
    `AnswerStore.imports`: the page drawn now shows every import up to that time."""
    return max(imports.values(), default="")


def imported_since(imports: Mapping[str, str], drawn: str) -> set[str]:
    """Questions of one rater's poem (its `AnswerStore.imports`) whose answer was imported after
    a page drawn with `drawn` (its `seen`): that page never showed them."""
    return {key for key, when in imports.items() if when > drawn}


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
