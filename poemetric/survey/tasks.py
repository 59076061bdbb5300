"""Survey tasks: what a rater answers about one page (a poem with its generation prompt).

A task turns a page into questions and validates answers; the web app, the printed sheets and
the admin page's agreement only talk to this interface. The POEMetric expert survey (Appendix C)
is the first task. A new kind of rating, e.g. per-line fluency / coherence (1 / 0.5 / 0), is a
new `Task` (its questions can depend on the poem's lines) plus a template partial
`templates/task_<name>.html`, registered in `TASKS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Protocol

from poemetric.judge.answer import QUESTION_FIELDS
from poemetric.survey.instrument import Instrument, appendix_c_survey

ATTENTION_KEY = "attention_check"
#: Longest comment accepted (characters); the form says so too.
MAX_TEXT_CHARS = 10_000


class AnswerError(ValueError):
    """An answer that is not one of the question's options (or too long, or not text)."""


@dataclass(frozen=True)
class Question:
    key: str  # stored as survey_answers.question
    label: str  # number shown to the rater ("1", "13", "✓")
    text: str
    kind: Literal["choice", "text"]
    options: tuple[tuple[int, str], ...] = ()
    bullets: tuple[str, ...] = ()
    required: bool = False

    def parse(self, raw: str) -> tuple[float | None, str | None]:
        """(score, text) of a submitted value; AnswerError when it is not acceptable."""
        if self.kind == "choice":
            allowed = {str(value): float(value) for value, _ in self.options}
            if raw not in allowed:
                raise AnswerError(
                    f"question {self.label}: {raw[:20]!r} is not one of " + ", ".join(allowed)
                )
            return allowed[raw], None
        if len(raw) > MAX_TEXT_CHARS:
            raise AnswerError(
                f"question {self.label}: {len(raw)} characters, at most {MAX_TEXT_CHARS}"
            )
        if "\x00" in raw:
            raise AnswerError(f"question {self.label}: NUL characters are not text")
        return None, raw.replace("\r\n", "\n")


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
    #: Jinja template (in templates/) rendering this task's questions for one page.
    template: str
    instrument: Instrument

    def questions(self, page: Page) -> list[Question]: ...

    def agreement_items(self) -> tuple[tuple[str, ...], list[float], float | None]:
        """Scored question keys, their scale, and the value meaning N/A (None: no N/A)."""
        ...


class PoemetricSurvey:
    """The 10 Likert items and 3 comments of Appendix C, verbatim, plus an optional
    instructed-response attention check on chosen pages."""

    name = "poemetric"
    template = "task_poemetric.html"

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
        )
        # After question 6, so that it sits among the statements it checks attention to.
        return [*self._questions[:6], check, *self._questions[6:]]

    def agreement_items(self) -> tuple[tuple[str, ...], list[float], float | None]:
        keys = tuple(q.key for q in self._questions if q.kind == "choice")
        return keys, [1.0, 2.0, 3.0, 4.0, 5.0], 0.0


TASKS: dict[str, Task] = {}


def task(name: str) -> Task:
    """The task of that name (built on first use)."""
    if not TASKS:
        TASKS["poemetric"] = PoemetricSurvey()
    if name not in TASKS:
        raise ValueError(f"unknown survey task {name!r}; tasks: {', '.join(TASKS)}")
    return TASKS[name]


def finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
