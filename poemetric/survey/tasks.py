"""Survey tasks: what a rater answers about one page (a poem with its generation prompt).

A task turns a page into questions and validates answers, names the template partial that
renders a page (`templates/task_<name>.html`), keeps its answers in an `AnswerStore`, and gives
the admin page its ratings for agreement; the web app, the printed sheets and the admin page
only talk to this interface. Two tasks: the POEMetric expert survey (Appendix C) and the
line-level fluency / coherence task of the ghostwriting evaluation (`poemetric.survey.lines`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from poemetric.questionnaire import QUESTION_FIELDS
from poemetric.reliability import Rating
from poemetric.store import RunStore
from poemetric.survey.answers import AnswerStore, SurveyAnswerTable
from poemetric.survey.instrument import Instrument, appendix_c_survey

ATTENTION_KEY = "attention_check"
#: The stored score of an N/A answer (items 7 and 8).
NA_SCORE = 0.0
#: Longest comment accepted (characters); the form says so too.
MAX_TEXT_CHARS = 10_000


class AnswerError(ValueError):
    """An answer that is not one of the question's options (or too long, or not text)."""


class TextTooLong(AnswerError):
    """A comment over MAX_TEXT_CHARS: refused whole (never cut), so the page can keep it."""


def over_limit(text: str) -> int:
    """Characters of a comment over MAX_TEXT_CHARS (0 within it), counted as stored and as the
    page counts them: a CRLF line break once."""
    return max(len(text.replace("\r\n", "\n")) - MAX_TEXT_CHARS, 0)


def long_comments(path: object, answers: Iterable[tuple[int, str, str | None]]) -> list[str]:
    """'PATH:LINE: ...' for each (line, question, text) imported whose comment the survey page
    would refuse: stored, it could not be saved on the page until shortened there."""
    return [
        f"{path}:{line}: {question}: {MAX_TEXT_CHARS + extra:,} characters is {extra:,} over the limit of {MAX_TEXT_CHARS:,} that the survey page "
        "allows; shorten it"
        for line, question, text in answers
        if text and (extra := over_limit(text))
    ]


def stored_over_limit(
    questions: Iterable[Question], stored: dict[str, tuple[float | None, str | None]]
) -> dict[str, str]:
    """question -> the note beside a stored comment over the limit (imported before `survey
    import` refused them): kept as it is while the rater leaves it unchanged (`unchanged`),
    the rest of the page saved as usual, and asked to shorten it to change it."""
    notes = {}
    for question in questions:
        text = stored.get(question.key, (None, None))[1]
        if question.kind == "text" and text and (extra := over_limit(text)):
            notes[question.key] = (
                f"Question {question.label}: this comment was stored before the survey had a "
                f"length limit and has {MAX_TEXT_CHARS + extra:,} characters, {extra:,} over the "
                f"limit of {MAX_TEXT_CHARS:,}. It is kept as it is while you leave it unchanged, "
                f"and the rest of the page saves as usual; to change it, please shorten it to "
                f"{MAX_TEXT_CHARS:,} characters or fewer."
            )
    return notes


def unchanged(stored: str | None, sent: str) -> bool:
    """Whether a comment sent back by the page is the stored one as drawn (a form sends line
    breaks as CRLF, and a textarea drops the line break its text starts with)."""
    if stored is None:
        return False
    drawn, text = (t.replace("\r\n", "\n").replace("\r", "\n") for t in (stored, sent))
    return text in (drawn, drawn.removeprefix("\n"))


def option_value(value: float) -> str:
    """How a choice is written in the form: 1, 0.5, 0 (never 1.0)."""
    return f"{value:g}"


@dataclass(frozen=True)
class Question:
    key: str  # how its answer is stored (a survey_answers.question, a line and scale)
    label: str  # number shown to the rater ("1", "13", "✓")
    text: str
    kind: Literal["choice", "text"]
    options: tuple[tuple[float, str], ...] = ()
    bullets: tuple[str, ...] = ()
    required: bool = False
    #: How the rater is told an answer is missing (default "Question LABEL").
    name: str = ""

    @property
    def missing(self) -> str:
        return f"{self.name or f'Question {self.label}'} needs an answer."

    def parse(self, raw: str) -> tuple[float | None, str | None]:
        """(score, text) of a submitted value; AnswerError when it is not acceptable."""
        if self.kind == "choice":
            allowed = {option_value(value): float(value) for value, _ in self.options}
            if raw not in allowed:
                raise AnswerError(
                    f"{self.name or f'question {self.label}'}: {raw[:20]!r} is not one of "
                    + ", ".join(allowed)
                )
            return allowed[raw], None
        # Counted as stored (a form sends each line break as CRLF; the page counts one).
        text = raw.replace("\r\n", "\n")
        if extra := over_limit(text):
            raise TextTooLong(
                f"Question {self.label}: not saved, {len(text):,} characters is "
                f"{extra:,} over the limit of {MAX_TEXT_CHARS:,}; shorten it and save again"
            )
        if "\x00" in raw:
            raise AnswerError(f"question {self.label}: NUL characters are not text")
        return None, text


