"""How `merge` combines the survey tables (`poemetric.survey.db`) of a source store (attached as
`src`) with the destination's: surveys, their raters, their pages (`survey_assignments`, with the
attention check each page asks for), answers and answer edit times (`survey_edits`).

* A survey new to the destination is copied whole.
* A survey in both stores that was built alike (task, seed, settings and every rater's pages; for
  surveys made by `survey import` alone, the task) is one survey: raters and pages are united (a
  page completed in either store is completed), and answers too. An answer stored in both with
  the same score and text is kept once (where and when it was stored aside); a page answered
  half in each store is complete once the answers are united, which the survey's task decides
  (the caller's `complete`: `poemetric.survey.db.complete_merged`, a layer above); a rater's two
  different answers to one question are a conflict: the destination's answer stays, and the
  survey is named (`SurveyConflict`) with what to do.
* A survey built differently under one name (another seed or pages, a built survey beside an
  imported one) cannot be one survey, nor can a survey whose raters rated a poem that the
  destination holds with another text (a conflicting generation): the destination's survey is
  kept and the source's is left out whole, named with what to do.

Rater links are not stored but derived from RUN/survey-secret.key (`poemetric.survey.tokens`;
its name is `poemetric.paths.SURVEY_SECRET_FILE`, so that this store module needs no survey code):
`merge` copies a source's secret to a destination that has none, and names the surveys whose
links from a source with another secret do not open the merged run (`merge.py`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from poemetric.paths import survey_secret_path, write_secret_file
from poemetric.store.merge_tables import TableMerge, same_value, table_columns
from poemetric.store.poem_codes import keep_sheet_secret, sheet_secrets

__all__ = ["SURVEY_TABLES", "SurveyConflict", "carry_secret", "merge_surveys"]

#: The survey tables, in the order they are merged (each refers to the one before).
SURVEY_TABLES = (
    "surveys",
    "survey_raters",
    "survey_assignments",
    "survey_answers",
    "survey_edits",
)
_ANSWER_KEY = ("survey_id", "rater_id", "generation_id", "question")
_SHOWN = 3


@dataclass(frozen=True)
class SurveyConflict:
    """A survey of `source` that the merge could not take whole: left out (`whole`), or some of
    its answers (`answers` of them) differing from the destination's, which were kept."""

    survey_id: str
    source: Path
    reason: str
    whole: bool
    answers: int = 0
    #: Left out for its poems (a conflicting generation), not for being built otherwise.
    poems: bool = False


def merge_surveys(
    conn: sqlite3.Connection,
    source: Path,
    conflicts: list[SurveyConflict],
    complete: Callable[[str], int] | None = None,
) -> tuple[dict[str, TableMerge], list[str]]:
    """Merge `src`'s surveys into `main`'s (after the generations); conflicts are added to
    `conflicts`. `complete(survey)` marks the pages of a survey held by both stores that their
    united answers complete, and returns how many. Returns what happened to each table's rows,
    and the surveys merged (whole or with some answers differing)."""
    stats = {name: TableMerge() for name in SURVEY_TABLES}
    merged: list[str] = []
    for row in conn.execute("SELECT * FROM src.surveys ORDER BY created_at, survey_id").fetchall():
        incoming = _row(conn, "surveys", row)
        survey_id = str(incoming["survey_id"])
        found = conn.execute(
            "SELECT * FROM main.surveys WHERE survey_id = ?", (survey_id,)
        ).fetchone()
        reason = _other_poems(conn, survey_id)
        poems = reason is not None
        if reason is None and found is not None:
            reason = _built_otherwise(conn, _row(conn, "surveys", found), incoming)
        if reason is not None:
            conflicts.append(SurveyConflict(survey_id, source, reason, whole=True, poems=poems))
            stats["surveys"].conflicts += 1
            continue
        if found is None:
            _insert(conn, "surveys", incoming)
            stats["surveys"].copied += 1
        else:
            stats["surveys"].identical += 1
        _merge_rows(conn, survey_id, stats)
        differing = _merge_answers(conn, survey_id, stats["survey_answers"])
        _merge_edits(conn, survey_id, differing, stats["survey_edits"])
        if found is not None and complete is not None:
            marked = complete(survey_id)  # pages counted alike above, completed by the union
            stats["survey_assignments"].updated += marked
            stats["survey_assignments"].identical -= marked
        if differing:
            shown = "; ".join(differing[:_SHOWN]) + ("; ..." if len(differing) > _SHOWN else "")
            conflicts.append(
                SurveyConflict(survey_id, source, shown, whole=False, answers=len(differing))
            )
        merged.append(survey_id)
    return stats, merged


