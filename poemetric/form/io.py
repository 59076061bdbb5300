"""Streaming form checks of a CSV or JSONL file into a JSONL file (constant memory).

Input columns (CSV header or JSONL keys): POEMetric's ``content, form, meter_pattern,
rhyme_pattern`` or ``text, form, meter, rhyme``; an ``id`` column is passed through, otherwise the
1-based data row number is the id. A bad row becomes an output line with ``error`` set; only an
unusable file (missing, unreadable, no text/form columns) raises `FormInputError`.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from poemetric.form.checker import DEFAULT_THRESHOLD, check_poem

TEXT_KEYS = ("content", "text", "poem")
FORM_KEYS = ("form",)
METER_KEYS = ("meter_pattern", "meter")
RHYME_KEYS = ("rhyme_pattern", "rhyme")

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


class FormInputError(ValueError):
    """The input file cannot be used at all."""


@dataclass(frozen=True)
class InputRow:
    id: str
    text: Any
    form: Any
    meter: Any
    rhyme: Any
    error: str | None = None

    @classmethod
    def unreadable(cls, row_id: str, error: str) -> InputRow:
        """A row that could not be read at all: only its id and the reason survive."""
        return cls(row_id, None, None, None, None, error)


@dataclass
class CheckSummary:
    rows: int = 0
    errors: int = 0
    passed: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)


def _pick(row: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in row:
            return row[key]
    return None


def _require_columns(columns: list[str], path: Path) -> None:
    lowered = {c.strip().lower() for c in columns}
    missing = []
    if not lowered & set(TEXT_KEYS):
        missing.append("content (or text)")
    if not lowered & set(FORM_KEYS):
        missing.append("form")
    if missing:
        raise FormInputError(
            f"{path}: missing required column(s) {', '.join(missing)}; found {', '.join(columns) or 'none'}"
        )


def read_rows(path: Path) -> Iterator[InputRow]:
    """Rows of a .csv or .jsonl/.ndjson file, one at a time."""
    if not path.is_file():
        raise FormInputError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".ndjson", ".json"}:
        yield from _read_jsonl(path)
    elif suffix in {".csv", ".tsv"}:
        yield from _read_csv(path, delimiter="\t" if suffix == ".tsv" else ",")
    else:
        raise FormInputError(f"{path}: unsupported input type {suffix!r}; use .csv or .jsonl")


def _row(record: dict[str, Any], default_id: int) -> InputRow:
    record = {str(k).strip().lower(): v for k, v in record.items()}
    raw_id = record.get("id")
    row_id = str(raw_id) if raw_id not in (None, "") else str(default_id)
    return InputRow(
        id=row_id,
        text=_pick(record, TEXT_KEYS),
        form=_pick(record, FORM_KEYS),
        meter=_pick(record, METER_KEYS),
        rhyme=_pick(record, RHYME_KEYS),
    )


def _read_csv(path: Path, *, delimiter: str) -> Iterator[InputRow]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        _require_columns(list(reader.fieldnames or []), path)
        for number, record in enumerate(reader, start=1):
            if None in record:  # more fields than the header
                yield InputRow.unreadable(
                    str(number), f"{path}: data row {number} has more fields than the header"
                )
                continue
            yield _row(record, number)


def _read_jsonl(path: Path) -> Iterator[InputRow]:
    with path.open(encoding="utf-8-sig") as handle:
        checked_columns = False
        number = 0
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            number += 1
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                yield InputRow.unreadable(
                    str(number), f"{path}:{line_number}: invalid JSON ({exc.msg})"
                )
                continue
            if not isinstance(record, dict):
                yield InputRow.unreadable(
                    str(number), f"{path}:{line_number}: a JSON object is expected"
                )
                continue
            if not checked_columns:
                _require_columns(list(record), path)
                checked_columns = True
            yield _row(record, number)


def _as_text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    return str(value)


def check_row(row: InputRow, threshold: float) -> dict[str, Any]:
    """One output record for one input row."""
    if row.error is None:
        text, form = _as_text(row.text), _as_text(row.form)
        if not form:
            error: str | None = "missing form"
        elif text is None:
            error = "missing poem text"
        else:
            result = check_poem(
                text, form, _as_text(row.meter), _as_text(row.rhyme), threshold=threshold
            )
            return {
                "id": row.id,
                "form": result.form,
                "passed": result.passed,
                "meter_score": result.meter_score,
                "rhyme_score": result.rhyme_score,
                "form_score": result.form_score,
                "summary": result.summary,
                "explanation": [issue.model_dump() for issue in result.explanation],
                "facts": result.facts,
                "error": result.error,
                "checker_version": result.checker_version,
            }
    else:
        error = row.error
    return {
        "id": row.id,
        "form": _as_text(row.form),
        "passed": False,
        "meter_score": None,
        "rhyme_score": None,
        "form_score": None,
        "summary": f"not checked: {error}",
        "explanation": [],
        "facts": {},
        "error": error,
    }


def check_file(
    source: Path, destination: TextIO, *, threshold: float = DEFAULT_THRESHOLD
) -> CheckSummary:
    """Check every row of `source`, writing one JSON line per row to `destination`."""
    summary = CheckSummary()
    for row in read_rows(source):
        record = check_row(row, threshold)
        destination.write(json.dumps(record, ensure_ascii=False) + "\n")
        summary.rows += 1
        form = str(record.get("form") or "?")
        if record["error"]:
            summary.errors += 1
        else:
            summary.total[form] += 1
            summary.passed[form] += int(bool(record["passed"]))
    return summary
