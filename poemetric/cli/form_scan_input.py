"""What `poemetric form scan` refuses before it scans: a file of poems instead of one poem's
text, an unknown `--form`, a file in neither UTF-8 nor Windows-1252, a `--meter` or `--rhyme` the checker cannot read (`error: ...`); and
what `form check` refuses the other way round: one poem's text instead of a file of poems.

The checker's modules are imported inside each check, as in `form_cmd`.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TextIO

import typer

from poemetric.cli.options import error_exit

#: `form scan` of a folder: what it reads instead, and what reads many poems.
SCAN_FOLDER = (
    "a folder, not a file; form scan reads one poem's text file (for a file of many poems, one "
    "a row: `poemetric form check poems.csv -o checks.jsonl`)"
)


def _one_poem(file: str, suffix: str | None, text: str = "") -> None:
    """Refuse a file of poems (by its suffix, or a JSON object on its first non-blank line):
    `form scan` read a JSONL file as one poem's text and scanned its JSON lines."""
    from poemetric.data.io import SUPPORTED_SUFFIXES

    if suffix in SUPPORTED_SUFFIXES:
        kind = f"is a {suffix.lstrip('.').upper()} file"
    else:
        first = next((line for line in text.splitlines() if line.strip()), "")
        try:
            record = json.loads(first) if first.lstrip().startswith("{") else None
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            return
        kind = "holds JSON records"
    where = "standard input" if file == "-" else file
    target = "FILE" if file == "-" else file
    raise error_exit(
        f"{where}: {kind}, not a poem's text; `form scan` scans one poem (a text file or -), "
        f"`poemetric form check {target} --output checks.jsonl` checks a file of poems"
    )


def _known_form(form: str) -> None:
    """Refuse an unknown `--form` before reading the poem: `error: ...` naming the forms the
    checker knows and the closest one (a typo like `sonet` scanned the whole poem first)."""
    from poemetric.form.checker import known_forms_note
    from poemetric.form.forms import RULES
    from poemetric.form_names import normalize_form

    key = normalize_form(form)
    if key not in RULES:
        raise error_exit(f"--form {form!r}: unknown form; {known_forms_note(key)}")


def _readable_request(rhyme: str | None) -> None:
    """Refuse a `--rhyme` the checker cannot read before reading the poem (the whole scansion
    used to be printed, then "not checked"). A `--meter` is read as `form check` reads a
    dataset's: in part, or left unscored with a note (`poemetric.form.meter_reading`)."""
    from poemetric.form.parsing import PatternError, parse_rhyme_pattern

    try:
        if rhyme:
            parse_rhyme_pattern(rhyme)
    except PatternError as error:
        raise error_exit(f"--rhyme: {error}") from None


def _table_of_poems(path: Path) -> None:
    """Refuse standard input or one poem's text file for `form check`, pointing to `form scan`:
    `form check -` said "-: no such file", and `form check sonnet.txt` named the file types it
    reads but not the command that checks a text file."""
    from poemetric.data.io import SUPPORTED_SUFFIXES, WORKBOOK_SUFFIXES, unsupported_type

    if str(path) == "-" and not path.exists():
        raise error_exit(
            "-: form check reads a file of poems (CSV, TSV, JSONL or Parquet), not standard "
            "input; save the rows to a file, or scan one poem from standard input with "
            "`poemetric form scan - --form FORM`"
        )
    if path.is_dir():  # a folder of poem files: say what to give instead
        raise error_exit(
            f"{path}: a folder, not a file; form check reads one file of poems (CSV, TSV, JSONL "
            "or Parquet: a row per poem, with its text and form), not a folder of poem files; "
            "put the poems in one such file, or scan each with `poemetric form scan FILE "
            "--form FORM`"
        )
    suffix = path.suffix.lower()
    if path.is_file() and suffix in WORKBOOK_SUFFIXES:  # no poem's text to scan either
        raise error_exit(unsupported_type(path))
    if path.is_file() and suffix not in SUPPORTED_SUFFIXES:
        raise error_exit(
            f"{path}: unsupported file type {suffix or '(none)'!r}; form check reads a file of "
            f"poems ({', '.join(SUPPORTED_SUFFIXES)}); to check one poem's text, use "
            f"`poemetric form scan {path} --form FORM`"
        )


def _poem_file_text(name: str, data: bytes) -> str:
    """A poem file's text: UTF-8, or Windows-1252 (Notepad's "ANSI") with a warning on stderr;
    bytes of neither encoding are an error naming the line (`poemetric.data.text_files`)."""
    from poemetric.data.text_files import TextFileError, decode_text_file

    try:
        read = decode_text_file(name, data)
    except TextFileError as error:
        raise error_exit(error) from None
    if read.warning is not None:
        print(f"warning: {read.warning}", file=sys.stderr)
    return read.text


def say_stdin_is_read(stdin: TextIO, form: str) -> None:
    """Without a FILE, `form scan` reads the poem from standard input; from a terminal it
    waited, silent, for a poem the user had meant to give as a file. It says so on stderr."""
    if stdin.isatty():
        typer.echo(
            "reading the poem from standard input: paste it, then Ctrl-D on a line of its own "
            f"(Ctrl-Z Enter on Windows); or give its file: poemetric form scan poem.txt --form "
            f"{shlex.quote(form)}",
            err=True,
        )
