"""Reading and writing dataset files (CSV/TSV, JSONL, Parquet) as raw records with positions.

Readers never drop anything silently: structural problems (bad encoding, malformed quoting,
wrong field counts, bad JSON) come back as `ValidationIssue`s with the physical line number
where the record starts, and reading goes on after them (a CSV record with an unclosed quote is
reported once and the reader resynchronises on the next well-formed record). What a read gives
(records, issues) is defined in `raw_table.py`; record-level checks live in `validation.py`.
pandas/pyarrow are imported only for Parquet (start-up time), read in `parquet_rows.py`.
"""

from __future__ import annotations

import csv
import functools
import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from poemetric.data.csv_text import (
    HeaderTest,
    TextLines,
    decode_text,
    line_spans,
    newline_split,
    semicolon_header,
    separator_hint,
)
from poemetric.data.json_document import JSON_LINES_HOW, json_object, one_document
from poemetric.data.parquet_rows import parquet_records
from poemetric.data.raw_table import RawRecord, RawTable, ValidationIssue, also_text, located
from poemetric.data.raw_table import place as place  # still imported from here (probes)
from poemetric.paths import replaced_when_done

if TYPE_CHECKING:
    from poemetric.data.schema import Poem

CSV_SUFFIXES = {".csv": ",", ".tsv": "\t"}
JSONL_SUFFIXES = (".jsonl", ".ndjson")
PARQUET_SUFFIXES = (".parquet", ".pq")
SUPPORTED_SUFFIXES = (*CSV_SUFFIXES, *JSONL_SUFFIXES, *PARQUET_SUFFIXES)
#: Spreadsheet files, which no command reads: their rows are saved as CSV first.
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")
#: The issue of a CSV/TSV file with no header row (nothing in it but blank lines).
EMPTY_CSV = "empty file: no header row"
#: The longest CSV field read (characters). Python's csv module stops at 131,072 by default,
#: which rejected a long poem (a 3,000-line ballad) as "malformed CSV ... (an unclosed quote?)"
#: while the same poem in JSONL or Parquet was read.
CSV_FIELD_LIMIT = 1 << 26
#: Header names (lower case) that mark a `.csv` file's header as semicolon-separated when it has
#: `;` between them and no comma outside quotes: the `form` column and a poem-text column (a
#: dataset's `content`, or one `form check` reads). A European Excel saves "CSV" with `;` (the
#: system's list separator), and such a file was refused ("save it comma-separated"), advice
#: that Excel cannot follow without changing a system setting.
SEMICOLON_HEADER_FORM = "form"
POEM_TEXT_COLUMNS = ("content", "text", "poem", "response", "response_text")
_SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}


class DatasetError(ValueError):
    """A dataset could not be found, read or validated; the message says what to do."""


def file_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in CSV_SUFFIXES:
        return suffix.lstrip(".")
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    raise DatasetError(unsupported_type(path))


def unsupported_type(path: Path) -> str:
    """Why `path` is no dataset file; a spreadsheet (`.xlsx`) is to be saved as CSV first."""
    suffix = path.suffix.lower()
    what = f"{path}: unsupported file type {suffix or '(none)'!r}"
    if suffix in WORKBOOK_SUFFIXES:
        return f'{what}, a spreadsheet: save it as CSV (Excel: "CSV UTF-8") and give the .csv file'
    if suffix == ".json":
        return f"{what}: {JSON_LINES_HOW}"
    return f"{what}; use one of " + ", ".join(SUPPORTED_SUFFIXES)


def read_table(
    path: Path, data: bytes | None = None, semicolon_names: HeaderTest | None = None
) -> RawTable:
    """Read a dataset file into raw records. `data` is the file's bytes when already read.
    `semicolon_names`: whether a `.csv` header split on `;` has the columns of the file's kind
    (`semicolon_header`; a dataset's by default, a ratings file's for its readers)."""
    table, records = stream_table(path, data, semicolon_names)
    table.records.extend(records)
    return table


def stream_table(
    path: Path, data: bytes | None = None, semicolon_names: HeaderTest | None = None
) -> tuple[RawTable, Iterator[RawRecord]]:
    """`read_table` a record at a time, for a file too large to hold as records (`agree`'s
    ratings, a million rows): the table, and its records, which are not kept in
    `table.records`. The columns, header and the notes on how the file is read are there from
    the start (a JSONL file's columns, every record's keys, once its records are read); the
    issues, the other notes and `unreadable` are whole once the records are read."""
    fmt = file_format(path)
    if data is None:
        data = path.read_bytes()
    table = RawTable(path, fmt, columns=[], header_line=None)
    if fmt in ("csv", "tsv"):
        names = semicolon_names or dataset_header
        records = _read_csv(table, data, delimiter=CSV_SUFFIXES["." + fmt], names=names)
    elif fmt == "jsonl":
        records = _read_jsonl(table, data)
    else:
        records = parquet_records(table, data)
    del data  # held by the reader until it has the text
    first = next(records, None)  # a CSV file's header is read with its first record
    return table, records if first is None else itertools.chain((first,), records)


