"""Parsing judge answers without calling anyone: a JSONL file (`poemetric judge parse`) or a run's
stored raw answers after a parser change (`poemetric judge reparse`)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from poemetric.judge.finish import CUT_ANSWER_NOTE
from poemetric.judge.parse import is_refusal, parse_judgment
from poemetric.questionnaire import COMMENTS, DIMENSION_KEYS, JudgeParseError
from poemetric.store.db import RunStore, to_json


class ParseInputError(ValueError):
    """The input file cannot be read at all."""


@dataclass
class ParseSummary:
    lines: int = 0
    ok: int = 0
    rejected: int = 0
    #: Input lines that are not `{"id": ..., "response": "..."}` (named with file and line).
    unreadable: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """2: some input lines could not be read; 1: some answers were rejected; 0: all read."""
        if self.unreadable:
            return 2
        return 1 if self.rejected else 0


def parse_record(identifier: Any, response: str) -> dict[str, Any]:
    """One output line: scores keyed by question number (0 = N/A on items 7 and 8)."""
    try:
        parsed = parse_judgment(response)
    except JudgeParseError as error:
        return {"id": identifier, "ok": False, "scores": None, "comments": None,
                "error": str(error), "notes": []}  # fmt: skip
    return {
        "id": identifier,
        "ok": True,
        "scores": parsed.answer.scores_by_question(),
        "comments": parsed.answer.comments(),
        "error": None,
        "notes": list(parsed.notes),
    }


def parse_file(source: Path, output: IO[str]) -> ParseSummary:
    """Parse every `{"id", "response"}` line of `source` into `output` (one line each)."""
    summary = ParseSummary()
    # universal newlines, as open() reads: a raw U+2028 inside a JSON string ends no line
    for number, raw in enumerate(io.StringIO(_text(source), newline=None), start=1):
        if not raw.strip():
            continue
        summary.lines += 1
        record, problem = _read_line(raw)
        if problem is not None:
            where = f"{source}:{number}: {problem}"  # as dataset, agree, form check name a line
            summary.unreadable.append(where)
            result: dict[str, Any] = {"id": record.get("id"), "ok": False, "scores": None,
                      "comments": None, "error": where, "notes": []}  # fmt: skip
        else:
            result = parse_record(record["id"], record["response"])
            if result["ok"]:
                summary.ok += 1
            else:
                summary.rejected += 1
        output.write(json.dumps(result, ensure_ascii=False) + "\n")
    if not summary.lines:
        raise ParseInputError(f"{source}: no answers (the file is empty)")
    return summary


def _text(source: Path) -> str:
    """The file's text: UTF-8, with or without a byte order mark (Windows tools write one);
    another encoding is the file's line and what it looks like (`poemetric.data.text_files`)."""
    from poemetric.data.text_files import TextFileError, read_utf8_file

    try:
        return read_utf8_file(source)
    except TextFileError as error:
        raise ParseInputError(str(error)) from None


def _read_line(raw: str) -> tuple[dict[str, Any], str | None]:
    try:
        record = json.loads(raw.rstrip("\n"))  # the line end: an error there was "column 1"
    except json.JSONDecodeError as error:
        return {}, f"not JSON ({error.msg} at column {error.colno})"
    if not isinstance(record, dict):
        return {}, "expected an object with 'id' and 'response'"
    if "id" not in record:
        return record, "no 'id'"
    if not isinstance(record.get("response"), str):
        return record, "'response' must be a string"
    return record, None


# -- a run's stored answers ---------------------------------------------------------------------
@dataclass
class Reparse:
    """What re-parsing a run's stored answers changed."""

    rows: int = 0
    unchanged: int = 0
    now_ok: list[str] = field(default_factory=list)
    now_rejected: list[tuple[str, str]] = field(default_factory=list)
    #: The judges whose answers are now rejected, for the command that re-asks them.
    rejected_judges: set[str] = field(default_factory=set)
    values_changed: list[tuple[str, list[str]]] = field(default_factory=list)
    still_rejected: int = 0

    @property
    def changed(self) -> int:
        return len(self.now_ok) + len(self.now_rejected) + len(self.values_changed)


def reparse_run(store: RunStore, judges: Iterable[str] | None = None) -> Reparse:
    """Re-parse every stored judge answer with the current parser; update the rows that change.

    No call is made. A row whose answer is now rejected becomes an 'error' row (its old values
    and comments were a misreading, and are cleared); one that now parses becomes 'ok'. A change
    of comments alone is written too, and listed with the changed values.
    """
    wanted = list(judges) if judges else None
    where = " AND judge IN (" + ", ".join("?" * len(wanted)) + ")" if wanted else ""
    rows = store.query(
        "SELECT * FROM judgments WHERE status IN ('ok', 'error') AND response_text IS NOT NULL"
        + where,
        wanted or (),
    )
    result = Reparse(rows=len(rows))
    with store.transaction() as conn:
        for row in rows:
            identifier = str(row["judgment_id"])
            try:
                parsed = parse_judgment(row["response_text"])
            except JudgeParseError as error:
                if row["status"] == "error":
                    result.still_rejected += 1
                    continue
                message = f"unparsable answer: {error}"
                result.now_rejected.append((identifier, str(error)))
                result.rejected_judges.add(str(row["judge"]))
                nulls = dict.fromkeys(_ANSWER_KEYS)
                refusal = int(is_refusal(row["response_text"]))
                _update(conn, identifier, {**nulls, "status": "error", "parsed": None,
                                            "parse_notes": None, "error": message,
                                            "refusal": refusal})  # fmt: skip
                continue
            columns = parsed.answer.to_columns()
            notes = to_json([*parsed.notes, *_cut_notes(row)])
            if row["status"] == "ok":
                differing = [k for k in _ANSWER_KEYS if row[k] != columns[k]]
                if not differing and row["parse_notes"] == notes:
                    result.unchanged += 1
                    continue
                if differing:
                    result.values_changed.append(
                        (identifier, [_change(row, columns, k) for k in differing])
                    )
                else:
                    result.unchanged += 1
            else:
                result.now_ok.append(identifier)
            _update(conn, identifier, {**columns, "status": "ok", "parsed": to_json(columns),
                                       "parse_notes": notes,
                                       "error": None, "refusal": 0})  # fmt: skip
    return result


#: The columns an answer fills: the ten scores and the three comments.
_ANSWER_KEYS: tuple[str, ...] = (*DIMENSION_KEYS, *(comment.key for comment in COMMENTS))


def _cut_notes(row: Any) -> list[str]:
    """The note that `row`'s answer was cut at the token limit, which its text cannot tell (the
    finish reason is in no column): the stored note of an ok row, kept, or one for an error row
    whose error said so."""
    notes = json.loads(row["parse_notes"]) if row["parse_notes"] else []
    kept = [str(note) for note in notes if str(note).startswith(CUT_ANSWER_NOTE)]
    if not kept and row["status"] == "error" and "cut at the token limit" in str(row["error"]):
        kept.append(f"{CUT_ANSWER_NOTE}: a comment may be cut short")
    return kept


def _change(row: Any, columns: dict[str, Any], key: str) -> str:
    """`form 3 -> 4`, or `comment_overall_quality changed` (comments are too long to show)."""
    if key in DIMENSION_KEYS:
        return f"{key} {row[key]} -> {columns[key]}"
    return f"{key} changed"


def _update(conn: Any, judgment_id: str, values: dict[str, Any]) -> None:
    assignments = ", ".join(f"{column} = ?" for column in values)
    conn.execute(
        f"UPDATE judgments SET {assignments} WHERE judgment_id = ?",
        [*values.values(), judgment_id],
    )
