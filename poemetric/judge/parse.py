"""Reading an LLM judge's answer: tolerant of form, strict on meaning.

The judge prompt (POEMetric paper, App. C) asks for `{"1": <score>, ..., "9": "<comments>", ...}`.
Real models wrap that object in code fences or prose, think aloud first, use single quotes,
trailing commas, `"Q1"` or `"Form"` keys, `"4 - Agree"` strings, or write a numbered list instead.
All of those *forms* are read. The *meaning* is never guessed; the answer is rejected, with a
reason naming the item, when

- an item is given twice with different values (whatever the key spelling, duplicate JSON keys
  included), or two answers in the response disagree;
- a textual score is not exactly one whole number on the scale: decimals, ranges, alternatives,
  hedges naming two values ("3-4", "2 or 3", "1-5 scale: 4") are refused; `N/5` and a number with
  its own Likert label ("4 - Agree", "Agree (4)") or the label alone are read exactly;
- the only answer sits inside reasoning (an unterminated `<think>` block, say);
- a score item is missing or off the scale (0 = N/A only for items 7 and 8).

Comments may be absent or partial (the survey makes them optional) and extra keys are kept in the
notes: neither touches a score. No value is ever defaulted, clamped, rounded or read by its first
digit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from poemetric.judge.answer_lists import list_candidates, strip_question_echo
from poemetric.judge.answer_objects import (
    COMMENT_QUESTIONS,
    OBJECT_ORIGIN,
    SCORE_QUESTIONS,
    Candidate,
    blank_spans,
    object_candidates,
    object_spans,
)
from poemetric.judge.answer_values import read_comment, read_score
from poemetric.questionnaire import COMMENTS, QUESTION_FIELDS, JudgeAnswer, JudgeParseError
from poemetric.screening import looks_like_refusal
from poemetric.text.plural import counted, plural

__all__ = [
    "ParsedJudgment",
    "answer_outside_reasoning",
    "is_refusal",
    "parse_judge_response",
    "parse_judgment",
]


@dataclass(frozen=True)
class ParsedJudgment:
    """A validated answer and what the parser noticed on the way (extra keys, absent comments,
    ignored reasoning...)."""

    answer: JudgeAnswer
    notes: tuple[str, ...] = ()

    @property
    def comments_missing(self) -> list[int]:
        given = self.answer.comments()
        return [c.question for c in COMMENTS if str(c.question) not in given]


def parse_judge_response(text: str) -> JudgeAnswer:
    """The validated answer in `text`; raises `JudgeParseError` naming every failed item."""
    return parse_judgment(text).answer


def parse_judgment(text: str) -> ParsedJudgment:
    """Parse a judge's raw response; raises `JudgeParseError` naming every failed item."""
    if not text or not text.strip():
        raise JudgeParseError("the response is empty")
    body, notes, draft = split_reasoning(text)
    candidates = _candidates(body)
    if not candidates:
        raise JudgeParseError(_why_no_answer(text, body, draft))
    if draft is not None:
        notes.append("ignored an unterminated reasoning block after the answer")
    answer, more_notes = _decide(candidates)
    return ParsedJudgment(answer, tuple(notes + more_notes))


