"""Reading a text file a user names or writes (a poem, a prompt template, a YAML or JSONL file),
as Windows tools save it: UTF-8 with or without a byte-order mark (which is dropped: it was sent
to every model at the start of a template), line ends read as Python's text mode reads them
(CRLF and CR as LF: a template's hash is that of `Path.read_text`); a file that cannot be read
is one `TextFileError` line, `FILE:LINE: reason`, never a UnicodeDecodeError traceback.

Two policies, on `csv_text.decode_text`'s rules:

* `read_text_file`: a text of words (a poem): Windows-1252 (Notepad's "ANSI") is read, with a
  warning that says so;
* `read_utf8_file` (and `poemetric.data.yaml_fields.read_yaml_document`): a file of settings or
  records (YAML, JSON, a prompt template): only UTF-8; a Windows-1252 file is refused with the
  line of its first such byte.

Tables (CSV/TSV/JSONL) are read by `poemetric.data.io.read_table`, on the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from poemetric.data.csv_text import PLAIN_TEXT, decode_text, not_utf8
from poemetric.data.raw_table import place


class TextFileError(ValueError):
    """A file that cannot be read as text; the message is one line, `FILE[:LINE]: reason`
    (`reason` and `line` apart, for a message that names the file its own way)."""

    def __init__(self, name: str | Path, line: int | None, reason: str) -> None:
        super().__init__(f"{name}:{line}: {reason}" if line is not None else f"{name}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class TextFile:
    """A file's text, and `warning` (`FILE: not UTF-8 ...: read as Windows-1252 ...`) when it
    was not read as UTF-8: to print, never to drop."""

    text: str
    warning: str | None = None


def file_bytes(path: Path) -> bytes:
    """The bytes of `path`; a file that cannot be opened is a `TextFileError`."""
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise TextFileError(path, None, "a folder, not a file") from None
    except OSError as error:
        raise TextFileError(path, None, f"cannot read: {error.strerror or error}") from None


def decode_text_file(name: str | Path, data: bytes) -> TextFile:
    """The text of a file named `name`: UTF-8, or Windows-1252 with a warning; bytes of neither
    encoding (UTF-16, a binary file) are a `TextFileError` naming the line."""
    decoded = decode_text(data, PLAIN_TEXT)
    if decoded.problem is not None or decoded.text is None:
        raise TextFileError(name, *(decoded.problem or (1, "not text")))
    warning = None
    if decoded.note is not None:  # `FILE:LINE: not UTF-8 ...`, as errors are written
        warning = f"{place(str(name), decoded.note_line)}: {decoded.note}"
    return TextFile(newlines(decoded.text), warning)


def read_text_file(path: Path) -> TextFile:
    """`decode_text_file` of the file at `path`."""
    return decode_text_file(path, file_bytes(path))


def decode_utf8(name: str | Path, data: bytes) -> str:
    """The UTF-8 text of a file named `name` (a byte-order mark dropped); any other bytes are a
    `TextFileError` naming the line of the first, and what the file looks like instead."""
    failure = not_utf8(data)
    if failure is None:
        return newlines(data.decode("utf-8-sig"))
    decoded = decode_text(data, PLAIN_TEXT)  # UTF-16, binary, mixed: its own words
    line, reason = decoded.problem or (
        failure[0],
        f'{failure[1]}: the file looks like Windows-1252 (Notepad\'s "ANSI"); save it with '
        "the encoding UTF-8",
    )
    raise TextFileError(name, line, reason)


def newlines(text: str) -> str:
    """CRLF and CR as LF, as `open()` in text mode reads them."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_utf8_file(path: Path) -> str:
    """`decode_utf8` of the file at `path`."""
    return decode_utf8(path, file_bytes(path))
