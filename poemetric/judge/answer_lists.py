"""Answers written as plain numbered lists or labelled markdown lines instead of JSON."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from poemetric.judge.answer_objects import (
    ALIASES,
    COMMENT_QUESTIONS,
    COMMENT_WORDS,
    SCORE_QUESTIONS,
    Candidate,
    classify_key,
    label_meaning,
    normal,
    strip_emphasis,
)
from poemetric.judge.answer_values import read_score
from poemetric.questionnaire import COMMENTS, LIKERT_LABELS, QUESTION_FIELDS

# -- numbered lists and labelled lines --------------------------------------------------------
_LIST_ITEM = re.compile(
    r"^\s*(?:[-*+•>]\s*)*(?:#{1,6}\s*)?(?:\*\*|__|\*)?\s*"
    r"(?:(?:q(?:uestion)?|item)\s*#?\s*(?P<prefixed>\d{1,2})(?![\d.]*\d)(?:\*\*|__|\*)?\s*[.):\]\-–—]?"
    r"|(?P<number>\d{1,2})(?:\*\*|__|\*)?\s*(?:[.:](?=\s|\*|$)|[)\]]|\s[-–—]\s))"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_LABEL_LINE = re.compile(
    r"^\s*(?:[-*+•]\s*)?(?:\*\*|__)?(?P<label>[A-Za-z][A-Za-z _/-]{1,40}?)(?:\*\*|__)?\s*"
    r"(?:\*\*|__)?[:=]\s*(?P<rest>.+)$"
)
_SEPARATORS = re.compile(r"\s*(?::|=|\s[-–—]\s)\s*")
_FENCE_LINE = re.compile(r"^\s*```")


@dataclass
class _Line:
    question: int
    rest: str
    continuation: list[str] = field(default_factory=list)


def list_candidates(text: str) -> list[Candidate]:
    """Plain numbered lists ("1. 4", "**1. Form:** 4 - Agree") and labelled lines ("Form: 4");
    a list whose numbering starts again is another candidate."""
    runs: list[list[_Line]] = []
    current: list[_Line] = []
    for raw in text.splitlines():
        if _FENCE_LINE.match(raw):
            continue
        item = _line_item(raw)
        if item is None:
            if current:
                current[-1].continuation.append(raw.strip())
            continue
        if current and item.question <= current[-1].question:
            runs.append(current)
            current = []
        current.append(item)
    if current:
        runs.append(current)
    candidates = []
    for run in runs:
        if _is_scale_legend(run):
            continue
        candidate = Candidate("a numbered list")
        for line in run:
            value = _line_value(line, candidate)
            if value is not None:
                candidate.add(line.question, value)
        if candidate.values:
            candidates.append(candidate)
    return candidates


def _is_scale_legend(run: list[_Line]) -> bool:
    """The scale echoed from the prompt ("1 - Strongly disagree" ... "5 - Strongly agree"):
    consecutive numbers from 1, each followed by its own label. Never a complete answer, and
    not an answer that disagrees with the real one."""
    if not 1 < len(run) <= 5 or [line.question for line in run] != list(range(1, len(run) + 1)):
        return False
    labels = [strip_emphasis(line.rest).lower().rstrip(".").replace("-", " ") for line in run]
    return all(
        LIKERT_LABELS.get(label) == line.question for label, line in zip(labels, run, strict=True)
    )


def _table_row(raw: str) -> _Line | None:
    """A markdown table row: `| 1 | Form | 4 (Agree) |` or `| Form | 4 |`."""
    cells = [cell.strip() for cell in raw.strip().strip("|").split("|")]
    if len(cells) < 2 or not cells[0] or set(cells[-1]) <= set("-: "):
        return None
    meaning = classify_key(strip_emphasis(cells[0]))
    if meaning.question is None:
        return None
    return _Line(
        meaning.question, " - ".join([*cells[1:-1], cells[-1]]) if len(cells) > 2 else cells[-1]
    )


def _line_item(raw: str) -> _Line | None:
    if raw.lstrip().startswith("|"):
        return _table_row(raw)
    match = _LIST_ITEM.match(raw)
    if match is not None:
        number = int(match.group("prefixed") or match.group("number"))
        if number in QUESTION_FIELDS:
            return _Line(number, match.group("rest").strip())
        return None
    labelled = _LABEL_LINE.match(raw)
    if labelled is not None:
        question = ALIASES.get(normal(labelled.group("label")))
        if question is not None:
            return _Line(question, labelled.group("rest").strip())
    return None


def _line_value(line: _Line, candidate: Candidate) -> str | None:
    rest = strip_emphasis(line.rest)
    if line.question in COMMENT_QUESTIONS:
        head, _, tail = rest.partition(":")
        if COMMENT_WORDS.fullmatch(normal(head)) or normal(head) in ALIASES:
            rest = tail.strip()
        continuation = line.continuation
        echoed = strip_question_echo(line.question, rest)
        if echoed is not None:
            rest = echoed
            if not rest:  # the question as a heading, the answer in the next paragraph
                while continuation and not continuation[0]:
                    continuation = continuation[1:]
        paragraph: list[str] = []
        for extra in continuation:
            if not extra:
                break
            paragraph.append(extra)
        text = " ".join([rest, *paragraph]).strip()
        return text or None
    if _reads_as_score(rest, line.question):
        return rest  # "4 - Agree", "N/A - no device is used": the separator is the score's own
    value = rest
    if not re.search(r"\d", rest) and label_meaning(line.question, normal(rest), rest).question:
        value = ""  # a heading such as "### 1. Form": the score is on the next line
    for match in reversed(list(_SEPARATORS.finditer(rest))):
        label = rest[: match.start()]
        if not re.search(r"\d", label):
            meaning = label_meaning(line.question, normal(label), label)
            if meaning.problem:
                candidate.problems.append(
                    f"line for item {line.question} is labelled {label.strip()!r}, which names "
                    "another item"
                )
            value = rest[match.end() :]
            break
    if not value.strip():
        following = [extra for extra in line.continuation if extra]
        value = following[0] if following else ""
    return strip_emphasis(value) or None


#: The comment questions as the instrument words them (prompts/judge.md and the structured
#: schema), normalised: "Please comment on why you gave the answer that you did for question 10
#: above.", "Please give comments on why ...", "Why you gave your answer to question 10."
_ECHOES = {
    comment.question: re.compile(
        r"(?:please (?:comment|give comments) on )?why you gave "
        rf"(?:the answer that you did for|your answer to) question {comment.about}(?: above)?"
    )
    for comment in COMMENTS
}
_ECHO_END = tuple(".:?!-–—")
_ECHO_MAX_WORDS = 24
#: Quotation marks a judge may put around the repeated question ("“Please comment on ...”").
_QUOTES = "\"'“”‘’«»"
_NO_QUOTES = str.maketrans(dict.fromkeys(_QUOTES, " "))


def strip_question_echo(question: int, text: str) -> str | None:
    """The judge's words after the comment question repeated at the start of `text` ("11. Please
    comment on why you gave ... question 10 above.: Because ..."), or None when `text` does not
    start with it. The repeat must end `text` or end at punctuation, so "question 10: Above all,
    ..." keeps the judge's "Above all"; a repeat in quotation marks may end at its closing mark
    ("“Please comment on ... above.” Because ...")."""
    echo = _ECHOES.get(question)
    if echo is None:
        return None
    quoted = text.startswith(tuple(_QUOTES))
    words = list(re.finditer(r"\S+", text))[:_ECHO_MAX_WORDS]
    for word in reversed(words):
        after = text[word.end() :].strip()
        closes = quoted and word.group().endswith(tuple(_QUOTES))
        if after and not (closes or word.group().endswith(_ECHO_END)):
            continue
        if echo.fullmatch(normal(text[: word.end()].translate(_NO_QUOTES))):
            return after
    return None


def _reads_as_score(text: str, question: int) -> bool:
    try:
        read_score(text, SCORE_QUESTIONS[question])
    except ValueError:
        return False
    return True
