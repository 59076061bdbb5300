"""The line-level fluency / coherence task in the survey app (`survey build --task lines`).

One page per poem shows its lines; the rater grades each line's fluency and (after the first
line) coherence on the paper's scale: strongly (1), weakly (0.5), not (0). The task data is a
`LineTask` (poemetric.annotation.task) stored with the survey, sheet id `survey-SURVEY`, so the
web pages, printed sheets and `ghostwriting import-lines` all check grades against the same
lines. Grades are kept in `line_annotations`, where the analysis finds imported sheets too: one
table, one scoring path (poemetric.ghostwriting.fluency). Question keys name a line and scale:
`line_3_fluency`, `line_3_coherence`.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from poemetric.annotation.grades import LineGrade, store_line_grades, stored_line_grades
from poemetric.annotation.task import META_PREFIX, LineItem, LineTask, line_items, stored_task
from poemetric.reliability import Rating
from poemetric.store import RunStore, utc_now
from poemetric.survey.answers import Answer
from poemetric.survey.edits import WEB
from poemetric.survey.instrument import Instrument
from poemetric.survey.tasks import Page, Question

GRADE_OPTIONS: tuple[tuple[float, str], ...] = ((1, "strongly"), (0.5, "weakly"), (0, "not"))
SCALE = [0.0, 0.5, 1.0]
_KEY = re.compile(r"line_([1-9][0-9]*)_(fluency|coherence)")

_INSTRUCTIONS = (
    "Each page shows one poem, line by line. Grade every line twice, by choosing strongly, "
    "weakly or not.",
    "Fluency: is the line a valid English utterance? Strongly fluent; weakly fluent (fluent "
    "only in parts, disjointed); not fluent (highly incoherent text).",
    "Coherence: how believable is it that the line follows the line before it? Strongly, "
    "weakly or not coherent. The first line has no line before it, and a line that repeats the "
    "line before it is not coherent by rule: neither asks for a coherence grade.",
    "The poems are shown without their authors and in a random order. Judge each line as it "
    "stands; do not guess who wrote it.",
)
_PREFACE = "Grade the fluency and coherence of every line."
LINE_INSTRUMENT = Instrument(
    title="Line by line: fluency and coherence",
    instructions=_INSTRUCTIONS,
    questions_preface=_PREFACE,
    sha256=hashlib.sha256("\n\n".join((*_INSTRUCTIONS, _PREFACE)).encode()).hexdigest(),
)


def sheet_id_for(survey_id: str) -> str:
    return f"survey-{survey_id}"


def question_key(number: int, scale: str) -> str:
    return f"line_{number}_{scale}"


@dataclass(frozen=True)
class LineRow:
    """One line of a page as the template shows it."""

    number: int
    text: str
    fluency: Question
    coherence: Question | None
    fixed: str  # why coherence is not asked, when it is not


class LineAnswers:
    """A line survey's answers as rows of `line_annotations` (sheet `survey-SURVEY`, annotator =
    rater). The first answer on a poem stores every line of it, ungraded lines as NULL and
    rule-fixed coherence filled in, so the analysis can tell a finished poem from one in
    progress."""

    def __init__(self, sheet: LineTask) -> None:
        self.sheet = sheet
        self.items = {item.generation_id: item for item in sheet.items}

    def load(
        self, conn: sqlite3.Connection, survey_id: str, rater: str, generation_id: str | None = None
    ) -> dict[str, dict[str, Answer]]:
        out: dict[str, dict[str, Answer]] = {}
        stored = stored_line_grades(
            conn, self.sheet.sheet_id, annotator=rater, generation_id=generation_id
        )
        for grade, _ in stored:
            answers = out.setdefault(grade.generation_id, {})
            for scale, value in self.given(grade):
                answers[question_key(grade.line_number, scale)] = (value, None)
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
        item = self.items[generation_id]
        stored = stored_line_grades(
            conn, self.sheet.sheet_id, annotator=rater, generation_id=generation_id
        )
        current = {grade.line_number: grade for grade, _ in stored}
        changed = {
            number: LineGrade(
                self.sheet.sheet_id,
                rater,
                generation_id,
                number,
                None,
                item.fixed_coherence(number),
                source,
            )
            for number in range(1, len(item.lines) + 1)
            if number not in current
        }
        for key, (score, _) in values.items():
            match = _KEY.fullmatch(key)
            if match is None:
                raise ValueError(f"not a line question: {key!r}")
            number, scale = int(match[1]), match[2]
            if not 1 <= number <= len(item.lines):
                raise ValueError(f"poem {generation_id} has no line {number}")
            if scale == "coherence" and not item.asks_coherence(number):
                raise ValueError(f"line {number}: coherence is fixed by rule")
            base = changed.get(number) or current[number]
            if scale == "fluency":
                changed[number] = replace(base, fluency=score, source=source)
            else:
                changed[number] = replace(base, coherence=score, source=source)
        store_line_grades(conn, changed.values(), now)

    def activity(
        self, conn: sqlite3.Connection, survey_id: str
    ) -> dict[str, tuple[int, str | None]]:
        out: dict[str, tuple[int, str | None]] = {}
        for grade, updated_at in stored_line_grades(conn, self.sheet.sheet_id):
            count, last = out.get(grade.annotator, (0, None))
            count += len(self.given(grade))
            out[grade.annotator] = (count, max(filter(None, (last, updated_at)), default=None))
        return out

    def imports(
        self, conn: sqlite3.Connection, survey_id: str, rater: str, generation_id: str
    ) -> dict[str, str]:
        """Both grades of a line imported from a sheet (`ghostwriting import-lines`), till a web
        save of either makes its row a web row (`source` is kept per line, not per grade)."""
        stored = stored_line_grades(
            conn, self.sheet.sheet_id, annotator=rater, generation_id=generation_id
        )
        return {
            question_key(grade.line_number, scale): updated_at
            for grade, updated_at in stored
            if grade.source != WEB
            for scale, _ in self.given(grade)
        }

    def given(self, grade: LineGrade) -> list[tuple[str, float]]:
        """The grades of a row that the rater gave (not those fixed by rule, not missing ones)."""
        item = self.items.get(grade.generation_id)
        given = [("fluency", grade.fluency)]
        if item is not None and item.asks_coherence(grade.line_number):
            given.append(("coherence", grade.coherence))
        return [(scale, value) for scale, value in given if value is not None]


class LineSurvey:
    """The task; bound to a survey (`for_survey`), it knows the survey's lines."""

    name = "lines"
    template = "task_lines.html"
    instrument = LINE_INSTRUMENT
    attention_checks = False
    unit = "line"
    agreement_note = (
        "Units are lines; fluency and coherence on 1 / 0.5 / 0. Coherence fixed by rule (first "
        "and repeated lines) is left out. PAo is the paper's raw agreement. The CIs resample "
        "lines, which are not independent within a poem: read them as optimistic."
    )

    def __init__(self, sheet: LineTask | None = None) -> None:
        self.sheet = sheet or LineTask("", "", [])
        self.answers = LineAnswers(self.sheet)

    def for_survey(self, store: RunStore, survey_id: str) -> LineSurvey:
        sheet = stored_task(store, sheet_id_for(survey_id))
        if sheet is None:
            raise ValueError(
                f"survey {survey_id!r} lacks its lines (meta {META_PREFIX}{sheet_id_for(survey_id)})"
            )
        return LineSurvey(sheet)

    def prepare(self, store: RunStore, survey_id: str, poems: Sequence[str]) -> dict[str, Any]:
        marks = ",".join("?" * len(poems))
        rows = store.query(
            f"SELECT generation_id, poem FROM generations WHERE generation_id IN ({marks})", poems
        )
        texts = {row["generation_id"]: row["poem"] or "" for row in rows}
        sheet = LineTask(
            sheet_id_for(survey_id), utc_now(), line_items([(g, texts[g]) for g in poems])
        )
        return {META_PREFIX + sheet.sheet_id: sheet.to_dict()}

    def item(self, page: Page) -> LineItem | None:
        return self.answers.items.get(page.generation_id)

    def rows(self, page: Page) -> list[LineRow]:
        item = self.item(page)
        if item is None:
            return []
        rows = []
        for number, text in enumerate(item.lines, start=1):
            coherence = None
            if item.asks_coherence(number):
                coherence = _grade_question(number, text, "coherence")
            fixed = "— (first line)" if number == 1 else f"not (repeats line {number - 1})"
            rows.append(LineRow(number, text, _grade_question(number, text, "fluency"), coherence,
                                "" if coherence else fixed))  # fmt: skip
        return rows

    def questions(self, page: Page) -> list[Question]:
        out: list[Question] = []
        for row in self.rows(page):
            out += [row.fluency, *([row.coherence] if row.coherence else [])]
        return out

    def ratings(self, conn: sqlite3.Connection, survey_id: str) -> tuple[list[Rating], list[float]]:
        ratings = [
            Rating(f"{grade.generation_id}:{grade.line_number}", grade.annotator, scale, value)
            for grade, _ in stored_line_grades(conn, self.sheet.sheet_id)
            for scale, value in self.answers.given(grade)
        ]
        return ratings, SCALE


def _grade_question(number: int, text: str, scale: str) -> Question:
    return Question(
        key=question_key(number, scale),
        label=str(number),
        text=text,
        kind="choice",
        options=GRADE_OPTIONS,
        required=True,
        name=f"Line {number} ({scale})",
    )
