"""The POEMetric questionnaire (paper Sec. 4.1, App. C) and the validated answer to it: the
schema of every stored judgment, the experts' too, read by the judge, the survey, the analysis
and the report.

The parser that reads what LLM judges really return lives in `poemetric.judge.parse`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Group = Literal["basic", "advanced", "appraisal"]


@dataclass(frozen=True)
class Dimension:
    """One Likert item of the questionnaire (a POEMetric dimension).

    `long_label` is the item's statement as the judge prompt prints it (App. C, verbatim), and
    `listed` the list printed under it (item 8's literary devices). `label` names the item in
    tables, figures and the report (its poem browser too): `short_label` unless that misleads
    (left empty, it is set to `short_label`); `short_label` is otherwise a name the parser
    accepts for the item in a judge's answer.
    """

    key: str
    question: int
    short_label: str
    long_label: str
    allows_na: bool
    group: Group
    listed: tuple[str, ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.short_label)

    @property
    def statement(self) -> str:
        """The item as the instrument prints it: its statement, then its list, one per line."""
        return self.long_label + "".join(f"\n- {item}" for item in self.listed)


@dataclass(frozen=True)
class CommentItem:
    """One open-ended item; `about` is the question number it explains."""

    key: str
    question: int
    about: int


#: The 10 scored dimensions in questionnaire order (paper Sec. 4.1, App. C).
DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("form", 1, "Form", "The poem follows the given prompt in terms of form, including meter and rhyme where applicable.", False, "basic"),
    Dimension("theme", 2, "Theme", "The poem follows the given prompt in terms of its theme.", False, "basic"),
    Dimension("vocabulary", 3, "Vocabulary", "The poem uses a varied vocabulary.", False, "advanced"),
    Dimension("creativity", 4, "Creativity", "The poem is a creative work.", False, "advanced"),
    Dimension("idiosyncrasy", 5, "Idiosyncrasy", "This poem shows idiosyncrasy.", False, "advanced"),
    Dimension("emotional_resonance", 6, "Emotion", "This poem evokes emotional resonance.", False, "advanced"),
    Dimension("imagery", 7, "Imagery", "The imagery in this poem is used well.", True, "advanced"),
    Dimension("literary_devices", 8, "Devices", "At least one of the literary devices listed below is used well in the poem.", True, "advanced", ("Simile", "Metaphor", "Personification", "Allusion")),
    Dimension("overall_quality", 10, "Quality", "This is a good poem.", False, "appraisal"),
    # Labelled "Human", the item stood beside the row "Human" (the human poets) in
    # `dimension_matrix`, above the bars of Figs. 8 and 17 and beside the bars of "Poem B
    # (Human)" in Fig. 3, and as "Why human (Q13)" above a judge's comment in the report's
    # poem browser; the paper calls it "human authorship (estimation)" (Sec. 6.2).
    Dimension("human_authorship", 12, "Human", "The poem is written by a human.", False, "appraisal", label="Human authorship"),
)  # fmt: skip

COMMENTS: tuple[CommentItem, ...] = (
    CommentItem("comment_literary_devices", 9, 8),
    CommentItem("comment_overall_quality", 11, 10),
    CommentItem("comment_human_authorship", 13, 12),
)

DIMENSION_KEYS: tuple[str, ...] = tuple(d.key for d in DIMENSIONS)
DIMENSIONS_BY_KEY: dict[str, Dimension] = {d.key: d for d in DIMENSIONS}
GROUPS: dict[Group, tuple[str, ...]] = {
    group: tuple(d.key for d in DIMENSIONS if d.group == group)
    for group in ("basic", "advanced", "appraisal")
}
QUESTION_FIELDS: dict[int, str] = {
    **{d.question: d.key for d in DIMENSIONS},
    **{c.question: c.key for c in COMMENTS},
}
#: Likert labels printed in the prompt; an answer that gives only the label maps exactly.
LIKERT_LABELS: dict[str, int] = {
    "strongly disagree": 1,
    "disagree": 2,
    "neutral": 3,
    "agree": 4,
    "strongly agree": 5,
}
NA_WORDS = frozenset({"n/a", "na", "none", "not applicable", "n.a."})


class JudgeParseError(ValueError):
    """The response holds no usable questionnaire answer; `problems` lists each failed item."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


Score = Field(ge=1, le=5)
ScoreOrNA = Field(ge=0, le=5)


class JudgeAnswer(BaseModel):
    """A validated answer to the 13 questions. 0 means N/A (imagery and literary devices only).

    A comment is None when the answer did not give it (the survey makes comments optional).
    """

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    form: int = Score
    theme: int = Score
    vocabulary: int = Score
    creativity: int = Score
    idiosyncrasy: int = Score
    emotional_resonance: int = Score
    imagery: int = ScoreOrNA
    literary_devices: int = ScoreOrNA
    overall_quality: int = Score
    human_authorship: int = Score
    comment_literary_devices: str | None = None
    comment_overall_quality: str | None = None
    comment_human_authorship: str | None = None

    def scores(self) -> dict[str, int]:
        """The 10 scores by dimension key (0 = N/A)."""
        return {key: int(getattr(self, key)) for key in DIMENSION_KEYS}

    def comments(self) -> dict[str, str]:
        """The comments given, by question number ("9", "11", "13")."""
        given = {str(c.question): getattr(self, c.key) for c in COMMENTS}
        return {number: text for number, text in given.items() if text is not None}

    def scores_by_question(self) -> dict[str, int]:
        """The 10 scores keyed by question number ("1" ... "12"), as the survey codes them."""
        return {str(d.question): int(getattr(self, d.key)) for d in DIMENSIONS}

    def to_columns(self) -> dict[str, int | str | None]:
        """Values for the `judgments` table columns of the same names."""
        columns: dict[str, int | str | None] = dict(self.scores())
        for comment in COMMENTS:
            columns[comment.key] = getattr(self, comment.key)
        return columns
