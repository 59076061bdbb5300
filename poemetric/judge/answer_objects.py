"""Finding answers in a judge's response: JSON-like objects (duplicate keys kept) and what their
keys name ("1", "Q1", "1 (Form)", "Form", "overall_quality"...)."""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from poemetric.questionnaire import COMMENTS, DIMENSIONS, QUESTION_FIELDS

SCORE_QUESTIONS = {d.question: d for d in DIMENSIONS}
COMMENT_QUESTIONS = {c.question: c.key for c in COMMENTS}


# -- JSON-like objects ----------------------------------------------------------------------------
class Pairs(list[tuple[Any, Any]]):
    """The (key, value) pairs of one object in order, duplicates kept (unlike a dict)."""


def _match_brace(text: str, start: int) -> int | None:
    """Index of the `}` closing the `{` at `start`, honouring quoted strings; None if unclosed.

    A `'` opens a string only right after `{`, `,`, `:` or `[`, so the apostrophe in "poet's"
    is not mistaken for one.
    """
    depth = 0
    quote: str | None = None
    escaped = False
    previous = ""
    for index in range(start, len(text)):
        char = text[index]
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
                previous = char
            elif char == "\n" and quote == "'":
                return None
            continue
        if char == '"' or (char == "'" and previous in "{,:["):
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
        if not char.isspace():
            previous = char
    return None


#: Unclosed braces tried before giving up (each costs a scan to the end of the text).
_MAX_UNCLOSED = 100


def object_spans(text: str) -> list[tuple[int, int]]:
    """Every outermost `{...}` span; an unclosed `{` in prose does not hide what follows it."""
    spans: list[tuple[int, int]] = []
    unclosed = 0
    index = text.find("{")
    while index != -1:
        end = _match_brace(text, index)
        if end is None:
            unclosed += 1
            if unclosed > _MAX_UNCLOSED:
                break
            index = text.find("{", index + 1)
            continue
        spans.append((index, end + 1))
        index = text.find("{", end + 1)
    return spans


_LINE_COMMENT = re.compile(r"^(\s*[^\"'\n]*?(?:\"[^\"\n]*\"[^\"'\n]*?)*)\s//[^\n]*$", re.MULTILINE)


def load_pairs(candidate: str) -> Pairs | None:
    trimmed = re.sub(r",\s*([}\]])", r"\1", candidate)
    uncommented = re.sub(r",\s*([}\]])", r"\1", _LINE_COMMENT.sub(r"\1", candidate))
    for attempt in (candidate, trimmed, uncommented):
        try:
            value = json.loads(attempt, object_pairs_hook=Pairs)
        except (json.JSONDecodeError, RecursionError):
            continue
        return value if isinstance(value, Pairs) else None
    for attempt in (candidate, _quote_bare_keys(candidate)):
        try:
            value = _from_ast(ast.parse(attempt.strip(), mode="eval").body)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return value if isinstance(value, Pairs) else None
    return None


def _quote_bare_keys(text: str) -> str:
    """`{Q1: 4, 2.: 5, Form: 3}` -> `{"Q1": 4, "2.": 5, "Form": 3}`."""
    return re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z_ ]*\d{0,2}\.?|\d{1,2}\.)\s*:", r'\1"\2":', text)


_LITERAL_NAMES = {"true": True, "false": False, "null": None, "None": None}


def _from_ast(node: ast.expr) -> Any:
    """A Python-literal value with every dict kept as `Pairs` (duplicate keys survive)."""
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise ValueError("dict unpacking")
        return Pairs(
            (_from_ast(key), _from_ast(value))
            for key, value in zip(node.keys, node.values, strict=True)
            if key is not None
        )
    if isinstance(node, ast.List | ast.Tuple):
        return [_from_ast(item) for item in node.elts]
    if isinstance(node, ast.Name) and node.id in _LITERAL_NAMES:
        return _LITERAL_NAMES[node.id]
    return ast.literal_eval(node)


