"""The judge's answer to the POEMetric questionnaire, and a parser for what LLMs really return.

The judge prompt (POEMetric paper, App. C) asks 10 Likert items and 3 open comments and wants
`{"1": <score>, "2": <score>, ..., "9": "<comments>", ...}`. Real models wrap that object in
code fences or prose, think aloud first, use single quotes, trailing commas, `"Q1"` keys or
`"4 - Agree"` strings. The parser accepts all of those *forms*, but it is strict about the
*content*: a missing item, a score outside the scale, or `0` where N/A is not offered raises
`JudgeParseError` naming the item. It never guesses a score.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Group = Literal["basic", "advanced", "appraisal"]


@dataclass(frozen=True)
class Dimension:
    """One Likert item of the questionnaire (a POEMetric dimension)."""

    key: str
    question: int
    short_label: str
    long_label: str
    allows_na: bool
    group: Group


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
    Dimension("literary_devices", 8, "Devices", "At least one of the literary devices (simile, metaphor, personification, allusion) is used well in the poem.", True, "advanced"),
    Dimension("overall_quality", 10, "Quality", "This is a good poem.", False, "appraisal"),
    Dimension("human_authorship", 12, "Human", "The poem is written by a human.", False, "appraisal"),
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
    """A validated answer to the 13 questions. 0 means N/A (imagery and literary devices only)."""

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
    comment_literary_devices: str = ""
    comment_overall_quality: str = ""
    comment_human_authorship: str = ""

    def scores(self) -> dict[str, int]:
        """The 10 scores by dimension key (0 = N/A)."""
        return {key: int(getattr(self, key)) for key in DIMENSION_KEYS}

    def to_columns(self) -> dict[str, int | str]:
        """Values for the `judgments` table columns of the same names."""
        columns: dict[str, int | str] = dict(self.scores())
        for comment in COMMENTS:
            columns[comment.key] = str(getattr(self, comment.key))
        return columns


# -- locating the JSON object ------------------------------------------------------------------

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_QUESTION_KEY = re.compile(
    r"^\s*(?:q(?:uestion)?\s*[#_-]?\s*|item\s*)?(\d{1,2})(?:\s*[.):\-]|\s*$)", re.IGNORECASE
)


def _strip_reasoning(text: str) -> str:
    text = _THINK_BLOCK.sub(" ", text)
    # A response whose opening tag was eaten by the server still ends its thinking with a tag.
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    return text


def _balanced_objects(text: str) -> list[str]:
    """Every top-level `{...}` span, honouring quoted strings.

    A `'` opens a string only right after `{`, `,`, `:` or `[`, so the apostrophe in "poet's"
    inside prose or inside a double-quoted string is not mistaken for one.
    """
    spans: list[str] = []
    depth = 0
    start = -1
    quote: str | None = None
    escaped = False
    previous = ""  # last non-space character outside strings
    for index, char in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
                previous = char
            continue
        if depth > 0 and (char == '"' or (char == "'" and previous in "{,:[")):
            quote = char
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
        if not char.isspace():
            previous = char
    return spans


def _load_object(candidate: str) -> dict[Any, Any] | None:
    attempts = [candidate, re.sub(r",\s*([}\]])", r"\1", candidate)]
    for attempt in attempts:
        try:
            value = json.loads(attempt)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    # Python-literal syntax: single quotes, integer keys, trailing commas.
    python_like = re.sub(r"\btrue\b", "True", candidate)
    python_like = re.sub(r"\bfalse\b", "False", python_like)
    python_like = re.sub(r"\bnull\b", "None", python_like)
    for attempt in (python_like, _quote_bare_keys(python_like)):
        try:
            value = ast.literal_eval(attempt)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _quote_bare_keys(text: str) -> str:
    """`{Q1: 4, 2.: 5}` -> `{"Q1": 4, "2.": 5}`."""
    return re.sub(r"([{,]\s*)([A-Za-z_]*\d{1,2}\.?)\s*:", r'\1"\2":', text)


def _question_items(obj: Mapping[Any, Any]) -> dict[int, Any] | None:
    """Map question numbers to values; None when no key looks like a question number."""
    found: dict[int, Any] = {}
    duplicates: list[str] = []
    for key, value in obj.items():
        match = _QUESTION_KEY.match(str(key))
        if match is None:
            continue
        number = int(match.group(1))
        if number in found and found[number] != value:
            duplicates.append(f"item {number} is given twice with different values")
        found[number] = value
    if duplicates:
        raise JudgeParseError("; ".join(duplicates), duplicates)
    if found:
        return found
    # One level of nesting: {"answers": {"1": 4, ...}}.
    for value in obj.values():
        if isinstance(value, Mapping):
            nested = _question_items(value)
            if nested:
                return nested
    return None


def _find_answer_object(text: str) -> dict[int, Any]:
    body = _strip_reasoning(text)
    candidates = [c for block in _FENCE.findall(body) for c in _balanced_objects(block)]
    candidates += _balanced_objects(body)
    best: dict[int, Any] | None = None
    for candidate in candidates:
        obj = _load_object(candidate)
        if obj is None:
            continue
        items = _question_items(obj)
        # Prefer the object answering the most questions; later ones win ties (final answer).
        if items and (best is None or len(items) >= len(best)):
            best = items
    if best is None:
        if "{" in body and not candidates:
            raise JudgeParseError("the response has an unclosed JSON object (truncated output?)")
        raise JudgeParseError("no JSON object with numbered answers ('1' ... '13') was found")
    return best


# -- reading the values -------------------------------------------------------------------------

_LEADING_SCORE = re.compile(r"^\s*([0-9])(?:\s*/\s*5)?(?:\s*(?:[-–—:.)(,]|\s)\s*(.*))?$", re.DOTALL)


def _read_score(value: Any, dimension: Dimension) -> int:
    """The integer score in `value`, or ValueError saying why it is not acceptable."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{value!r} is not a score")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value} is not a whole score")
        value = int(value)
    if isinstance(value, str):
        value = _read_score_text(value, dimension)
    if not isinstance(value, int):
        raise ValueError(f"{value!r} is not a score")
    low = 0 if dimension.allows_na else 1
    if value == 0 and not dimension.allows_na:
        raise ValueError("0 (N/A) is not an option for this item")
    if not low <= value <= 5:
        raise ValueError(f"score {value} is outside {low}-5")
    return value


