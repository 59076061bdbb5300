"""Record-level validation: turn raw records into `Poem`s and collect every problem."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from poemetric.data.column_names import content_hint, rename_hint, spelled_otherwise
from poemetric.data.file_problems import records_with_separator, wrong_separator
from poemetric.data.io import read_table
from poemetric.data.raw_table import RawRecord, RawTable, ValidationIssue, located, place
from poemetric.data.schema import (
    ID_COLUMNS,
    KNOWN_COLUMNS,
    POEMETRIC_COLUMNS,
    REQUIRED_COLUMNS,
    YEAR_FIELDS,
    Poem,
    PoemForm,
)
from poemetric.text.plural import counted, plural

#: Model field → file column, for messages.
_FIELD_COLUMNS = {"link": "poem_link-href"}
#: The issue of a file that reads cleanly and holds no record: a dataset without a poem was "0
#: valid poems" (exit 0), and `generate` prepared a run of no poems that kept that dataset.
NO_RECORDS = "no poems: the file has no records"
#: Required columns whose value may be empty (the prompt leaves the field out).
_EMPTY_ALLOWED = ("meter_pattern", "rhyme_pattern", "theme")


@dataclass
class ValidationReport:
    """Everything found in one file: the valid poems, the problems and the warnings."""

    path: Path
    file_format: str
    sha256: str
    records: int
    poems: list[Poem] = field(default_factory=list)
    #: Each valid poem's `file:line` (`file:row N` in Parquet), by poem id.
    where: dict[str, str] = field(default_factory=dict)
    issues: list[ValidationIssue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Records that could not be read at all (malformed CSV, bad JSON): not in `records`.
    unreadable: int = 0
    #: The header (or, in JSONL, every record) lacks a required or has a repeated column, so no
    #: record is valid even where its own values are.
    column_problems: bool = False
    #: Why no record was checked, when the problem is the whole file's ("it could not be read",
    #: "it is semicolon-separated"): `issues` then holds that diagnosis alone, not one follow-on
    #: error per line.
    whole_file: str | None = None
    #: With `whole_file` of a wrong separator: the records the file holds when read with it.
    records_found: int | None = None

    @property
    def ok(self) -> bool:
        return not self.issues

    @property
    def valid_records(self) -> int:
        """Records without any problem: none when the columns themselves are wrong."""
        return 0 if self.column_problems else len(self.poems)

    def form_counts(self) -> dict[PoemForm, int]:
        """Poems per form, most frequent first (ties by form name)."""
        counts = Counter(poem.form for poem in self.poems)
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0].value)))

    def summary(self, limit: int = 20) -> str:
        """The first `limit` problems, one `file:line: column: reason` per line."""
        lines = [str(issue) for issue in self.issues[:limit]]
        if len(self.issues) > limit:
            lines.append(f"... and {len(self.issues) - limit} more problems")
        return "\n".join(lines)


def validate_file(
    path: str | Path, data: bytes | None = None, table: RawTable | None = None
) -> ValidationReport:
    """Read and check a dataset file; never raises for bad content (see `report.issues`).
    `data` and `table`: the file's bytes and `read_table(path, data)`, when already read."""
    path = Path(path)
    if data is None:
        data = path.read_bytes()
    if table is None:
        table = read_table(path, data)
    report = ValidationReport(
        path=path,
        file_format=table.file_format,
        sha256=hashlib.sha256(data).hexdigest(),
        records=len(table.records),
        unreadable=table.unreadable,
    )
    report.issues.extend(table.issues)
    report.warnings.extend(table.notes)  # read as semicolon-separated: said first
    _check_records(table, report)
    if not table.records and not report.issues:  # a header only, or an empty JSONL file
        report.issues.append(ValidationIssue(str(path), None, None, NO_RECORDS))
    report.issues.sort(key=lambda issue: issue.line or 0)
    _whole_file(report, table, data)
    return report


def _whole_file(report: ValidationReport, table: RawTable, data: bytes) -> None:
    """Keep only the diagnosis of a problem of the whole file (see `file_problems`)."""
    if table.file_error:
        report.whole_file = table.file_error_why
        report.records_found = table.records_found
        return
    wrong = wrong_separator(table) if report.column_problems else None
    if wrong is None:
        return
    # Every line read with the type's separator is one field-count error or a record without
    # any required column: the header's diagnosis says it all.
    report.issues = [issue for issue in report.issues if issue.line == table.header_line]
    report.warnings = []
    report.unreadable = 0
    report.whole_file = f"it is {wrong.name}-separated"
    report.records_found = records_with_separator(data, wrong.separator)


def _repeats_header(values: dict[str, Any]) -> bool:
    """Whether a CSV record is the header written again, as where two exports are joined (it
    was three errors on its line: form 'form', year 'year', rhyme pattern 'rhyme_pattern')."""
    return all(str(values.get(column, "")).strip() == column for column in ("form", "content"))