def _decode(path: Path, data: bytes, table: RawTable) -> str | None:
    """The file's text (`csv_text.decode_text`): a Windows-1252 file is read with a note, bytes
    of neither encoding are the table's one issue (file and line)."""
    decoded = decode_text(data)
    if decoded.problem is not None:
        line, reason = decoded.problem
        table.issues.append(ValidationIssue(str(path), line, None, reason))
        table.file_error = True
    if decoded.note is not None:
        at = [] if decoded.note_line is None else [decoded.note_line]
        table.notes.append(located(str(path), at, decoded.note))
    return decoded.text


def dataset_header(names: set[str]) -> bool:
    """A `form` column and a poem-text column (`POEM_TEXT_COLUMNS`)."""
    return SEMICOLON_HEADER_FORM in names and bool(names & set(POEM_TEXT_COLUMNS))


def _read_csv(
    table: RawTable, data: bytes, delimiter: str, names: HeaderTest
) -> Iterator[RawRecord]:
    path, fmt = table.path, table.file_format
    text = _decode(path, data, table)
    del data
    if text is None:
        return
    # newline="" keeps newlines inside quoted fields; lines are counted here, physically.
    lines = TextLines(text)
    hint = separator_hint(lines[0].rstrip("\r\n")) if lines else None
    if hint is not None:  # Excel's `sep=;` line: the separator, and no row of the file
        lines[0] = "\n"
        if hint != delimiter:
            table.notes.append(
                located(
                    str(path),
                    [],
                    f"the first line `sep={hint}` (a spreadsheet's separator hint) sets the "
                    f"separator: the file is read with {hint!r} between fields",
                )
            )
        delimiter = hint
    elif fmt == "csv" and semicolon_header(text, names):
        delimiter = ";"
        table.notes.append(
            located(
                str(path),
                [],
                "the header is semicolon-separated (a spreadsheet's CSV with ';' as its list "
                "separator): the file is read with ';' between fields",
            )
        )
    table.separator = delimiter
    separator = _SEPARATOR_NAMES.get(delimiter, repr(delimiter))
    if csv.field_size_limit() < CSV_FIELD_LIMIT:
        csv.field_size_limit(CSV_FIELD_LIMIT)
    empty_rows: list[int] = []  # rows of nothing but separators (a spreadsheet's empty rows)
    header: list[str] | None = None
    next_line = 0  # 0-based index of the next physical line to parse
    # A malformed record being skipped: (first line, csv error); records that do not have the
    # header's field count are absorbed into it until a well-formed one starts.
    broken: tuple[int, str] | None = None

    def close_broken(last_line: int, at_end: bool = False) -> None:
        """Report the broken record; `at_end`: no well-formed record followed it."""
        nonlocal broken
        if broken is not None:
            first, error = broken
            span = f"line {first}" if last_line <= first else f"lines {first}-{last_line}"
            after = (
                "it runs to the end of the file, so the rest of the file could not be read"
                if at_end
                else "reading resumed after it"
            )
            table.unreadable += 1
            table.issues.append(
                ValidationIssue(
                    str(path),
                    first,
                    None,
                    f"malformed {fmt.upper()}: {error}; {span} could not be read as a record "
                    f"(an unclosed quote?), {after}",
                )
            )
            broken = None

    while next_line < len(lines):
        consumed = [next_line]

        def feed(start: int, consumed: list[int] = consumed) -> Iterator[str]:
            for index in range(start, len(lines)):
                consumed[0] = index + 1
                yield lines[index]

        reader = csv.reader(feed(next_line), delimiter=delimiter, strict=True)
        restart: int | None = None
        while True:
            start = consumed[0] + 1  # 1-based physical line where this record starts
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as error:
                if header is None:
                    table.issues.append(
                        ValidationIssue(str(path), start, None, f"malformed {fmt.upper()}: {error}")
                    )
                    next_line = len(lines)
                    break
                if broken is None:
                    broken = (start, str(error))
                restart = start  # resume on the line after this record's first line
                break
            if not row or all(not cell.strip() for cell in row):
                if len(row) > 1:
                    empty_rows.append(start)
                continue  # blank line: no data to lose
            if header is None:
                header = [name.strip() for name in row]
                table.columns = header
                table.header_line = start
                table.header_read = True
                continue
            if len(row) != len(header):
                if broken is not None:
                    restart = start  # still inside the broken record: skip one line
                    break
                table.unreadable += 1
                table.issues.append(
                    ValidationIssue(
                        str(path),
                        start,
                        None,
                        f"expected {len(header)} fields (as in the header), found {len(row)}"
                        + (
                            f" (an unquoted {separator} in a text field? put such fields in "
                            "double quotes)"
                            if len(row) > len(header)
                            else ""
                        ),
                    )
                )
                continue
            close_broken(start - 1)
            yield RawRecord(start, dict(zip(header, row, strict=True)))
        if restart is None:
            break
        next_line = restart  # index of the line after the record's first line
    close_broken(len(lines), at_end=True)
    if empty_rows:
        first, *others = sorted(set(empty_rows))
        rows = "row" if not others else "rows"
        said = f"only {separator}s, no value (a spreadsheet's empty {rows}): skipped"
        also = also_text(others, listed=line_spans(others)) if others else ""
        table.notes.append(located(str(path), [first], said) + also)
    if header is None and not table.issues:
        table.issues.append(ValidationIssue(str(path), 1, None, EMPTY_CSV))
    table.issues.sort(key=lambda issue: issue.line or 0)


