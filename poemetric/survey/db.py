"""The survey tables of the run store: surveys, raters, assignments (pages) and answers.

Every write is one transaction; answers are upserted (in the task's `AnswerStore`), so a rater
changing an answer replaces it and nothing is stored twice; a web save older than the stored
answer (its browser edit time, `edits.py`) is not stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from poemetric.store import RunStore
from poemetric.store.db import to_json, utc_now
from poemetric.suggest import did_you_mean
from poemetric.survey import edits
from poemetric.survey.answers import Answer
from poemetric.survey.completion import complete_pages, complete_united, mark_if_complete, page_rows
from poemetric.survey.rater_progress import RaterProgress as RaterProgress
from poemetric.survey.rater_progress import rater_progress
from poemetric.survey.rater_progress import utc_second as utc_second
from poemetric.survey.tasks import Page, Task, task

__all__ = [
    "Answer",
    "NoAnswersError",
    "RaterProgress",
    "SurveyError",
    "SurveyInfo",
    "complete_merged",
    "complete_pages",
]


class SurveyError(ValueError):
    """No such survey / rater, or a survey that already exists."""


class NoAnswersError(SurveyError):
    """Rows to import that hold no answer at all (e.g. an unfilled CSV template)."""


@dataclass(frozen=True)
class SurveyInfo:
    survey_id: str
    task: Task
    seed: int | None
    config: dict[str, Any]


def survey_ids(store: RunStore) -> list[str]:
    return [row[0] for row in store.query("SELECT survey_id FROM surveys ORDER BY created_at")]


def unknown_survey(store: RunStore, survey_id: str) -> str:
    """The error for a survey the run does not have, one wording for every command: the survey
    it looks like a typo of and the run's surveys."""
    known = survey_ids(store)
    surveys = ", ".join(known) or "none yet (`poemetric survey build`)"
    guess = did_you_mean(survey_id, known)
    return f"no survey {survey_id!r}{guess} in {store.path}; surveys: {surveys}"


def load_survey(store: RunStore, survey_id: str) -> SurveyInfo:
    row = store.conn.execute(
        "SELECT task, seed, config FROM surveys WHERE survey_id = ?", (survey_id,)
    ).fetchone()
    if row is None:
        raise SurveyError(unknown_survey(store, survey_id))
    try:
        bound = task(row["task"]).for_survey(store, survey_id)
    except ValueError as exc:  # a task this version does not know, or its data lost
        raise SurveyError(f"survey {survey_id!r} cannot be opened: {exc}") from exc
    return SurveyInfo(survey_id, bound, row["seed"], json.loads(row["config"]))


def create_survey(
    store: RunStore,
    survey_id: str,
    task_name: str,
    seed: int,
    config: Mapping[str, Any],
    assigned: Mapping[str, list[str]],
    checks: Mapping[tuple[str, int], int],
    meta: Mapping[str, Any] | None = None,
) -> None:
    """Store a drawn survey: raters, their ordered pages and the task's `meta` entries (all in
    one transaction)."""
    now = utc_now()
    with store.transaction() as conn:
        if conn.execute("SELECT 1 FROM surveys WHERE survey_id = ?", (survey_id,)).fetchone():
            raise SurveyError(
                f"survey {survey_id!r} already exists in {store.path}; choose another --survey"
            )
        conn.execute(
            "INSERT INTO surveys VALUES (?, ?, ?, ?, ?)",
            (survey_id, task_name, seed, json.dumps(dict(config)), now),
        )
        for rater, poems in assigned.items():
            conn.execute("INSERT INTO survey_raters VALUES (?, ?, ?)", (survey_id, rater, now))
            conn.executemany(
                "INSERT INTO survey_assignments VALUES (?, ?, ?, ?, ?, NULL)",
                [
                    (survey_id, rater, position, gid, checks.get((rater, position)))
                    for position, gid in enumerate(poems, start=1)
                ],
            )
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [(key, to_json(value)) for key, value in (meta or {}).items()],
        )


