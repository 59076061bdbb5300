"""One row of an expert ratings file (`experts.read_expert_answers`) read as its answers: a
long row's item, an exported row's question, a wide row's dimension columns, each score checked
against its item's scale. Problems are appended to `problems` with the row's place (`where`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from poemetric.questionnaire import COMMENTS, DIMENSIONS, DIMENSIONS_BY_KEY, QUESTION_FIELDS

#: The comment key that explains each commented dimension.
COMMENT_OF = {QUESTION_FIELDS[c.about]: c.key for c in COMMENTS}
COMMENT_KEYS = tuple(c.key for c in COMMENTS)
#: The survey's instructed-response item (poemetric.survey.tasks.ATTENTION_KEY).
ATTENTION_QUESTION = "attention_check"


@dataclass(frozen=True)
class ExpertAnswer:
    """One answer: a dimension score (0 = N/A) or a comment (`question` = comment key)."""

    line: int
    expert: str
    generation_id: str
    question: str
    score: float | None = None
    text: str | None = None


def first_lines(answers: Iterable[ExpertAnswer]) -> dict[str, int]:
    """Each rater id of `answers` with the line of its first answer, as
    `poemetric.reliability.rater_spellings.spelled_apart` takes them."""
    lines: dict[str, int] = {}
    for answer in answers:
        lines.setdefault(answer.expert, answer.line)
    return lines


def item_key(text: str) -> str | None:
    """The dimension key an `item` cell names (a key or its question number), else None."""
    item = QUESTION_FIELDS.get(int(text)) if text.isdigit() else text
    return item if item in DIMENSIONS_BY_KEY else None


def long_row(
    raw: dict[str, str], line: int, expert: str, gid: str, where: str, problems: list[str]
) -> list[ExpertAnswer]:
    text = raw.get("item", "")
    item = item_key(text)
    if item not in DIMENSIONS_BY_KEY:
        problems.append(
            f"{where}: item {text!r} is not one of "
            + ", ".join(d.key for d in DIMENSIONS)
            + " (or their question numbers)"
        )
        return []
    rows = []
    score = read_score(raw.get("score", ""), item, where, problems)
    if score is not None:
        rows.append(ExpertAnswer(line, expert, gid, item, score=score))
    comment = raw.get("comment", "")
    if comment:
        if item not in COMMENT_OF:
            problems.append(f"{where}: only {', '.join(COMMENT_OF)} take a comment, not {item!r}")
        else:
            rows.append(ExpertAnswer(line, expert, gid, COMMENT_OF[item], text=comment))
    return rows


def exported_row(
    raw: dict[str, str], line: int, expert: str, gid: str, where: str, problems: list[str]
) -> list[ExpertAnswer]:
    """A row of `poemetric export survey_answers`: a score, a comment, or an attention check's
    answer (stored by `survey import`, never in the ratings; the file lacks the answer each
    check asked for, so the survey it is imported into cannot judge it)."""
    question = raw.get("question", "")
    if question == ATTENTION_QUESTION:
        text = raw.get("score", "")
        try:
            score = float(text) if text else None
        except ValueError:
            problems.append(f"{where}: {question} = {text!r} is not a number")
            return []
        return [] if score is None else [ExpertAnswer(line, expert, gid, question, score=score)]
    if question in DIMENSIONS_BY_KEY:
        score = read_score(raw.get("score", ""), question, where, problems)
        return [] if score is None else [ExpertAnswer(line, expert, gid, question, score=score)]
    if question in COMMENT_KEYS:
        text = raw.get("text", "")
        return [ExpertAnswer(line, expert, gid, question, text=text)] if text else []
    problems.append(
        f"{where}: question {question!r} is not one of "
        + ", ".join([*(d.key for d in DIMENSIONS), *COMMENT_KEYS, ATTENTION_QUESTION])
    )
    return []


def wide_row(
    raw: dict[str, str], line: int, expert: str, gid: str, where: str, problems: list[str]
) -> list[ExpertAnswer]:
    rows = []
    for dimension in DIMENSIONS:
        score = read_score(raw.get(dimension.key, ""), dimension.key, where, problems)
        if score is not None:
            rows.append(ExpertAnswer(line, expert, gid, dimension.key, score=score))
    for comment in COMMENTS:
        if raw.get(comment.key):
            rows.append(ExpertAnswer(line, expert, gid, comment.key, text=raw[comment.key]))
    return rows


def read_score(text: str, key: str, where: str, problems: list[str]) -> float | None:
    """The score of a cell (None = not rated); N/A reads as 0 where the item offers it."""
    if text == "":
        return None
    allows_na = DIMENSIONS_BY_KEY[key].allows_na
    if text.lower() in ("n/a", "na"):
        if allows_na:
            return 0.0
        problems.append(f"{where}: {key} = {text!r}: N/A only for imagery and literary_devices")
        return None
    try:
        value = float(text)
    except ValueError:
        problems.append(f"{where}: {key} = {text!r} is not a number")
        return None
    low = 0 if allows_na else 1
    if not value.is_integer() and low <= value <= 5:  # "3.5 is outside 1-5" said before
        problems.append(f"{where}: {key} = {text!r} is not a whole number; the scale is {low}-5")
        return None
    if not value.is_integer() or not low <= value <= 5:
        problems.append(
            f"{where}: {key} = {text!r} is outside {low}-5 "
            "(0 = N/A only for imagery and literary_devices)"
        )
        return None
    return value
