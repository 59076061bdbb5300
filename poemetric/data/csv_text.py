"""The text of a delimited file as a spreadsheet saves it: its encoding (UTF-8, else Excel's
Windows-1252 "CSV" with a warning), Excel's `sep=;` separator hint on the first line, and a
decimal comma in a semicolon-separated file. Shared by the dataset reader (`io.read_table`) and
the ratings readers that use it (`agree`, `analyze --experts`, `survey import`), and by the
readers of other text files (`text_files`: poems, templates, YAML, JSONL).
"""

from __future__ import annotations

import csv
import re
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

#: Whether a header's names (lower case) are those of the file's kind (a dataset's, a ratings
#: file's): how a `.csv` header split on `;` is known to be semicolon-separated.
HeaderTest = Callable[[set[str]], bool]

#: The encoding of Excel's "CSV (Comma delimited)" on a Windows of a Western European language.
WINDOWS_1252 = "cp1252"
#: Control characters no spreadsheet writes into a text file (tab, newlines and CR excepted):
#: bytes that decode as Windows-1252 but are no text (a binary file, a UTF-16 file without BOM).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: Excel's separator hint, alone on the first line: `sep=;` (Excel may pad it with separators
#: or quote it when it saves the file again). Only a separator: `sep=a` is no hint.
_SEP_HINT = re.compile(r'"?sep=(?P<sep>[,;|\t])"?[,;\t|]*\s*', re.IGNORECASE)
#: Where a Windows-1252 file comes from, and how to save it as UTF-8 instead: a spreadsheet's
#: CSV (`decode_text`'s default), or a text file (`form scan`'s poem).
SPREADSHEET = ('Excel\'s "CSV (Comma delimited)"', 'as "CSV UTF-8"')
PLAIN_TEXT = ('Notepad\'s "ANSI"', "with the encoding UTF-8")
#: A number written with a decimal comma: `3,5`, `-0,25`.
_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")
#: Where `str.splitlines` ends a line.
_LINE_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
#: Where a line of a file read with `newline=""` ends (`\\n`, `\\r\\n` or `\\r`, kept).
_LINE_END = re.compile("\r\n|\r|\n")


@dataclass(frozen=True)
class Decoded:
    """A file's text, or why it has none: `problem` is (line, reason) of the first byte that is
    neither UTF-8 nor Windows-1252 text. `note` says how a file that is not UTF-8 was read, of
    its first byte that is not UTF-8, on `note_line`."""

    text: str | None
    note: str | None = None
    problem: tuple[int, str] | None = None
    note_line: int | None = None


