"""Reading one value: a score that must be exactly one whole number on the scale, or a comment."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from poemetric.judge.answer_objects import short, strip_emphasis
from poemetric.questionnaire import LIKERT_LABELS, NA_WORDS, Dimension

_LABEL_OF_SCORE = {value: label for label, value in LIKERT_LABELS.items()}


# -- reading values -------------------------------------------------------------------------------
def _ascii_digits(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return "".join(
        str(unicodedata.decimal(ch)) if ch.isdecimal() and not ch.isascii() else ch for ch in text
    )


def read_score(value: Any, dimension: Dimension) -> int:
    """The score in `value`, or ValueError saying why it is not exactly one score."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{value!r} is not a score")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value} is not a whole score")
        value = int(value)
    if isinstance(value, str):
        value = _read_score_text(value, dimension)
    if not isinstance(value, int):
        raise ValueError(f"{short(value)} is not a score")
    if value == 0 and not dimension.allows_na:
        raise ValueError("0 (N/A) is not an option for this item")
    low = 0 if dimension.allows_na else 1
    if not low <= value <= 5:
        raise ValueError(f"score {value} is outside {low}-5")
    return value


_NUMBER = r"(\d+)(?:\.0+)?"
_LABEL = r"([a-z][a-z /.]*?)"
_PLAIN = re.compile(rf"{_NUMBER}(?:\s*/\s*5|\s+out of\s+5)?")
_NUMBER_LABEL = re.compile(rf"{_NUMBER}\s*(?:[-–—:=.]\s*|\s+)\(?\s*{_LABEL}\s*\)?")
_LABEL_NUMBER = re.compile(rf"{_LABEL}\s*(?:\(\s*{_NUMBER}\s*\)|[-–—:=]\s*{_NUMBER})")
_PREFIX = re.compile(r"^(?:score|rating|answer)\s*[:=]\s*")
#: N/A, alone or with its reason in parentheses or after a separator ("N/A (No imagery is used)",
#: "N/A - none used"). A reason holding a number ("N/A (3)", "N/A (2 similes)") is not N/A, in
#: parentheses as after a separator: the number may be the score the judge meant.
_NA_LABEL = re.compile(r"^(?:n/a|na|not applicable)\b(?:\s*\([^\d]*\)|\s*[-–—:,;.]\s*[^\d]*)?$")
_ZERO_NA = re.compile(
    r"0\s*(?:[-–—:=.]\s*|\s+)?\(?\s*(?:n/a|na|not applicable)\b(?:\s*\([^\d]*\))?\s*\)?"
)


def _read_score_text(text: str, dimension: Dimension) -> int:
    shown = text.strip()
    cleaned = _ascii_digits(strip_emphasis(text)).lower()
    cleaned = " ".join(cleaned.replace("‐", "-").split()).rstrip(".").strip()
    cleaned = _PREFIX.sub("", cleaned)
    if cleaned.replace("-", " ").replace("_", " ") in LIKERT_LABELS:
        return LIKERT_LABELS[cleaned.replace("-", " ").replace("_", " ")]
    if cleaned in NA_WORDS or _NA_LABEL.match(cleaned) or _ZERO_NA.fullmatch(cleaned):
        if dimension.allows_na:
            return 0
        raise ValueError(f"{shown!r} (N/A) is not an option for this item")
    plain = _PLAIN.fullmatch(cleaned)
    if plain is not None:
        number = int(plain.group(1))
        if ("/" in cleaned or "out of" in cleaned) and not 1 <= number <= 5:
            raise ValueError(f"{shown!r} is not a score on the 1-5 scale")
        return number
    labelled = _NUMBER_LABEL.fullmatch(cleaned)
    if labelled is not None:
        return _check_label(shown, int(labelled.group(1)), labelled.group(2))
    reversed_ = _LABEL_NUMBER.fullmatch(cleaned)
    if reversed_ is not None:
        number = int(reversed_.group(2) or reversed_.group(3))
        return _check_label(shown, number, reversed_.group(1))
    numbers = re.findall(r"\d+(?:[.,]\d+)?", cleaned)
    if len(numbers) > 1:
        raise ValueError(f"{shown!r} names more than one number, not exactly one score")
    if numbers and re.fullmatch(r"\d+[.,]\d+", numbers[0]):
        raise ValueError(f"{shown!r} is not a whole score")
    if numbers:
        raise ValueError(f"{shown!r} holds other text besides one score")
    raise ValueError(f"{shown!r} holds no score")


def _check_label(shown: str, number: int, label: str) -> int:
    label = label.strip().replace("-", " ")
    if number == 0 and _NA_LABEL.match(label):
        return 0
    expected = _LABEL_OF_SCORE.get(number)
    if expected is not None and label == expected:
        return number
    if label in LIKERT_LABELS:
        raise ValueError(
            f"{shown!r} contradicts itself (score {number}, label {label!r} means "
            f"{LIKERT_LABELS[label]})"
        )
    raise ValueError(f"{shown!r}: {label!r} is not the scale's label for {number}")


def read_comment(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(v.strip() for v in value)
    return None