def _row(conn: sqlite3.Connection, table: str, row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(table_columns(conn, table), row, strict=True))


def _insert(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    conn.execute(
        f"INSERT INTO main.{table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        list(row.values()),
    )


def _other_poems(conn: sqlite3.Connection, survey_id: str) -> str | None:
    """Why the survey's answers would not rate the poems they rated in the merged store: a poem
    answered that the destination holds with another text, or a poem of its pages or answers
    that it does not hold. (A page not answered yet shows the merged store's poem.)"""
    rows = conn.execute(
        """
        SELECT x.generation_id, d.generation_id IS NULL FROM (
          SELECT generation_id, 0 AS rated FROM src.survey_assignments WHERE survey_id = :s
          UNION SELECT generation_id, 1 FROM src.survey_answers WHERE survey_id = :s) x
        JOIN src.generations g ON g.generation_id = x.generation_id
        LEFT JOIN main.generations d ON d.generation_id = x.generation_id
        WHERE d.generation_id IS NULL
          OR x.rated AND (d.poem IS NOT g.poem OR d.prompt_id IS NOT g.prompt_id)
        GROUP BY x.generation_id ORDER BY x.generation_id
        """,
        {"s": survey_id},
    ).fetchall()
    if not rows:
        return None
    shown = ", ".join(str(r[0]) for r in rows[:_SHOWN]) + (", ..." if len(rows) > _SHOWN else "")
    what = "is not" if all(r[1] for r in rows) else "has another text"
    return (
        f"{len(rows)} of the poems its raters rated ({shown}) {what} in the merged store "
        "(a conflicting generation: the destination's version was kept)"
    )


def _built_otherwise(
    conn: sqlite3.Connection, current: dict[str, Any], incoming: dict[str, Any]
) -> str | None:
    """How a survey of one name was built otherwise in the two stores (None: alike)."""
    survey_id = incoming["survey_id"]
    if current["task"] != incoming["task"]:
        return f"a {incoming['task']!r} survey there, a {current['task']!r} survey here"
    imported = current["seed"] is None and incoming["seed"] is None
    if not imported and current["seed"] != incoming["seed"]:
        return f"built with seed {incoming['seed']} there, {current['seed']} here"
    if not imported and not same_value(current["config"], incoming["config"]):
        return "built with other settings (raters, poems, checks or instrument)"
    pages = (
        "SELECT rater_id, position, generation_id, check_expected FROM {}.survey_assignments "
        "WHERE survey_id = ? ORDER BY 1, 2"
    )
    theirs = conn.execute(pages.format("src"), (survey_id,)).fetchall()
    ours = conn.execute(pages.format("main"), (survey_id,)).fetchall()
    if [tuple(r) for r in theirs] != [tuple(r) for r in ours]:
        return "its raters have other pages (poems, their order or attention checks)"
    return None


def _merge_rows(conn: sqlite3.Connection, survey_id: str, stats: dict[str, TableMerge]) -> None:
    """Unite the survey's raters and pages; a page completed in either store is completed."""
    total, copied = _copy_new(conn, "survey_raters", survey_id)
    stats["survey_raters"].copied += copied
    stats["survey_raters"].identical += total - copied
    pages = stats["survey_assignments"]
    total, copied = _copy_new(conn, "survey_assignments", survey_id)
    updated = conn.execute(
        "UPDATE main.survey_assignments AS d SET completed_at = s.completed_at "
        "FROM src.survey_assignments AS s WHERE d.survey_id = ? AND s.survey_id = d.survey_id "
        "AND s.rater_id = d.rater_id AND s.position = d.position "
        "AND d.completed_at IS NULL AND s.completed_at IS NOT NULL",
        (survey_id,),
    ).rowcount
    pages.copied += copied
    pages.updated += updated
    pages.identical += total - copied - updated


def _copy_new(conn: sqlite3.Connection, table: str, survey_id: str) -> tuple[int, int]:
    """Copy the survey's rows of `table` that the destination lacks (by its key); returns how
    many rows the source holds and how many were copied."""
    total = conn.execute(
        f"SELECT COUNT(*) FROM src.{table} WHERE survey_id = ?", (survey_id,)
    ).fetchone()[0]
    copied = conn.execute(
        f"INSERT OR IGNORE INTO main.{table} SELECT * FROM src.{table} WHERE survey_id = ?",
        (survey_id,),
    ).rowcount
    return int(total), int(copied)


def _merge_answers(conn: sqlite3.Connection, survey_id: str, stats: TableMerge) -> list[str]:
    """Copy the survey's answers new to the destination; returns the answers that differ (the
    destination's kept), described, and records their keys in temp.survey_differing."""
    conn.execute(
        "CREATE TEMP TABLE IF NOT EXISTS survey_differing "
        "(survey_id, rater_id, generation_id, question)"
    )
    conn.execute("DELETE FROM temp.survey_differing")
    key = " AND ".join(f"d.{k} = s.{k}" for k in _ANSWER_KEY)
    overlapping = conn.execute(
        "SELECT s.rater_id, s.generation_id, s.question, s.score, s.text, d.score, d.text "
        f"FROM src.survey_answers s JOIN main.survey_answers d ON {key} "
        "WHERE s.survey_id = ? ORDER BY 1, 2, 3",
        (survey_id,),
    ).fetchall()
    stats.copied += _copy_new(conn, "survey_answers", survey_id)[1]
    differing: list[str] = []
    for rater, poem, question, score, text, kept_score, kept_text in overlapping:
        if score == kept_score and same_value(text, kept_text):
            stats.identical += 1
            continue
        if _empty(score, text) != _empty(kept_score, kept_text):
            answer = (rater, poem, question)
            kept = _fills_empty(conn, survey_id, answer, _empty(kept_score, kept_text))
            if kept == "source":
                _replace_answer(conn, survey_id, answer)
                stats.updated += 1
                continue
            if kept == "destination":
                stats.identical += 1
                continue
        stats.conflicts += 1
        conn.execute(
            "INSERT INTO temp.survey_differing VALUES (?, ?, ?, ?)",
            (survey_id, rater, poem, question),
        )
        differing.append(
            f"{rater} on {poem}, {question}: {_shown(score, text)} there, "
            f"{_shown(kept_score, kept_text)} here"
        )
    return differing


def _empty(score: Any, text: Any) -> bool:
    """No answer: an empty comment box, which every page save stores (`''`) whether or not the
    rater ever typed in it; the admin page and `survey status` do not count it either."""
    return score is None and text in (None, "")


def _edited(conn: sqlite3.Connection, schema: str, survey_id: str, key: tuple[str, ...]) -> Any:
    found = conn.execute(
        f"SELECT edited_at FROM {schema}.survey_edits WHERE survey_id = ? AND rater_id = ? "
        "AND generation_id = ? AND question = ?",
        (survey_id, *key),
    ).fetchone()
    return None if found is None else found[0]


def _fills_empty(
    conn: sqlite3.Connection, survey_id: str, key: tuple[str, ...], kept_empty: bool
) -> str | None:
    """Where one store holds an empty comment and the other a comment: the store whose comment
    is kept ("source" or "destination"), unless the empty box is the later edit (the rater
    cleared the comment: a real difference, named as before), when None."""
    empty_in, text_in = ("main", "src") if kept_empty else ("src", "main")
    emptied = _edited(conn, empty_in, survey_id, key)
    written = _edited(conn, text_in, survey_id, key)
    if emptied is not None and (written is None or emptied > written):
        return None
    return "source" if kept_empty else "destination"


def _replace_answer(conn: sqlite3.Connection, survey_id: str, key: tuple[str, ...]) -> None:
    """The destination's empty answer `key` replaced by the source's (its edit time follows in
    `_merge_edits`, as for an answer copied)."""
    where = "survey_id = ? AND rater_id = ? AND generation_id = ? AND question = ?"
    conn.execute(f"DELETE FROM main.survey_answers WHERE {where}", (survey_id, *key))
    conn.execute(
        f"INSERT INTO main.survey_answers SELECT * FROM src.survey_answers WHERE {where}",
        (survey_id, *key),
    )


def _shown(score: Any, text: Any) -> str:
    if text not in (None, ""):
        short = str(text) if len(str(text)) <= 30 else str(text)[:29] + "…"
        return repr(short) if score is None else f"{score:g} {short!r}"
    if score is None:
        return "an empty comment" if text == "" else "no score"
    return f"{score:g}"


def _merge_edits(
    conn: sqlite3.Connection, survey_id: str, differing: list[str], stats: TableMerge
) -> None:
    """Keep the newest web edit time of each answer both stores hold alike, and copy those of
    answers copied; an answer that differs keeps the destination's time (its answer stayed)."""
    rows = conn.execute(
        "SELECT * FROM src.survey_edits s WHERE s.survey_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM temp.survey_differing x WHERE x.survey_id = s.survey_id "
        "AND x.rater_id = s.rater_id AND x.generation_id = s.generation_id "
        "AND x.question = s.question)",
        (survey_id,),
    ).fetchall()
    for row in rows:
        survey, rater, poem, question, edited_at = row
        found = _edited(conn, "main", survey, (rater, poem, question))
        if found is None:
            conn.execute("INSERT INTO main.survey_edits VALUES (?, ?, ?, ?, ?)", tuple(row))
            stats.copied += 1
        elif edited_at > found:
            conn.execute(
                "UPDATE main.survey_edits SET edited_at = ? WHERE survey_id = ? AND rater_id = ? "
                "AND generation_id = ? AND question = ?",
                (edited_at, survey, rater, poem, question),
            )
            stats.updated += 1
        else:
            stats.identical += 1
    if differing:
        stats.skipped += conn.execute(
            "SELECT COUNT(*) FROM src.survey_edits s JOIN temp.survey_differing x USING "
            "(survey_id, rater_id, generation_id, question)"
        ).fetchone()[0]


def carry_secret(destination: Path, merged: list[tuple[Path, list[str]]]) -> list[tuple[str, Path]]:
    """Give `destination` (a run folder) a survey secret when it has none: that of the first
    store folder in `merged` ((folder, surveys merged from it) each) with surveys and a secret,
    so that the links made there open the merged run, else that of the first with a secret (its
    line-annotation sheets, `ghostwriting sheets`, name their poems by codes under it). Every
    other secret of those folders is kept (`keep_sheet_secret`), so that the filled templates
    of the sheets printed there import into the merged run. Returns (survey, folder) for the
    surveys merged from a folder with another secret than the destination's: their links made
    there do not open it."""
    target = survey_secret_path(destination)
    sources = [
        (folder, surveys)
        for folder, surveys in merged
        if survey_secret_path(folder).is_file()
        and survey_secret_path(folder).resolve() != target.resolve()  # not the destination's
    ]
    if not target.exists() and sources:
        first = next((folder for folder, surveys in sources if surveys), sources[0][0])
        write_secret_file(target, survey_secret_path(first).read_bytes())
    relinked: list[tuple[str, Path]] = []
    for folder, surveys in sources:
        # The codes on the sheets printed there (and in runs merged into it) are under its
        # secrets: kept, so that their filled templates import into the merged run.
        for other in sheet_secrets(folder):
            keep_sheet_secret(destination, other)
        if target.read_bytes() != survey_secret_path(folder).read_bytes():
            relinked.extend((survey, folder) for survey in surveys)
    return relinked
