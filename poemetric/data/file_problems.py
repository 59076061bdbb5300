"""Problems of a whole dataset file, found before its records are read one by one: a CSV saved
with another separator than its type's (a spreadsheet's semicolon-separated export), a file that
is not UTF-8 text (UTF-16, Latin-1), a file that is not Parquet. Every record of such a file
fails for the same reason, so `dataset validate` printed the one diagnosis and then one
field-count error per line ("0 of 259 records valid" of a 19-poem file); it is now said once.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from poemetric.data.csv_text import decode_text
from poemetric.data.io import RawTable

#: Field separators a header may have been written with, and how to name them.
SEPARATORS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}
#: The separator each delimited file type is read with.
_OWN = {"csv": ",", "tsv": "\t"}


@dataclass(frozen=True)
class WrongSeparator:
    """The header of a CSV/TSV file splits into the needed columns on another separator."""

    separator: str
    file_format: str

    @property
    def name(self) -> str:
        return SEPARATORS[self.separator]

    @property
    def hint(self) -> str:
        """`; the header is semicolon-separated, and a .csv file is read as comma-separated:
        save it comma-separated` (or `rename the file to .tsv`)."""
        own = _OWN[self.file_format]
        types = {sep: fmt for fmt, sep in _OWN.items()}
        # A .csv file with a semicolon-separated header is read so (`io.semicolon_header`).
        types[";"] = "csv"
        fix = (
            f"rename the file to .{types[self.separator]}"
            if self.separator in types and types[self.separator] != self.file_format
            else f"save it {SEPARATORS[own]}-separated"
        )
        return (
            f"; the header is {self.name}-separated, and a .{self.file_format} file is read as "
            f"{SEPARATORS[own]}-separated: {fix}"
        )


def wrong_separator(
    table: RawTable, text_columns: tuple[str, ...] = ("content",)
) -> WrongSeparator | None:
    """The separator the header was written with, when it is not the file type's and splitting
    on it gives a `form` column and one of `text_columns` (names compared in lower case); None
    otherwise (a semicolon-separated export read as one column was "missing column headers" of
    every required column, all of which it has)."""
    own = _OWN.get(table.file_format)
    if own is None:
        return None
    for separator in SEPARATORS:
        if separator == own:
            continue
        names = {
            part.strip().lower()
            for column in table.columns
            if separator in column
            for part in column.split(separator)
        }
        if "form" in names and names & set(text_columns):
            return WrongSeparator(separator, table.file_format)
    return None


def records_with_separator(data: bytes, separator: str) -> int | None:
    """How many records the file holds when read with `separator` (its header not counted,
    blank lines skipped), or None when it cannot be read so either."""
    text = decode_text(data).text
    if text is None:
        return None
    try:
        rows = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
        count = sum(1 for row in rows if any(cell.strip() for cell in row))
    except csv.Error:
        return None
    return max(count - 1, 0)