def raters(store: RunStore, survey_id: str) -> list[str]:
    rows = store.query(
        "SELECT rater_id FROM survey_raters WHERE survey_id = ? ORDER BY rater_id", [survey_id]
    )
    return [row[0] for row in rows]


def pages(store: RunStore, survey_id: str, rater: str) -> list[Page]:
    """The rater's pages in their order, with the generation prompt and the poem."""
    return page_rows(store.conn, survey_id, rater)


def answers(store: RunStore, survey: SurveyInfo, rater: str) -> dict[str, dict[str, Answer]]:
    """generation_id -> question -> (score, text) of one rater."""
    return survey.task.answers.load(store.conn, survey.survey_id, rater)


def save_edits(
    store: RunStore,
    survey: SurveyInfo,
    rater: str,
    page: Page,
    values: Mapping[str, Answer],
    edited: Mapping[str, int | None],
    *,
    required: Iterable[str],
    source: str = edits.WEB,
    seen: str = "",
) -> tuple[bool, set[str]]:
    """Upsert a page's answers; marks the page complete once every required question has an
    answer. `edited`: question -> when the rater last edited its answer (ms, their browser's
    clock; None or left out: unknown); an answer older than the stored one, or imported after the
    page was drawn (`seen`: its newest import, `edits.seen`), is left out
    (`poemetric.survey.edits`). Returns whether the page is complete, and the questions left
    out."""
    now = utc_now()
    with store.transaction() as conn:
        times = {key: edited.get(key) for key in values}
        held = edits.load(conn, survey.survey_id, rater, page.generation_id)
        imports = survey.task.answers.imports(conn, survey.survey_id, rater, page.generation_id)
        refused = edits.stale(held, times) | (edits.imported_since(imports, seen) & set(values))
        values = {key: value for key, value in values.items() if key not in refused}
        edits.record(conn, survey.survey_id, rater, page.generation_id,
                     {key: time for key, time in times.items() if key not in refused})  # fmt: skip
        survey.task.answers.save(
            conn, survey.survey_id, rater, page.generation_id, values, source=source, now=now
        )
        complete = mark_if_complete(conn, survey.task, survey.survey_id, rater, page,
                                    set(required), now)  # fmt: skip
    return complete, refused


def edit_times(store: RunStore, survey_id: str, rater: str, generation_id: str) -> dict[str, int]:
    """question -> when the rater last edited its answer on the web (ms, their browser's clock)."""
    return edits.load(store.conn, survey_id, rater, generation_id)


def imports_seen(store: RunStore, survey: SurveyInfo, rater: str, generation_id: str) -> str:
    """The newest import a page of this poem drawn now shows (`edits.seen`); read before its
    answers, so an import between the two reads only makes the page's saves of it refused."""
    return edits.seen(
        survey.task.answers.imports(store.conn, survey.survey_id, rater, generation_id)
    )


def completed_positions(store: RunStore, survey_id: str, rater: str) -> set[int]:
    rows = store.query(
        "SELECT position FROM survey_assignments WHERE survey_id = ? AND rater_id = ? "
        "AND completed_at IS NOT NULL",
        [survey_id, rater],
    )
    return {row[0] for row in rows}


def progress(store: RunStore, survey_id: str) -> list[RaterProgress]:
    """Per rater: pages assigned and completed, answers, last answer, attention checks."""
    return rater_progress(store, load_survey(store, survey_id))


def unassigned(
    store: RunStore, survey_id: str, answers: Iterable[tuple[str, str]]
) -> dict[str, int]:
    """rater -> how many of the poems of these (rater, generation_id) answers the survey did not
    assign to that rater (none for a survey without assignments: ratings collected elsewhere)."""
    assigned = {
        (row[0], row[1])
        for row in store.query(
            "SELECT rater_id, generation_id FROM survey_assignments WHERE survey_id = ?",
            [survey_id],
        )
    }
    if not assigned:
        return {}
    off: dict[str, int] = {}
    for rater, poem in sorted(set(answers)):
        if (rater, poem) not in assigned:
            off[rater] = off.get(rater, 0) + 1
    return off


