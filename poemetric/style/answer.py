"""Strict reading of a style-matching answer: one clear choice among A-D, or an error.

Accepted (the choice must be the whole answer, give or take decoration):

* a letter alone: ``B``, ``b``, ``**B**``, ``(B)``, ``"B."``, ``Candidate B``, ``Answer: B``;
* reasoning followed by a last line ``Answer: B`` (or ``Final answer: B``), provided no other
  ``Answer:`` line names a different letter;
* JSON with one key: ``{"answer": "B"}`` or ``{"choice": "B"}``.

Anything else is rejected with the reason, e.g. ``A or B``, ``B, maybe C``, ``None of them``,
``The second one``, or prose that mentions a letter without committing to it. A ``<think>``
block some reasoning models put before their answer is ignored.
"""

from __future__ import annotations

import json
import re

from poemetric.style.trials import CHOICES

_DECORATION = r"[\s*_`\"'“”‘’()\[\]]*"
_LABEL = r"(?:(?:final\s+)?answer\s*[:\-–—]?\s*)?(?:(?:candidate|option|poem)\s+)?"
_LETTER_ONLY = re.compile(
    rf"^{_DECORATION}{_LABEL}{_DECORATION}([A-D]){_DECORATION}[.!]?{_DECORATION}$", re.IGNORECASE
)
_ANSWER_LINE = re.compile(
    rf"^{_DECORATION}(?:final\s+)?answer{_DECORATION}\s*[:\-–—]\s*{_DECORATION}"
    rf"(?:(?:candidate|option|poem)\s+)?([A-D]){_DECORATION}[.!]?{_DECORATION}$",
    re.IGNORECASE,
)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


class StyleAnswerError(ValueError):
    pass


def parse_style_answer(text: str) -> str:
    """The chosen letter (upper case); raises StyleAnswerError unless there is one clear choice."""
    answer = _THINK.sub("", text or "").strip()
    if not answer:
        raise StyleAnswerError("empty answer")
    if answer.startswith("{"):
        return _from_json(answer)
    whole = _LETTER_ONLY.match(answer)
    if whole:
        return whole.group(1).upper()
    lines = [line for line in answer.splitlines() if line.strip()]
    final = _ANSWER_LINE.match(lines[-1])
    if final:
        letters = {match.group(1).upper() for line in lines if (match := _ANSWER_LINE.match(line))}
        if len(letters) > 1:
            raise StyleAnswerError(f"answer lines name different letters: {sorted(letters)}")
        return final.group(1).upper()
    raise StyleAnswerError(
        f"expected one letter ({', '.join(CHOICES)}) or a last line 'Answer: X', got "
        f"{_preview(answer)}"
    )


def _from_json(answer: str) -> str:
    try:
        data = json.loads(answer)
    except json.JSONDecodeError as error:
        raise StyleAnswerError(f"invalid JSON: {error.msg}") from error
    if not isinstance(data, dict) or len(data) != 1:
        raise StyleAnswerError(f"expected a JSON object with one key, got {_preview(answer)}")
    ((key, value),) = data.items()
    if key.lower() not in {"answer", "choice"} or not isinstance(value, str):
        raise StyleAnswerError(f'expected {{"answer": "A-D"}}, got {_preview(answer)}')
    letter = value.strip().upper()
    if letter not in CHOICES:
        raise StyleAnswerError(f"{value!r} is not one of {', '.join(CHOICES)}")
    return letter


def _preview(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