# -- reasoning ------------------------------------------------------------------------------------
_TAGS = r"think|thinking|thought|reasoning"
_BLOCK = re.compile(rf"<({_TAGS})>.*?</\1>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(rf"<(?:{_TAGS})>", re.IGNORECASE)
_CLOSE = re.compile(rf"</(?:{_TAGS})>", re.IGNORECASE)


def split_reasoning(text: str) -> tuple[str, list[str], str | None]:
    """(the text outside reasoning, notes, an unterminated reasoning block or None)."""
    notes: list[str] = []
    body, blocks = _BLOCK.subn(" ", text)
    if blocks:
        notes.append(f"ignored the reasoning {plural(blocks, 'block')}")
    closes = list(_CLOSE.finditer(body))
    if closes:  # the chat template opened the block, only its closing tag is in the text
        body = body[closes[-1].end() :]
        notes.append("ignored the reasoning before a closing tag")
    opened = _OPEN.search(body)
    draft = None
    if opened is not None:
        draft, body = body[opened.end() :], body[: opened.start()]
    return body, notes, draft


def answer_outside_reasoning(text: str) -> str:
    """The part of a response outside its reasoning, as the parser reads it (`split_reasoning`:
    no `<think>` block, nothing before a lone closing tag, nothing of an unterminated block):
    what a re-ask shows the judge as its answer, and what is looked at for a refusal."""
    body, _, _ = split_reasoning(text)
    return body.strip()


def is_refusal(text: str) -> bool:
    """Whether the answer outside the reasoning is a refusal (`looks_like_refusal`): a judge
    that thinks aloud first ("<think>The user wants...</think>I'm sorry, I can't") refused as
    much as one that does not."""
    return looks_like_refusal(answer_outside_reasoning(text))


def _why_no_answer(text: str, body: str, draft: str | None) -> str:
    if draft is not None and _candidates(draft):
        return (
            "the only answer is inside an unterminated reasoning block (<think> never closed): "
            "a draft, not a final answer"
        )
    if _candidates(_OPEN.sub(" ", _CLOSE.sub(" ", text))):
        return "the only answer is inside the reasoning block; no final answer follows it"
    if looks_like_refusal(body):
        return "the judge declined to answer (refusal)"
    if "{" in body and not object_spans(body):
        return "the response has an unclosed JSON object (truncated output?)"
    return "no answer to the questionnaire ('1' ... '13') was found"


def _candidates(body: str) -> list[Candidate]:
    found = list(object_candidates(body))
    blanked = blank_spans(body)
    found += list_candidates(blanked)
    return found


# -- deciding -------------------------------------------------------------------------------------
@dataclass
class _Reading:
    candidate: Candidate
    scores: dict[int, int] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Comments given as something other than text (noted as such, not also as absent).
    not_text: set[int] = field(default_factory=set)

    @property
    def items_present(self) -> int:
        return sum(1 for q in SCORE_QUESTIONS if q in self.candidate.values)


def _label(question: int) -> str:
    return f"item {question} ({QUESTION_FIELDS[question]})"


def _read(candidate: Candidate) -> _Reading:
    reading = _Reading(candidate, problems=list(candidate.problems))
    for question, values in sorted(candidate.values.items()):
        if question in SCORE_QUESTIONS:
            _read_score_item(reading, question, values)
        else:
            in_object = candidate.origin == OBJECT_ORIGIN
            texts = [_comment_text(question, v, in_object) for v in values]
            given = list(dict.fromkeys(t for t in texts if t))
            if len(given) > 1:
                reading.problems.append(f"{_label(question)} is given twice with different texts")
            elif given:
                reading.comments[question] = given[0]
            elif any(t is None and v is not None for t, v in zip(texts, values, strict=True)):
                # null and "" are an absent comment, noted so; an object or a number list is not
                reading.not_text.add(question)
                reading.notes.append(f"{_label(question)}: not text, left out")
    return reading


def _comment_text(question: int, value: Any, in_object: bool) -> str | None:
    """The comment in `value` ("" when empty), without the comment question repeated at its
    start when it comes from a JSON object (a list's lines have it taken off already)."""
    text = read_comment(value)
    if text is not None and in_object:
        echoed = strip_question_echo(question, text)
        text = text if echoed is None else echoed
    return text


def _read_score_item(reading: _Reading, question: int, values: list[Any]) -> None:
    dimension = SCORE_QUESTIONS[question]
    scores: list[int] = []
    for value in values:
        try:
            scores.append(read_score(value, dimension))
        except ValueError as error:
            reading.problems.append(f"{_label(question)}: {error}")
            return
    if len(set(scores)) > 1:
        shown = ", ".join(str(s) for s in scores)
        reading.problems.append(
            f"{_label(question)} is given {len(scores)} times with different values ({shown})"
        )
    else:
        reading.scores[question] = scores[0]


def _decide(candidates: list[Candidate]) -> tuple[JudgeAnswer, list[str]]:
    readings = [_read(c) for c in candidates]
    notes: list[str] = []
    if len(readings) > 1:
        # An echo of the requested format ({"1": "<score>"...}) or a numbered list of prose
        # holds no valid score: it is not a second answer.
        kept = [r for r in readings if r.scores]
        if kept and len(kept) < len(readings):
            ignored = len(readings) - len(kept)
            notes.append(
                f"ignored {counted(ignored, 'object or list', 'objects or lists')} with no score"
            )
            readings = kept
    primary = max(readings, key=lambda r: r.items_present)
    conflicts = _disagreements(primary, readings)
    if conflicts:
        raise JudgeParseError(
            "the response holds answers that disagree: " + "; ".join(conflicts), conflicts
        )
    problems = list(primary.problems)
    for question in SCORE_QUESTIONS:
        if question not in primary.candidate.values:
            problems.append(f"{_label(question)} is missing")
    if problems:
        raise JudgeParseError("invalid judge answer: " + "; ".join(problems), problems)
    if len(readings) > 1:
        notes.append(f"{len(readings)} answers in the response agree")
    if primary.candidate.origin != OBJECT_ORIGIN:
        notes.append(f"read from {primary.candidate.origin}")
    given = primary.comments.keys() | primary.not_text
    missing = [q for q in COMMENT_QUESTIONS if q not in given]
    if missing:
        notes.append(f"comments absent: {', '.join(map(str, missing))}")
    notes += primary.notes + primary.candidate.extras
    values: dict[str, int | str] = {
        SCORE_QUESTIONS[q].key: score for q, score in primary.scores.items()
    }
    values.update({COMMENT_QUESTIONS[q]: text for q, text in primary.comments.items()})
    return JudgeAnswer.model_validate(values), notes


def _disagreements(primary: _Reading, readings: list[_Reading]) -> list[str]:
    conflicts: list[str] = []
    for other in readings:
        if other is primary:
            continue
        for question, score in other.scores.items():
            mine = primary.scores.get(question)
            if mine is not None and mine != score:
                message = f"{_label(question)} is {mine} in one answer and {score} in another"
                if message not in conflicts:
                    conflicts.append(message)
    return conflicts