class ImportCounts(NamedTuple):
    """What `import_answers` stored: answers `new`, `replaced`, and of the replaced ones those
    `unchanged` in score and comment."""

    new: int
    replaced: int
    unchanged: int


def import_answers(
    store: RunStore,
    survey_id: str,
    rows: Iterable[tuple[str, str, str, float | None, str | None]],
    *,
    source: str,
    config: Mapping[str, Any],
) -> ImportCounts:
    """Store (rater, generation_id, question, score, text) rows under `survey_id` (created as
    a 'poemetric' survey when new; raters added as needed), in one transaction. `source` names
    the file (never `edits.WEB`: a page drawn before the import must not store over them).
    Returns the new answers, the replaced ones and how many of those held the same score and
    comment already (the same file imported again: replaced, so timed as this import). No rows at all (for an expert survey) raise
    `NoAnswersError` and store nothing; a `source` named `edits.WEB` raises `SurveyError`."""
    if source == edits.WEB:
        # Stored as web answers, they would read as given in the browser: a page drawn before
        # the import could store over them, and their raters' checks would not read "imported".
        raise SurveyError(
            f"an import cannot be named {source!r}: that names the answers given in the "
            "browser; rename the file and import it again"
        )
    rows = list(rows)
    new = replaced = unchanged = 0
    touched: set[str] = set()
    with store.transaction() as conn:
        # Taken once the write lock is held: imports store in the order of their times, so a
        # page that shows one import's answers (`edits.seen`) sees every earlier one too.
        now = utc_now()
        conn.execute(
            "INSERT OR IGNORE INTO surveys VALUES (?, 'poemetric', NULL, ?, ?)",
            (survey_id, json.dumps(dict(config)), now),
        )
        kind = conn.execute("SELECT task FROM surveys WHERE survey_id = ?", (survey_id,)).fetchone()
        if kind[0] != "poemetric":
            raise SurveyError(
                f"survey {survey_id!r} is a {kind[0]!r} survey, not the expert survey these "
                "ratings belong to; choose another --survey"
                + (" (line grades: `poemetric ghostwriting import-lines`)" if kind[0] == "lines"
                   else "")
            )  # fmt: skip
        if not rows:
            raise NoAnswersError(f"no answers to import into survey {survey_id!r}")
        survey_task = task("poemetric")
        for rater, gid, question, score, text in rows:
            conn.execute(
                "INSERT OR IGNORE INTO survey_raters VALUES (?, ?, ?)", (survey_id, rater, now)
            )
            exists = conn.execute(
                "SELECT score, text FROM survey_answers WHERE survey_id = ? AND rater_id = ? "
                "AND generation_id = ? AND question = ?",
                (survey_id, rater, gid, question),
            ).fetchone()
            unchanged += exists is not None and (exists[0], exists[1] or "") == (score, text or "")
            conn.execute(
                "INSERT OR REPLACE INTO survey_answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (survey_id, rater, gid, question, score, text, source, now),
            )
            replaced += exists is not None
            new += exists is None
            touched.add(rater)
        complete_pages(conn, survey_task, survey_id, touched, now)
    return ImportCounts(new, replaced, unchanged)


def complete_merged(store: RunStore, survey_id: str) -> int:
    """Mark the survey's pages that their answers complete once `merge` united the answers of
    two stores (half a page answered on each machine); returns how many. What
    `poemetric.store.merge.merge_runs` takes as `complete_pages`: the store cannot tell which
    answers a page requires, its task can. A survey of a task this POEMetric does not know
    keeps its pages as merged."""
    try:
        survey = load_survey(store, survey_id)
    except SurveyError:
        return 0
    return complete_united(store.conn, survey.task, survey_id, utc_now())