@dataclass(frozen=True)
class Page:
    """One page of a rater's survey."""

    position: int
    generation_id: str
    prompt: str
    poem: str
    check_expected: int | None = None


class Task(Protocol):
    name: str
    #: Jinja template (in templates/) rendering the content of one page.
    template: str
    #: Whether `survey build --attention-checks` can add instructed-response items.
    attention_checks: bool
    #: What the admin page's agreement is over ("poem", "line") and how to read it.
    unit: str
    agreement_note: str

    @property
    def instrument(self) -> Instrument:
        """Title and instructions shown to raters."""
        ...

    @property
    def answers(self) -> AnswerStore: ...

    def for_survey(self, store: RunStore, survey_id: str) -> Task:
        """The task bound to one stored survey (a task whose pages depend on data stored with
        the survey loads it here)."""
        ...

    def prepare(self, store: RunStore, survey_id: str, poems: Sequence[str]) -> dict[str, Any]:
        """Meta entries to store with a new survey of these generation ids (key -> JSON)."""
        ...

    def questions(self, page: Page) -> list[Question]: ...

    def ratings(self, conn: sqlite3.Connection, survey_id: str) -> tuple[list[Rating], list[float]]:
        """The answers that enter rater-vs-rater agreement (score None = N/A), and the scale."""
        ...


class PoemetricSurvey:
    """The 10 Likert items and 3 comments of Appendix C, verbatim, plus an optional
    instructed-response attention check on chosen pages."""

    name = "poemetric"
    template = "task_poemetric.html"
    answers: AnswerStore = SurveyAnswerTable()
    attention_checks = True
    unit = "poem"
    agreement_note = (
        "N/A counts as a category for PAo and adjacent agreement, as missing otherwise "
        "(docs/agreement.md)."
    )

    def __init__(self) -> None:
        self.instrument = appendix_c_survey()
        self._questions = [
            Question(
                key=QUESTION_FIELDS[q.number],
                label=str(q.number),
                text=q.text,
                kind="choice" if q.options else "text",
                options=q.options,
                bullets=q.bullets,
                required=q.required,
            )
            for q in self.instrument.questions
        ]
        self.likert = next(q.options for q in self._questions if q.key == "form")

    def questions(self, page: Page) -> list[Question]:
        if page.check_expected is None:
            return list(self._questions)
        label = dict(self.likert)[page.check_expected]
        check = Question(
            key=ATTENTION_KEY,
            label="✓",
            text=(
                "Attention check (not part of the rating): to show that you read every "
                f'statement, please select "{page.check_expected} - {label}" here. (Required)'
            ),
            kind="choice",
            options=self.likert,
            required=True,
            # Not "Question ✓ needs an answer." in the list of unanswered questions.
            name="The attention check",
        )
        # After question 6, so that it sits among the statements it checks attention to.
        return [*self._questions[:6], check, *self._questions[6:]]

    def for_survey(self, store: RunStore, survey_id: str) -> Task:
        return self

    def prepare(self, store: RunStore, survey_id: str, poems: Sequence[str]) -> dict[str, Any]:
        return {}

    def ratings(self, conn: sqlite3.Connection, survey_id: str) -> tuple[list[Rating], list[float]]:
        """The 10 items' answers item by item (the order of the agreement rows), then by rater
        and poem. The bootstrap resamples the poems in the order of their ids whatever the
        order here (`Ratings`), so the admin page's intervals are `analyze`'s agreement_experts'."""
        keys = [q.key for q in self._questions if q.kind == "choice"]
        rows = conn.execute(
            f"SELECT rater_id, generation_id, question, score FROM survey_answers "
            f"WHERE survey_id = ? AND question IN ({','.join('?' * len(keys))}) "
            "AND score IS NOT NULL",
            [survey_id, *keys],
        )
        ratings = [
            Rating(r["generation_id"], r["rater_id"], r["question"],
                   None if r["score"] == NA_SCORE else float(r["score"]))
            for r in rows
        ]  # fmt: skip
        order = {key: index for index, key in enumerate(keys)}
        ratings.sort(key=lambda r: (order[r.item], r.rater, r.unit))
        return ratings, [1.0, 2.0, 3.0, 4.0, 5.0]


TASKS: dict[str, Task] = {}


def task(name: str) -> Task:
    """The task of that name (built on first use)."""
    if not TASKS:
        from poemetric.survey.lines import LineSurvey

        TASKS["poemetric"] = PoemetricSurvey()
        TASKS["lines"] = LineSurvey()
    if name not in TASKS:
        raise ValueError(f"unknown survey task {name!r}; tasks: {', '.join(TASKS)}")
    return TASKS[name]
