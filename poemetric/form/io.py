"""Form checks of a CSV/TSV, JSONL or Parquet file into a JSONL file (or a CSV/TSV table).

The input is read with the dataset loader's validating reader (`poemetric.data.io.read_table`):
a record that cannot be read (malformed quoting, wrong field count, bad JSON) becomes an output
line with `error` naming its file and line, and every well-formed record around it is still
checked. Columns (CSV header or JSONL keys): POEMetric's ``content, form, meter_pattern,
rhyme_pattern`` or ``text, form, meter, rhyme``; the first non-empty of an ``id``,
``generation_id`` (a run's exported generations) or ``poem_id`` column is passed through as the
row's id, else its 1-based record number; but a dataset file (``form, title, author, content``
columns) gets the poem ids the dataset loader gives its records (``poem_id``, else ``id``, else
derived), the ids a run prepared from it stores. Texts
go through the pipeline's answer extraction first (`poemetric.extraction.extract_poem`: code
fences, chat preambles, titles, closing remarks), so raw model answers are checked as the
pipeline checks them; what was removed is listed in the output. Only an unusable file (missing,
unsupported type, not UTF-8 text or not Parquet, no rows at all, no text/form columns) raises
`FormInputError`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from poemetric.data.io import (
    EMPTY_CSV,
    POEM_TEXT_COLUMNS,
    DatasetError,
    RawTable,
    file_format,
    read_table,
)
from poemetric.data.raw_table import place
from poemetric.extraction import extract_poem
from poemetric.form.checker import DEFAULT_THRESHOLD, check_poem
from poemetric.form.io_csv import table_writer
from poemetric.form.meter_reading import misspelt_hints
from poemetric.form.parallel import map_in_order, resolve_jobs
from poemetric.text.json_types import json_type
from poemetric.text.plural import counted, plural

#: Where a row's poem may be, first found first: a dataset's `content`, a plain `text` or
#: `poem`, or a raw model answer (`response`, as `judge parse` names it; `response_text`, as a
#: run's exported generations do), which `--extract` (the default) takes the poem out of.
TEXT_KEYS = POEM_TEXT_COLUMNS
FORM_KEYS = ("form",)
METER_KEYS = ("meter_pattern", "meter")
RHYME_KEYS = ("rhyme_pattern", "rhyme")
#: A row's id outside a dataset file: the first of these that is not empty. An exported
#: generations file's own id comes before `poem_id`, which every author's answer to the same poem
#: shares. A dataset file's rows take the loader's poem ids instead (`_dataset_ids`).
ID_KEYS = ("id", "generation_id", "poem_id")
#: A dataset file's columns that its derived poem ids are made of (exact names, as the loader
#: reads them; `poemetric.data.schema.ID_SOURCE_COLUMNS`, which a test keeps equal).
DATASET_ID_COLUMNS = ("form", "title", "author", "content")


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
    #: Physical line (CSV/JSONL) or row (Parquet) where the record starts.
    line: int | None = None

    @classmethod
    def unreadable(cls, row_id: str, error: str, line: int | None = None) -> InputRow:
        """A row that could not be read at all: only its id, line and the reason survive."""
        return cls(row_id, None, None, None, None, error, line)


@dataclass
class CheckSummary:
    rows: int = 0
    #: Rows that could not be checked: unreadable records, missing text or form, unknown form,
    #: unreadable metre or rhyme pattern. (A text that is not a poem is a failed check instead.)
    errors: int = 0
    #: Checked rows whose text is not a poem (empty, one line, non-Latin script): failed checks,
    #: counted in `total`, with `error` saying why.
    not_poems: int = 0
    passed: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)
    #: "file:line: id ID: error" of the first `LISTED` rows that could not be checked, and of the
    #: first `LISTED` texts that are not poems, in file order (`errors` and `not_poems` count all).
    unchecked: list[str] = field(default_factory=list)
    not_poem_rows: list[str] = field(default_factory=list)
    #: What the reader says of the whole input file (a `.csv` read as semicolon-separated).
    warnings: list[str] = field(default_factory=list)


#: How many rows of each kind `CheckSummary` names.
LISTED = 20


def _pick(row: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in row:
            return row[key]
    return None


def _require_columns(table: RawTable, path: Path) -> None:
    from poemetric.data.column_names import rename_hint, spelled_otherwise
    from poemetric.data.file_problems import wrong_separator

    columns = table.columns
    lowered = {c.strip().lower() for c in columns}
    missing = []
    absent = []  # as the dataset schema names them, for the rename hint
    if not lowered & set(TEXT_KEYS):
        missing.append("content (or text, poem, response)")
        absent.append("content")
    if not lowered & set(FORM_KEYS):
        missing.append("form")
        absent.append("form")
    if missing:
        wrong = wrong_separator(table, TEXT_KEYS)
        hint = wrong.hint if wrong else rename_hint(spelled_otherwise(absent, columns))
        raise FormInputError(
            f"{path}: missing required {plural(len(missing), 'column')} {', '.join(missing)}; found "
            f"{', '.join(columns) or 'none'}{hint}"
        )


def _read_table(path: Path) -> RawTable:
    if not path.is_file():
        reason = "a folder, not a file" if path.is_dir() else "no such file"
        raise FormInputError(f"{path}: {reason}")
    try:
        file_format(path)
        table = read_table(path)
    except DatasetError as exc:
        raise FormInputError(str(exc)) from None
    except OSError as exc:
        raise FormInputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not table.records and all(issue.reason == EMPTY_CSV for issue in table.issues):
        raise FormInputError(f"{path}: has no rows (empty, or only a header); nothing to check")
    if table.file_error:  # not UTF-8 text, not Parquet: no row to check (it was "1 rows")
        raise FormInputError("; ".join(issue.plain() for issue in table.issues))
    return table


def read_rows(path: Path, warnings: list[str] | None = None) -> Iterator[InputRow]:
    """Rows of the file in file order: readable records and unreadable ones (with `error`).
    `warnings` gets what the reader says of the file (a `.csv` read as semicolon-separated),
    each naming the file (`FILE:LINE: ...` or `FILE: ...`).
    """
    table = _read_table(path)
    if warnings is not None:
        warnings.extend(table.notes)
    if table.header_read or table.records:
        _require_columns(table, path)
    derived = _dataset_ids(table)
    events: list[tuple[int, int, InputRow | str]] = [
        (record.line, 1, _row(record.values, record.line)) for record in table.records
    ]
    events += [(issue.line or 0, 0, str(issue)) for issue in table.issues]
    events.sort(key=lambda event: (event[0], event[1]))
    for number, (line, _order, item) in enumerate(events, start=1):
        if isinstance(item, str):
            yield InputRow.unreadable(str(number), item, line)
        else:
            row_id = derived.get(line) or item.id or str(number)
            yield InputRow(row_id, *_fields(item), error=item.error, line=line)


def _dataset_ids(table: RawTable) -> dict[int, str]:
    """Line → the poem id the dataset loader gives a record, when the file has a dataset's form,
    title, author and content columns: its `poem_id`, else its `id`, else the derived one. A run
    prepared from the file stores its poems under these ids; `form check` wrote the record number
    ("1", "2", ...) of a record without an id, and the `id` of one with both, which joined with
    nothing. Empty for other files (raw answers, exported generations): `ID_KEYS` there."""
    if not set(DATASET_ID_COLUMNS) <= set(table.columns):
        return {}
    from poemetric.data.schema import dataset_record_id  # pydantic: only for a dataset's file

    ids = {record.line: dataset_record_id(record.values) for record in table.records}
    return {line: poem_id for line, poem_id in ids.items() if poem_id}


def _fields(row: InputRow) -> tuple[Any, Any, Any, Any]:
    return row.text, row.form, row.meter, row.rhyme


def _row(values: dict[str, Any], line: int) -> InputRow:
    record = {str(k).strip().lower(): v for k, v in values.items()}
    ids = (_as_text(record.get(key)) for key in ID_KEYS)
    text_key = next((key for key in TEXT_KEYS if key in record), None)
    text = None if text_key is None else record[text_key]
    problem = _not_text(text)
    return InputRow(
        id=next((row_id for row_id in ids if row_id), ""),
        text=text,
        form=_pick(record, FORM_KEYS),
        meter=_pick(record, METER_KEYS),
        rhyme=_pick(record, RHYME_KEYS),
        error=None if problem is None else f"{text_key}: {problem}",
        line=line,
    )


def _not_text(value: Any) -> str | None:
    """What a poem's value is instead of text or a list of lines (`"response": 42` was checked
    as the poem "42"), or None."""
    if value is None or isinstance(value, str) or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, list | tuple):
        if all(isinstance(line, str) for line in value):
            return None
        other = next(line for line in value if not isinstance(line, str))
        return f"expected text or a list of lines, found a list with {json_type(other)} in it"
    return f"expected text, found {json_type(value)}"


def _as_text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    return str(value)


def _poem_text(value: Any) -> str | None:
    """The poem: a string, or a list of lines (a JSON array, a Parquet list column), which was
    checked as its Python repr ("['A baker ...', ...]"), one line."""
    if isinstance(value, list | tuple) and all(isinstance(line, str) for line in value):
        return "\n".join(value)
    return _as_text(value)


def check_row(row: InputRow, threshold: float, *, extract: bool = True) -> dict[str, Any]:
    """One output record for one input row."""
    if row.error is None:
        text, form = _poem_text(row.text), _as_text(row.form)
        if not form:
            error: str | None = "missing form"
        elif text is None:
            error = "missing poem text"
        else:
            removed: list[str] = []
            if extract:
                extracted = extract_poem(text)
                text, removed = extracted.poem, extracted.notes
            result = check_poem(
                text, form, _as_text(row.meter), _as_text(row.rhyme), threshold=threshold
            )
            return {
                "id": row.id,
                "line": row.line,
                "form": result.form,
                "passed": result.passed,
                "meter_score": result.meter_score,
                "rhyme_score": result.rhyme_score,
                "form_score": result.form_score,
                "threshold": threshold,  # the pass mark `passed` was judged by (--threshold)
                "summary": result.summary,
                "explanation": [
                    {"constraint": issue.constraint, "lines": issue.lines, "detail": issue.detail}
                    for issue in result.explanation
                ],
                "facts": result.facts,
                "extraction": removed,
                "error": result.error,
                "error_kind": result.error_kind,
                "checker_version": result.checker_version,
            }
    else:
        error = row.error
    return {
        "id": row.id,
        "line": row.line,
        "form": _as_text(row.form) or None,  # an empty CSV cell is as missing as a null
        "passed": False,
        "meter_score": None,
        "rhyme_score": None,
        "form_score": None,
        "threshold": threshold,
        "summary": f"not checked: {error}",
        "explanation": [],
        "facts": {},
        "extraction": [],
        "error": error,
        "error_kind": "input",
    }


def check_file(
    source: Path,
    destination: TextIO,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    extract: bool = True,
    jobs: int = 1,
    on_row: Callable[[int, int], None] | None = None,
    separator: str | None = None,
) -> CheckSummary:
    """Check every row of `source`, writing one JSON line per row to `destination` in file order
    (or, with a `separator`, a CSV/TSV table: `poemetric.form.io_csv`).

    `jobs`: worker processes (0 = automatic: one per 1,000 rows, up to the CPUs; 1 = this process;
    see `poemetric.form.parallel`); the output is the same whatever the number. `on_row(done,
    total)` is called after each row is written (a progress bar).
    """
    summary = CheckSummary()
    rows = list(read_rows(source, summary.warnings))
    unit = "row " if file_format(source) == "parquet" else ""
    work = partial(check_row, threshold=threshold, extract=extract)
    write = (
        table_writer(destination, separator)
        if separator
        else lambda record: destination.write(json.dumps(record, ensure_ascii=False) + "\n")
    )
    for record in map_in_order(work, rows, jobs=resolve_jobs(jobs, len(rows))):
        write(record)
        summary.rows += 1
        form = str(record.get("form") or "?")
        if record["error"] and record["error_kind"] != "text":
            summary.errors += 1
            if len(summary.unchecked) < LISTED:
                summary.unchecked.append(_where(source, unit, record))
        else:
            summary.not_poems += bool(record["error"])
            if record["error"] and len(summary.not_poem_rows) < LISTED:
                summary.not_poem_rows.append(_where(source, unit, record))
            summary.total[form] += 1
            summary.passed[form] += int(bool(record["passed"]))
        if on_row is not None:
            on_row(summary.rows, len(rows))
    summary.warnings.extend(_misspelt_meters(source, rows, unit))
    return summary


def _misspelt_meters(source: Path, rows: list[InputRow], unit: str) -> list[str]:
    """One warning per distinct metre annotation with a misspelt word (*iambic pentamter*), with
    its rows' count, at its first line (`file:LINE: metre ...`, as errors are written): the hint
    was only in each row's `facts`, and a typo is not read, so those poems were held to less
    than was meant."""
    found: dict[str, list[int | None]] = {}
    for row in rows:
        meter = _as_text(row.meter)
        if meter and meter.strip():
            found.setdefault(meter, []).append(row.line)
    warnings = []
    for meter, lines in found.items():
        hints = misspelt_hints(meter)
        if hints:
            at = place(str(source), lines[0], unit.strip() or "line")
            rows_of = counted(len(lines), "row")
            warnings.append(f"{at}: metre {meter!r} ({rows_of}): {'; '.join(hints)}")
    return warnings


def _where(source: Path, unit: str, record: dict[str, Any]) -> str:
    """`file:line: id ID: error` for a row's error (an unreadable record's error names its file
    and line already)."""
    error = str(record["error"])
    if error.startswith(f"{source}:"):
        return error
    return f"{source}:{unit}{record['line']}: id {record['id']}: {error}"