def _check_records(table: RawTable, report: ValidationReport) -> None:
    file = str(table.path)
    table_issues = len(report.issues)
    missing_headers: set[str] = set()
    if table.header_read:
        missing = [column for column in REQUIRED_COLUMNS if column not in table.columns]
        missing_headers = set(missing)
        if missing:
            report.issues.append(
                ValidationIssue(
                    file,
                    table.header_line,
                    ", ".join(missing),
                    f"missing column header{'s' if len(missing) > 1 else ''} (required: "
                    + ", ".join(REQUIRED_COLUMNS)
                    + ")"
                    + (content_hint(table.columns) if "content" in missing_headers else "")
                    + rename_hint(spelled_otherwise(missing, table.columns))
                    + (wrong.hint if (wrong := wrong_separator(table)) else ""),
                )
            )
        # Unnamed columns (a spreadsheet's empty ones after the data) are ignored, so two of
        # them lose nothing: they were "column appears more than once", every record refused.
        counts = Counter(table.columns)
        duplicated = [name for name, count in counts.items() if count > 1 and name]
        for column in duplicated:
            report.issues.append(
                ValidationIssue(file, table.header_line, column, "column appears more than once")
            )
    renamed: dict[str, str] = {}
    if not table.header_read and table.records:
        # JSONL keys spelled otherwise ("Form"): said once, not as "missing value" per record.
        absent_keys = [column for column in REQUIRED_COLUMNS if column not in table.columns]
        renamed = spelled_otherwise(absent_keys, table.columns)
        if renamed:
            missing_headers |= set(renamed)
            keys = ", ".join(repr(column) for column in renamed)
            report.issues.append(
                ValidationIssue(
                    file,
                    None,
                    ", ".join(renamed),
                    f"no record has the key{'s' if len(renamed) > 1 else ''} {keys}"
                    + rename_hint(renamed),
                )
            )
        hint = "" if {"content"} & {*table.columns, *renamed} else content_hint(table.columns)
        if hint:
            # Said once for the file, not as "content: missing value" on every record.
            missing_headers.add("content")
            report.issues.append(
                ValidationIssue(file, None, "content", "no record has a 'content' key" + hint)
            )
    if not table.header_read and table.records:
        # JSONL: a required key that no record has (a typo'd "thme") was read as empty in every
        # poem, where a CSV without that column is an error. form, title, author and content
        # are reported on each record ("missing value"); these three have no value to miss.
        keyless = [
            column
            for column in _EMPTY_ALLOWED
            if column not in table.columns and column not in renamed
        ]
        if keyless:
            keys = ", ".join(repr(column) for column in keyless)
            report.issues.append(
                ValidationIssue(
                    file,
                    None,
                    ", ".join(keyless),
                    f"no record has the key{'s' if len(keyless) > 1 else ''} {keys} (required: "
                    + ", ".join(REQUIRED_COLUMNS)
                    + f'; write "{keyless[0]}": "" for an empty value)',
                )
            )
    absent = [
        column
        for column in POEMETRIC_COLUMNS
        if column not in table.columns
        and column not in REQUIRED_COLUMNS
        and not (column == "poem_link-href" and "link" in table.columns)
    ]
    if table.header_read and absent:
        report.warnings.append(
            f"{file}: optional POEMetric columns absent (their values are treated as empty): "
            + ", ".join(repr(column) for column in absent)
        )
    unknown = [repr(column) for column in table.columns if column and column not in KNOWN_COLUMNS]
    unnamed = [str(index) for index, column in enumerate(table.columns, 1) if not column]
    if unnamed:  # was '', '' : say where they are
        unknown.append(
            f"{counted(len(unnamed), 'unnamed column')} "
            f"({plural(len(unnamed), 'column', 'columns')} {', '.join(unnamed)} of the header)"
        )
    if unknown:
        report.warnings.append(
            f"{file}: ignored columns (not part of the POEMetric schema): " + ", ".join(unknown)
        )
    report.column_problems = len(report.issues) > table_issues
    id_column = next((column for column in ID_COLUMNS if column in table.columns), "poem_id")

    first_line: dict[str, int] = {}
    keyless_lines: dict[str, list[int]] = {}  # JSONL: a required key → the records without it
    for record in table.records:
        misnamed = None if table.header_read else _keys_absent(record, table.columns, keyless_lines)
        if misnamed:
            report.issues.append(ValidationIssue(file, record.line, *misnamed, unit=table.unit))
        if table.header_read and _repeats_header(record.values):
            reason = "the header again (files joined, each with its header?): delete the line"
            report.issues.append(ValidationIssue(file, record.line, None, reason, unit=table.unit))
            continue
        try:
            read = {k: v for k, v in record.values.items() if k not in YEAR_FIELDS}
            poem = Poem.model_validate(read)
        except ValidationError as error:
            problems = _issues_from_error(error, record.values, missing_headers, id_column)
            for bad_column, reason in problems:
                report.issues.append(
                    ValidationIssue(file, record.line, bad_column, reason, unit=table.unit)
                )
            continue
        if misnamed:
            continue
        if poem.poem_id in first_line:
            explicit = any(record.values.get(column) for column in ID_COLUMNS)
            where = f"{table.unit} {first_line[poem.poem_id]}"
            reason = (
                f"duplicate poem id {poem.poem_id!r} (first used on {where})"
                if explicit
                else f"duplicate poem: same form, author, title and text as {where}"
            )
            report.issues.append(
                ValidationIssue(file, record.line, id_column, reason, unit=table.unit)
            )
            continue
        first_line[poem.poem_id] = record.line
        report.where[poem.poem_id] = place(file, record.line, table.unit)
        report.poems.append(poem)
    report.warnings.extend(_keyless_warnings(file, keyless_lines))
    report.warnings.extend(_meter_warnings(file, report.poems, first_line, table.unit))