def decode_text(data: bytes, origin: tuple[str, str] = SPREADSHEET) -> Decoded:
    """UTF-8 (a byte-order mark dropped), else Windows-1252 when every byte is text in it and no
    line is UTF-8 (a file of both would read some lines garbled), never without a `note`
    (`origin`: what saves a file so, and how to save it as UTF-8)."""
    try:
        return Decoded(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        start = error.start
    line, reason = _not_utf8_at(data, start)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # Excel's "Unicode Text" and PowerShell's default: "byte 0xff at offset 0" said nothing
        # of what the file is.
        reason = "not valid UTF-8: the file is UTF-16 (it starts with a UTF-16 byte-order mark)"
        return Decoded(None, problem=(line, f"{reason}; save the file as UTF-8"))
    try:
        text = data.decode(WINDOWS_1252)
    except UnicodeDecodeError as error:
        bad = data[: error.start].count(b"\n") + 1
        return Decoded(
            None,
            problem=(
                line,
                f"{reason}, nor Windows-1252 (byte 0x{data[error.start]:02x} on line {bad} is "
                "not a character there); save the file as UTF-8",
            ),
        )
    if control := _CONTROL.search(text):
        bad = text[: control.start()].count("\n") + 1
        return Decoded(
            None,
            problem=(
                line,
                f"{reason}, nor text in Windows-1252 (control byte "
                f"0x{ord(control.group()):02x} on line {bad}); save the file as UTF-8",
            ),
        )
    if (utf8_line := _utf8_line(data)) is not None:
        return Decoded(
            None,
            problem=(
                line,
                f"{reason}, while line {utf8_line} has UTF-8 letters: the file mixes two "
                "encodings (text pasted from elsewhere?); save the file as UTF-8",
            ),
        )
    saved_by, utf8 = origin
    note = (
        f"not UTF-8 (byte 0x{data[start]:02x}): read as Windows-1252 (cp1252, the encoding of "
        f"{saved_by} on Windows); check its accented letters and quotes, or save it {utf8} to "
        "be sure"
    )
    return Decoded(text, note=note, note_line=line)


def not_utf8(data: bytes) -> tuple[int, str] | None:
    """(line, reason) of the first byte of `data` that is not UTF-8 (`not valid UTF-8 (byte 0xe9
    at offset 61)`), or None when `data` is UTF-8 text (with or without a byte-order mark)."""
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return _not_utf8_at(data, error.start)
    return None


def _not_utf8_at(data: bytes, start: int) -> tuple[int, str]:
    line = data[:start].count(b"\n") + 1
    return line, f"not valid UTF-8 (byte 0x{data[start]:02x} at offset {start})"


def _utf8_line(data: bytes) -> int | None:
    """The first line (1-based) whose non-ASCII bytes are valid UTF-8, if any: Windows-1252
    letters almost never are (`é` alone is 0xE9, an unfinished UTF-8 sequence)."""
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.isascii():
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        return number
    return None


def separator_hint(first_line: str) -> str | None:
    """The separator Excel's hint line names (`sep=;` -> `;`), or None when the line is not one."""
    match = _SEP_HINT.fullmatch(first_line)
    return match.group("sep") if match else None


def semicolon_header(text: str, is_header: HeaderTest) -> bool:
    """Whether the first non-blank line of a `.csv` file's text is clearly a semicolon-separated
    header: `;` and no comma outside double quotes, and, split on `;`, the columns `is_header`
    looks for (names compared in lower case)."""
    first = next((line for line in _split_lines(text) if line.strip()), "")
    unquoted = re.sub(r'"[^"]*"', "", first)
    if ";" not in unquoted or "," in unquoted or unquoted.count('"'):
        return False
    try:
        names = {name.strip().lower() for name in next(csv.reader([first], delimiter=";"))}
    except (csv.Error, StopIteration):
        return False
    return is_header(names)


def decimal_comma(text: str, separator: str | None) -> str:
    """`3,5` as `3.5` in a semicolon-separated file (a spreadsheet's decimal comma where `,` is
    not the separator); any other text, or a file of another separator, unchanged."""
    if separator == ";" and _DECIMAL_COMMA.fullmatch(text.strip()):
        return text.strip().replace(",", ".")
    return text


def _split_lines(text: str) -> Iterator[str]:
    """The lines of `str.splitlines`, one at a time (a blank last one too): the first line of a
    file of a million lines is found without a list of them all."""
    start = 0
    for end in _LINE_BREAK.finditer(text):
        yield text[start : end.start()]
        start = end.end()
    yield text[start:]


def newline_split(text: str) -> Iterator[str]:
    """`text.split("\\n")` a line at a time (a JSONL file's lines)."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


class TextLines(Sequence[str]):
    """The lines of `text` as `list(io.StringIO(text, newline=""))` gives them (each with its
    line end: `\\n`, `\\r\\n` or `\\r`), held as where each starts in the text: 8 bytes a line
    instead of a string object (about 75 bytes for a short line of a ratings file), and without
    the copy of the text a `StringIO` makes (4 bytes a character). A line may be replaced
    (`lines[0] = "\\n"`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = array("q", [0])
        self._starts.extend(end.end() for end in _LINE_END.finditer(text))
        if self._starts[-1] < len(text):  # a last line without a line end
            self._starts.append(len(text))
        self._replaced: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._starts) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if index in self._replaced:
            return self._replaced[index]
        return self.text[self._starts[index] : self._starts[index + 1]]

    def __setitem__(self, index: int, line: str) -> None:
        self[index]  # an IndexError as a list's
        self._replaced[index % len(self)] = line


def line_spans(lines: list[int]) -> str:
    """`line 4`, `lines 4, 9-12` of ascending line numbers."""
    spans: list[list[int]] = []
    for number in lines:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)
    return f"{'line' if lines == [lines[0]] else 'lines'} {text}"
