"""What reading a dataset file gives: its raw records with where each starts, and the problems
found on the way (`ValidationIssue`). The readers are in `io.py`, record-level checks in
`validation.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poemetric.text.listing import first_few


@dataclass(frozen=True)
class ValidationIssue:
    """One problem in a dataset file.

    `line` is the physical line (1-based) where the record starts for CSV/TSV/JSONL; for
    Parquet (no lines) it is the 1-based row number and `unit` is "row".
    """

    file: str
    line: int | None
    column: str | None
    reason: str
    unit: str = "line"

    def __str__(self) -> str:
        return f"{self.where}: {self.column or '-'}: {self.reason}"

    @property
    def where(self) -> str:
        """`file:line` (`file:row N` for Parquet, the file alone when there is no line)."""
        return place(self.file, self.line, self.unit)

    def plain(self) -> str:
        """`file:line: reason` (`file:line: column: reason` when a column is named): for a
        reader that is not a dataset validator, where the `-` of no column means nothing."""
        column = f"{self.column}: " if self.column else ""
        return f"{self.where}: {column}{self.reason}"


def place(file: str, line: int | None, unit: str = "line") -> str:
    """`file:line` (`file:row N` for Parquet, the file alone when there is no line)."""
    if line is None:
        return file
    return f"{file}:{'' if unit == 'line' else f'{unit} '}{line}"


def located(file: str, lines: Sequence[int], text: str, unit: str = "line") -> str:
    """A warning as errors are written: `file:LINE: text` at the first of `lines`, then
    ` (also lines 12, 20)` for the others (`first_few`, or `also` as `also_text` words it);
    `file: text` without a line. Warnings were `file: line 83: ...` beside errors'
    `file:83: ...`, which editors and `grep` jump to and the other did not."""
    if not lines:
        return f"{file}: {text}"
    return f"{place(file, lines[0], unit)}: {text}{also_text(lines[1:], unit)}"


def also_text(others: Sequence[int], unit: str = "line", listed: str | None = None) -> str:
    """` (also line 12)`, ` (also lines 12, 20 and 3 more)` (`listed`: the lines as written
    already, `lines 9-12`); empty without others."""
    if not others:
        return ""
    if listed is None:
        listed = f"{unit}{'s' if len(others) > 1 else ''} {first_few(others)}"
    return f" (also {listed})"


@dataclass(frozen=True)
class RawRecord:
    """One record as read from the file: column → value, and where it starts."""

    line: int
    values: dict[str, Any]


@dataclass
class RawTable:
    path: Path
    file_format: str
    columns: list[str]
    header_line: int | None
    records: list[RawRecord] = field(default_factory=list)
    issues: list[ValidationIssue] = field(default_factory=list)
    #: True once a header (CSV) or schema (Parquet) was read; JSONL records carry their own keys.
    header_read: bool = False
    #: Records that could not be read (each is one of `issues`; a broken CSV stretch counts once).
    unreadable: int = 0
    #: The file could not be read at all (not UTF-8 text, not a Parquet file): its one issue says
    #: why, and no record was read.
    file_error: bool = False
    #: With `file_error`: how `dataset validate` says why no record was checked.
    file_error_why: str = "it could not be read"
    #: With `file_error`: the records the file holds when read as it was written (a JSON list).
    records_found: int | None = None
    #: Warnings about how the file was read (a `.csv` read as semicolon-separated, a file read
    #: as Windows-1252, rows of nothing but separators skipped), each naming the file as errors
    #: do: `file:LINE: ...` (`located`), or `file: ...` for the whole file.
    notes: list[str] = field(default_factory=list)
    #: The field separator a CSV/TSV file was read with (None: JSONL, Parquet).
    separator: str | None = None

    @property
    def unit(self) -> str:
        return "row" if self.file_format == "parquet" else "line"