def _read_score_text(text: str, dimension: Dimension) -> int:
    cleaned = text.strip().strip("*").strip()
    lowered = cleaned.lower().rstrip(".")
    if lowered in LIKERT_LABELS:
        return LIKERT_LABELS[lowered]
    if lowered in NA_WORDS or lowered.startswith("n/a ("):
        if dimension.allows_na:
            return 0
        raise ValueError(f"{text!r} (N/A) is not an option for this item")
    match = _LEADING_SCORE.match(cleaned)
    if match is None:
        raise ValueError(f"{text!r} holds no score")
    score = int(match.group(1))
    label = (match.group(2) or "").strip().strip("()").strip().lower().rstrip(".")
    label = re.sub(r"\s*\(.*\)$", "", label)
    expected = LIKERT_LABELS.get(label)
    if label and label.startswith("n/a"):
        expected = 0
    if expected is not None and expected != score:
        raise ValueError(f"{text!r} contradicts itself (score {score}, label {label!r})")
    return score


def _read_comment(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(v.strip() for v in value)
    raise ValueError(f"a comment must be text, not {type(value).__name__}")


def parse_judge_response(text: str, *, require_comments: bool = True) -> JudgeAnswer:
    """Parse a judge's raw response into a validated `JudgeAnswer`.

    Raises `JudgeParseError` listing every item that is missing or invalid.
    """
    if not text or not text.strip():
        raise JudgeParseError("the response is empty")
    items = _find_answer_object(text)
    problems: list[str] = []
    values: dict[str, int | str] = {}
    for dimension in DIMENSIONS:
        label = f"item {dimension.question} ({dimension.key})"
        if dimension.question not in items:
            problems.append(f"{label} is missing")
            continue
        try:
            values[dimension.key] = _read_score(items[dimension.question], dimension)
        except ValueError as exc:
            problems.append(f"{label}: {exc}")
    for comment in COMMENTS:
        label = f"item {comment.question} ({comment.key})"
        if comment.question not in items:
            if require_comments:
                problems.append(f"{label} is missing")
            continue
        try:
            values[comment.key] = _read_comment(items[comment.question])
        except ValueError as exc:
            problems.append(f"{label}: {exc}")
    unexpected = sorted(n for n in items if n not in QUESTION_FIELDS)
    if unexpected:
        problems.append(f"unexpected item numbers {unexpected} (the questionnaire has 1-13)")
    if problems:
        raise JudgeParseError("invalid judge answer: " + "; ".join(problems), problems)
    return JudgeAnswer.model_validate(values)
