"""`form check`'s output rows as a CSV or TSV table (an output file named `.csv` or `.tsv`).

The JSON lines carry the explanation, facts and extraction notes as lists and objects; a table
gives each as readable text, one item a line inside its cell (`[rhyme] lines 6 and 13: ...`,
`scheme: Shakespearean ...`), so a poet can read the checks in a spreadsheet. Scores are written
as in the JSON lines (`0.8952`), `passed` as `true`/`false`, a missing value as an empty cell.
Before, `-o checks.csv` wrote JSON lines into a file named `.csv`.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from typing import Any, TextIO

#: The table's columns, in the JSON lines' order.
CSV_COLUMNS = (
    "id",
    "line",
    "form",
    "passed",
    "meter_score",
    "rhyme_score",
    "form_score",
    "threshold",
    "summary",
    "explanation",
    "facts",
    "extraction",
    "error",
    "error_kind",
    "checker_version",
)
#: Output suffix -> field separator of the table written there.
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}


def line_numbers(lines: list[int]) -> str:
    """`line 4`, `lines 6 and 13`, `lines 1, 4 and 5` (`lines 6,13` read as one number); over
    `SHOWN_LINES`, the first of them and a count: `lines 9, 10, ..., 28 and 572 more` (the
    catch-all finding of a 600-line poem printed all 592 numbers; the record keeps them)."""
    if len(lines) == 1:
        return f"line {lines[0]}"
    if len(lines) > SHOWN_LINES:
        shown = ", ".join(map(str, lines[:SHOWN_LINES]))
        return f"lines {shown} and {len(lines) - SHOWN_LINES} more"
    *first, last = map(str, lines)
    return f"lines {', '.join(first)} and {last}"


#: Line numbers a finding's text names before "and N more".
SHOWN_LINES = 20


def finding_text(constraint: object, lines: list[int], detail: object) -> str:
    """`[rhyme] lines 6 and 13: line 13 (G) rhymes with ...`: a finding as `form scan` prints it
    and the table's explanation cell holds it."""
    where = f" {line_numbers(lines)}:" if lines else ""
    return f"[{constraint}]{where} {detail}"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_row(record: dict[str, Any]) -> dict[str, str]:
    """One output record (`poemetric.form.io.check_row`) as table cells."""
    row = {column: _cell(record.get(column)) for column in CSV_COLUMNS}
    row["explanation"] = "\n".join(
        finding_text(issue.get("constraint"), list(issue.get("lines") or []), issue.get("detail"))
        for issue in record.get("explanation", [])
    )
    row["facts"] = "\n".join(f"{key}: {value}" for key, value in record.get("facts", {}).items())
    row["extraction"] = "\n".join(map(str, record.get("extraction", [])))
    return row


def table_writer(destination: TextIO, separator: str) -> Callable[[dict[str, Any]], None]:
    """Write the header now and return a function that writes one record as a row."""
    writer = csv.DictWriter(
        destination, fieldnames=list(CSV_COLUMNS), delimiter=separator, lineterminator="\n"
    )
    writer.writeheader()
    return lambda record: writer.writerow(csv_row(record))