def _read_jsonl(table: RawTable, data: bytes) -> Iterator[RawRecord]:
    path = table.path
    text = _decode(path, data, table)
    del data
    if text is None:
        return
    seen: dict[str, None] = {}
    first = True
    for number, line in enumerate(newline_split(text), start=1):
        if not line.strip():
            continue
        # Only the first record's line can start a JSON document: a file of bad lines is not
        # parsed whole once per line (quadratic in a large broken document).
        at_first, first = first, False
        twice: list[str] = []
        try:
            value = json.loads(line, object_pairs_hook=functools.partial(json_object, twice=twice))
        except json.JSONDecodeError as error:
            if at_first and one_document(table, text, number):
                return
            table.unreadable += 1
            # json's message alone can end mid-sentence ("Unterminated string starting at").
            at = "" if error.msg.endswith(" at") else " at"
            reason = f"bad JSON: {error.msg}{at} column {error.colno}"
            table.issues.append(ValidationIssue(str(path), number, None, reason))
            continue
        if not isinstance(value, dict):
            if at_first and one_document(table, text, number):
                return
            table.unreadable += 1
            table.issues.append(
                ValidationIssue(str(path), number, None, "expected a JSON object per line")
            )
            continue
        if twice:  # json keeps the last value of a key given twice: the other would be lost
            table.unreadable += 1
            keys = list(dict.fromkeys(twice))
            column = keys[0] if len(keys) == 1 else None
            reason = "given twice in one object (only the last value would be read): keep one"
            if column is None:
                reason = (
                    f"keys {', '.join(map(repr, keys))} {reason.replace('given', 'each given')}"
                )
            table.issues.append(ValidationIssue(str(path), number, column, reason))
            continue
        seen.update(dict.fromkeys(value))
        yield RawRecord(number, value)
    table.columns = list(seen)


# -- writing -------------------------------------------------------------------------------
def write_dataset(poems: Iterable[Poem], path: str | Path) -> Path:
    """Write poems as CSV/TSV, JSONL or Parquet (by suffix), atomically.

    Columns: `poem_id` then the release's columns, so re-reading gives the same poems and ids.
    """
    # Imported here: reading tables (the form checker) does not need the pydantic schema.
    from poemetric.data.schema import OUTPUT_COLUMNS

    path = Path(path)
    fmt = file_format(path)
    rows = [poem.to_row() for poem in poems]
    path.parent.mkdir(parents=True, exist_ok=True)
    with replaced_when_done(path) as temp:
        if fmt in ("csv", "tsv"):
            with temp.open("w", encoding="utf-8", newline="") as stream:
                writer = csv.DictWriter(
                    stream, fieldnames=list(OUTPUT_COLUMNS), delimiter=CSV_SUFFIXES["." + fmt]
                )
                writer.writeheader()
                writer.writerows(
                    {k: ("" if v is None else v) for k, v in row.items()} for row in rows
                )
        elif fmt == "jsonl":
            with temp.open("w", encoding="utf-8", newline="\n") as stream:
                for row in rows:
                    stream.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            schema = pa.schema([(column, pa.string()) for column in OUTPUT_COLUMNS])
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), temp)
    return path