# -- keys -----------------------------------------------------------------------------------------
def normal(text: str) -> str:
    """Lower case, markdown and punctuation removed, separators as single spaces."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[*_`#\"'()\[\]{}:.,;!?\-–—/]+", " ", text)
    return " ".join(text.split())


def _aliases() -> dict[str, int]:
    names: dict[int, set[str]] = {}
    for d in DIMENSIONS:
        names[d.question] = {normal(d.key), normal(d.short_label)}
    extra = {
        1: ["form accuracy"], 2: ["theme alignment"], 6: ["emotional resonance"],
        8: ["literary devices"], 10: ["overall quality", "overall"],
        12: ["human authorship", "authorship"],
    }  # fmt: skip
    for question, words in extra.items():
        names[question].update(words)
    aliases = {name: q for q, group in names.items() for name in group}
    for comment in COMMENTS:
        for name in names[comment.about]:
            for word in ("comment", "comments"):
                aliases[f"{word} {name}"] = comment.question
                aliases[f"{name} {word}"] = comment.question
        aliases[normal(comment.key)] = comment.question
    return aliases


ALIASES = _aliases()
COMMENT_WORDS = re.compile(r"\b(comments?|explanation|reason(ing)?|justification|why)\b")
_NUMBERED_KEY = re.compile(
    r"^\s*(?:q(?:uestion)?|item|no\.?)?[\s#_-]*(\d{1,3})(?![\d.]*\d)\s*[.):\]\-–—_]?\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
#: Each scored item's question text, for keys that copy it ("1 (The poem follows the...)").
_QUESTION_WORDS = {d.question: normal(d.long_label) for d in DIMENSIONS}


@dataclass(frozen=True)
class KeyMeaning:
    question: int | None  # the item the key names, None when it names none
    problem: str | None = None  # a key that names one item by number and another by label


def classify_key(key: Any) -> KeyMeaning:
    """Which questionnaire item a key names: "1", "Q1", "1.", "1 (Form)", "Form", "form"..."""
    if isinstance(key, bool):
        return KeyMeaning(None)
    if isinstance(key, int):
        return KeyMeaning(key if key in QUESTION_FIELDS else None)
    text = str(key)
    match = _NUMBERED_KEY.match(text)
    if match is None:  # a name: "Form", "overall_quality", "Overall quality (1-5)"
        named = ALIASES.get(normal(text)) or ALIASES.get(normal(_PARENTHESES.sub(" ", text)))
        return KeyMeaning(named)
    number, label = int(match.group(1)), normal(match.group(2))
    if number not in QUESTION_FIELDS:
        return KeyMeaning(None)
    return label_meaning(number, label, text)


_PARENTHESES = re.compile(r"\([^()]*\)")
#: Words a key may add to an item's number without naming another item ("q1_score").
_NEUTRAL_LABELS = frozenset({"score", "rating", "answer", "value", "likert"})


def label_meaning(number: int, label: str, text: str) -> KeyMeaning:
    if not label or (number in SCORE_QUESTIONS and label in _NEUTRAL_LABELS):
        return KeyMeaning(number)
    named = ALIASES.get(label)
    if named == number:
        return KeyMeaning(number)
    if named is not None:
        return KeyMeaning(
            None, f"key {text!r} names item {number} by number but item {named} by its label"
        )
    if number in COMMENT_QUESTIONS and COMMENT_WORDS.search(label):
        return KeyMeaning(number)
    question_words = _QUESTION_WORDS.get(number, "")
    if len(label) >= 8 and question_words.startswith(label):
        return KeyMeaning(number)
    return KeyMeaning(None)


# -- candidates -------------------------------------------------------------------------------
@dataclass
class Candidate:
    """One answer found in the response: values by question number, as given."""

    origin: str
    values: dict[int, list[Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)

    def add(self, question: int, value: Any) -> None:
        self.values.setdefault(question, []).append(value)


#: `Candidate.origin` of an answer read from a JSON object.
OBJECT_ORIGIN = "a JSON object"
_SCORE_FIELDS = ("score", "rating", "value", "answer", "likert")
_TEXT_FIELDS = ("comment", "comments", "text", "explanation", "reason")


def _collect(pairs: Pairs, candidate: Candidate, *, nested: bool = False) -> None:
    for key, value in pairs:
        meaning = classify_key(key)
        if meaning.problem:
            candidate.problems.append(meaning.problem)
        elif meaning.question is not None:
            candidate.add(meaning.question, _unwrap(meaning.question, value, candidate))
        elif isinstance(value, Pairs) and not nested and _holds_items(value):
            _collect(value, candidate, nested=True)
        else:
            candidate.extras.append(f"extra key {str(key)[:40]!r} = {short(value)}")


def _holds_items(pairs: Pairs) -> bool:
    return any(classify_key(key).question is not None for key, _ in pairs)


def _unwrap(question: int, value: Any, candidate: Candidate) -> Any:
    """`{"score": 4, "comment": "..."}` given for one item -> 4 (the comment goes to the notes)."""
    if not isinstance(value, Pairs):
        return value
    wanted = _SCORE_FIELDS if question in SCORE_QUESTIONS else _TEXT_FIELDS
    found = [v for k, v in value if isinstance(k, str) and k.strip().lower() in wanted]
    if len(found) != 1:
        return value
    for key, _ in value:
        if not (isinstance(key, str) and key.strip().lower() in wanted):
            candidate.extras.append(f"item {question}: extra field {str(key)[:30]!r}")
    return found[0]


def short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def object_candidates(body: str) -> Iterator[Candidate]:
    for start, end in object_spans(body):
        pairs = load_pairs(body[start:end])
        if pairs is None:
            continue
        candidate = Candidate(OBJECT_ORIGIN)
        _collect(pairs, candidate)
        if candidate.values or candidate.problems:
            yield candidate


def blank_spans(body: str) -> str:
    """`body` with every loadable object replaced by spaces (line breaks kept)."""
    chars = list(body)
    for start, end in object_spans(body):
        if load_pairs(body[start:end]) is not None:
            for index in range(start, end):
                if chars[index] != "\n":
                    chars[index] = " "
    return "".join(chars)


def strip_emphasis(text: str) -> str:
    """Markdown emphasis and code marks removed: `**4**` -> `4`."""
    return re.sub(r"(\*\*|__|`)", "", text).strip().strip("*").strip()