def _keys_absent(
    record: RawRecord, columns: list[str], keyless: dict[str, list[int]]
) -> tuple[str, str] | None:
    """JSONL: the required keys whose value may be empty that `record` lacks while other records
    have them. One spelled otherwise in it (`"Theme"`) is an error, (columns, reason), since its
    value would be lost (it made the whole file "no record has the key 'theme'"); one simply
    absent is read as empty, and its line is added to `keyless` for a warning."""
    absent = [
        column for column in _EMPTY_ALLOWED if column in columns and column not in record.values
    ]
    renamed = spelled_otherwise(absent, list(record.values))
    for column in absent:
        if column not in renamed:
            keyless.setdefault(column, []).append(record.line)
    if not renamed:
        return None
    keys = ", ".join(repr(column) for column in renamed)
    many = len(renamed) > 1
    reason = f"no key{'s' if many else ''} {keys} in this record (other records have "
    return ", ".join(renamed), reason + f"{'them' if many else 'it'})" + rename_hint(renamed)


def _keyless_warnings(file: str, keyless: dict[str, list[int]]) -> list[str]:
    """One warning per required key that some JSONL records lack: their value is read as empty
    (the prompt leaves the field out), which a record lacking it by mistake did silently.
    `file:LINE:` of the first such record, as errors are written; the others after it."""
    return [
        located(
            file,
            lines,
            f"{column}: no {column!r} key, which other records have: read as empty (write "
            f'"{column}": "" to say so)',
        )
        for column, lines in keyless.items()
    ]


def _meter_warnings(file: str, poems: list[Poem], lines: dict[str, int], unit: str) -> list[str]:
    """One warning per `meter_pattern` value the form checker reads only in part ('iambic
    pentameter (loose)': how it reads it) or not at all ('Accentual': its poems, and every
    model's poem for them, get no metre score; rhyme and form are still checked). The file is
    valid either way: the value is free text and goes into the prompt as written."""
    from poemetric.form.meter_reading import read_meter  # re only; the checker is not loaded

    notes: dict[str, tuple[str, bool, list[int]]] = {}
    for poem in poems:
        meter = poem.meter_pattern
        if meter is None:
            continue
        if meter not in notes:
            reading = read_meter(meter)
            notes[meter] = (reading.note or "", reading.unscored, [])
        notes[meter][2].append(lines[poem.poem_id])
    warnings = []
    for note, unscored, where in notes.values():
        if not note:
            continue
        several = len(where) > 1
        said = f"meter_pattern: {note}"
        if unscored:
            whose = (
                "these poems (and of every model's poem for them)"
                if several
                else "this poem (and of every model's poem for it)"
            )
            said += f"; `poemetric form run` checks the rhyme and form of {whose} but gives no "
            said += "metre score"
        warnings.append(located(file, where, said, unit))  # `file:LINE: ... (also lines 9, 12)`
    return warnings


def _issues_from_error(
    error: ValidationError, values: dict[str, Any], missing_headers: set[str], id_column: str
) -> list[tuple[str | None, str]]:
    problems: list[tuple[str | None, str]] = []
    for detail in error.errors():
        field_name = str(detail["loc"][0]) if detail["loc"] else None
        if field_name == "poem_id":
            column: str | None = id_column
        elif field_name is not None:
            column = _FIELD_COLUMNS.get(field_name, field_name)
        else:
            column = None
        if column in missing_headers:
            continue  # already reported once, at the header
        kind = detail["type"]
        if kind == "missing":
            reason = "missing value"
        elif kind == "string_too_short":
            reason = "empty value"
        elif kind in ("string_type", "int_type", "int_parsing"):
            reason = f"{detail['msg'].lower()} (got {values.get(str(column))!r})"
        else:
            reason = str(detail["msg"]).removeprefix("Value error, ")
        problems.append((column, reason))
    return problems
