"""When a survey page is complete: once every answer its task requires is stored, its
`completed_at` is set (and never cleared). Three writers ask:

* a web save (`db.save_edits`): the page's required questions, its attention check included;
* an import (`survey import`, `ghostwriting import-lines`; `complete_pages`): a filled sheet has
  no attention check, so the imported raters' pages are complete without it;
* `poemetric merge` (`complete_united`): a page answered half on one machine and half on
  another was complete in neither store, but is once their answers are united. It asks what
  the web asks, except that a page holding imported answers is complete without its check, as
  the import would have marked it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from poemetric.survey.answers import answered
from poemetric.survey.tasks import ATTENTION_KEY, Page, Task

__all__ = ["complete_pages", "complete_united", "mark_if_complete", "page_rows"]


def page_rows(conn: sqlite3.Connection, survey_id: str, rater: str) -> list[Page]:
    """The rater's pages in their order, with the generation prompt and the poem."""
    rows = conn.execute(
        """
        SELECT a.position, a.generation_id, a.check_expected, p.text AS prompt, g.poem
        FROM survey_assignments a
        JOIN generations g ON g.generation_id = a.generation_id
        JOIN prompts p ON p.prompt_id = g.prompt_id
        WHERE a.survey_id = ? AND a.rater_id = ?
        ORDER BY a.position
        """,
        (survey_id, rater),
    )
    return [Page(r[0], r[1], r[3], r[4] or "", r[2]) for r in rows]


def mark_if_complete(
    conn: sqlite3.Connection,
    survey_task: Task,
    survey_id: str,
    rater: str,
    page: Page,
    required: set[str],
    now: str,
) -> bool:
    """Set the page's completed_at once every required question has an answer."""
    stored = survey_task.answers.load(conn, survey_id, rater, page.generation_id)
    if not required <= answered(stored.get(page.generation_id, {})):
        return False
    conn.execute(
        "UPDATE survey_assignments SET completed_at = COALESCE(completed_at, ?) "
        "WHERE survey_id = ? AND rater_id = ? AND position = ?",
        (now, survey_id, rater, page.position),
    )
    return True


def complete_pages(
    conn: sqlite3.Connection, survey_task: Task, survey_id: str, raters: Iterable[str], now: str
) -> None:
    """Mark the pages of `raters` that their stored answers complete (answers imported from a
    filled sheet rather than given on the web). Attention checks are web only: a printed sheet
    has none, so they are not required here."""
    for rater in raters:
        for page in page_rows(conn, survey_id, rater):
            required = {q.key for q in survey_task.questions(page) if q.required} - {ATTENTION_KEY}
            mark_if_complete(conn, survey_task, survey_id, rater, page, required, now)


def complete_united(conn: sqlite3.Connection, survey_task: Task, survey_id: str, now: str) -> int:
    """Mark the survey's pages not complete yet that their stored answers now complete (a merge
    united the answers of two stores); returns how many. A page without any answer is left as
    it is, and one holding an answer imported from a sheet needs no attention check."""
    open_pages: dict[str, set[int]] = {}
    for rater, position in conn.execute(
        "SELECT rater_id, position FROM survey_assignments WHERE survey_id = ? "
        "AND completed_at IS NULL ORDER BY rater_id, position",
        (survey_id,),
    ):
        open_pages.setdefault(str(rater), set()).add(int(position))
    marked = 0
    for rater, positions in open_pages.items():
        for page in page_rows(conn, survey_id, rater):
            if page.position not in positions:
                continue
            stored = survey_task.answers.load(conn, survey_id, rater, page.generation_id)
            if not answered(stored.get(page.generation_id, {})):
                continue
            required = {q.key for q in survey_task.questions(page) if q.required}
            if survey_task.answers.imports(conn, survey_id, rater, page.generation_id):
                required.discard(ATTENTION_KEY)
            marked += mark_if_complete(conn, survey_task, survey_id, rater, page, required, now)
    return marked
