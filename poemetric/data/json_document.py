"""A `.jsonl` file that holds one JSON document instead of one object per line: a list of
records (`json.dump(records, f)`, pandas' default `to_json(orient="records")`) or an object
written over several lines (`indent=2`). Read line by line, such a file was one "bad JSON" error
per line of the file (11 for one pretty-printed record), or "expected a JSON object per line"
for a one-line list, and never said what to do; it is now one problem of the whole file.
Also `json_object`, the reader's check for a key given twice in one object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from poemetric.data.raw_table import RawTable, ValidationIssue

#: How to write JSON Lines, for a file written otherwise (`.json`, a JSON document in `.jsonl`).
JSON_LINES_HOW = (
    "write one JSON object per line to a .jsonl file "
    "(pandas: df.to_json(path, orient='records', lines=True))"
)


@dataclass(frozen=True)
class JsonDocument:
    """Why the file is not JSON Lines, and how many records the document holds."""

    reason: str
    records: int


def json_document(text: str) -> JsonDocument | None:
    """The diagnosis of `text` when the whole of it is one JSON list of objects, or one object
    written over several lines; None otherwise (JSON Lines, or JSON that is neither)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        what, records = f"a JSON list of {len(value)} objects", len(value)
    elif isinstance(value, dict) and "\n" in text.strip():
        what, records = "one JSON object written over several lines", 1
    else:
        return None
    return JsonDocument(f"the file is {what}, not one object per line: {JSON_LINES_HOW}", records)


def one_document(table: RawTable, text: str, line: int) -> bool:
    """Whether the file is one JSON document (`json_document`): then its one issue, at the
    `line` of its first record, says so, and no record of it is read."""
    document = json_document(text)
    if document is not None:
        table.issues.append(ValidationIssue(str(table.path), line, None, document.reason))
        table.file_error, table.file_error_why = True, "it is not JSON Lines"
        table.records_found = document.records
    return document is not None


def json_object(pairs: list[tuple[str, Any]], twice: list[str]) -> dict[str, Any]:
    """A JSON object as a dict, with each key it gives more than once added to `twice`."""
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            twice.append(key)
        value[key] = item
    return value
