"""Poems for `probe build` from a file with only the columns the probes use.

The probes read a poem's text and rhyme pattern, nothing else, so `probe build` takes, beside a
full dataset file (read and validated by `poemetric.data.load_dataset`), a CSV/TSV, JSONL or
Parquet file with

* the poem: ``content`` (or ``text``, ``poem``) — a string, or a list of lines (JSON, Parquet);
* optionally its rhyme pattern: ``rhyme_pattern`` (or ``rhyme``), e.g. ``AABBA``; without it
  (or with a blank cell) the form checker infers the scheme, as `--rhyme-from auto` does for a
  pattern that does not fit the poem;
* optionally an id: ``poem_id`` (or ``id``); without one, the id of a record with a dataset's
  ``form``, ``title``, ``author`` and ``content`` is the one the dataset loader derives, any
  other's ``poem-`` and a hash of its text (so pair ids do not change when rows are added or
  reordered);
* optionally a ``form`` column, for `--forms`.

The file is read by the dataset loader's reader (`poemetric.data.io.read_table`): Windows-1252
and semicolon-separated CSV files with a warning, and every malformed record — broken quoting,
a wrong field count, bad JSON, no poem text, a rhyme pattern that is not letters, a duplicate
id — is named as ``file:line: column: reason``. Nothing is built from a file with problems.

With `--rhyme-from dataset` a rhyme pattern that does not fit its poem is such a problem, and
`rhyme_misfits` names a dataset's poems whose pattern does not fit in the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from poemetric.data.io import (
    EMPTY_CSV,
    DatasetError,
    RawTable,
    ValidationIssue,
    file_format,
    place,
    read_table,
)
from poemetric.probes.builders import SourcePoem
from poemetric.text.plural import counted, plural

TEXT_KEYS = ("content", "text", "poem")
RHYME_KEYS = ("rhyme_pattern", "rhyme")
ID_KEYS = ("poem_id", "id")
#: Problems listed in the error (the count says how many there are).
SHOWN = 20


class PoemFileError(ValueError):
    """The file cannot give poems; the message names the file, and each bad record's line."""


@dataclass
class PoemFile:
    """The poems of a file (each with its `file:line`)."""

    poems: list[SourcePoem]
    #: How the file was read (Windows-1252, semicolon-separated): warnings to print.
    notes: list[str] = field(default_factory=list)


def is_full_dataset(table: RawTable) -> bool:
    """Whether `table` has every column a dataset file requires (it is read as a dataset)."""
    from poemetric.data.schema import REQUIRED_COLUMNS

    return set(REQUIRED_COLUMNS) <= {str(c).strip().lower() for c in table.columns}


def rhyme_misfit(text: str, rhyme: str | None) -> str | None:
    """`--rhyme-from dataset`: why `rhyme` is not a pattern of `text` (a letter per verse line,
    as `Poem.rhyme_info` reads it), or None when it is."""
    from poemetric.probes.poem import Poem

    verse = len(Poem("", text).verse)
    letters = len(re.sub(r"[^A-Za-z]", "", rhyme or ""))
    if rhyme and letters == verse:
        return None
    said = (
        f"rhyme pattern {rhyme!r} has {counted(letters, 'letter')} for "
        f"{counted(verse, 'verse line')}"
        if rhyme
        else "no rhyme pattern"
    )
    return f"{said} (--rhyme-from dataset; auto would use the checker's scheme for it)"


def rhyme_misfits(name: str, poems: Sequence[SourcePoem], column: str) -> str | None:
    """`probe build --rhyme-from dataset` of a dataset: the error naming each poem whose pattern
    does not fit it as `file:line: column: reason` (the file of just the poems says it as it is
    read), or None when every pattern fits."""
    problems = [
        f"{poem.where or poem.poem_id}: {column}: {why}"
        for poem in poems
        if (why := rhyme_misfit(poem.text, poem.rhyme_pattern))
    ]
    if not problems:
        return None
    return _listed(name, problems, "no pairs are built while a rhyme pattern does not fit")


def _listed(name: str, problems: list[str], why: str) -> str:
    """`NAME: N problems; fix them (WHY):` and the first `SHOWN` problems, a line each."""
    more = f"\n... and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
    return (
        f"{name}: {counted(len(problems), 'problem')}; fix {plural(len(problems), 'it', 'them')} "
        f"({why}):\n" + "\n".join(problems[:SHOWN]) + more
    )


def _pick(values: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any]:
    for key in keys:
        if key in values:
            return key, values[key]
    return keys[0], None


def _text(value: Any) -> str | None:
    if isinstance(value, list | tuple) and all(isinstance(line, str) for line in value):
        return "\n".join(value)
    if value is None or (isinstance(value, float) and value != value):
        return None
    return str(value)


def read_poem_file(
    path: Path, *, rhyme_required_to_fit: bool = False, table: RawTable | None = None
) -> PoemFile:
    """The poems of `path` (see the module docstring); `PoemFileError` lists its problems.
    `rhyme_required_to_fit` (`--rhyme-from dataset`): a rhyme pattern without one letter per
    verse line (or none) is a problem of its record, not a pattern the checker replaces.
    `table`: `read_table(path)`, when already read."""
    from poemetric.data.file_problems import wrong_separator

    try:
        file_format(path)
        table = read_table(path) if table is None else table
    except DatasetError as error:
        raise PoemFileError(str(error)) from None
    except OSError as error:
        raise PoemFileError(f"{path}: cannot read ({error.strerror or error})") from None
    if table.file_error:
        raise PoemFileError("; ".join(issue.plain() for issue in table.issues))
    if not table.records and all(issue.reason == EMPTY_CSV for issue in table.issues):
        raise PoemFileError(f"{path}: has no rows (empty, or only a header); no poems")
    columns = {str(c).strip().lower() for c in table.columns}
    if table.columns and not columns & set(TEXT_KEYS):
        wrong = wrong_separator(table, TEXT_KEYS)
        raise PoemFileError(
            f"{path}: no poem column: give content (or text, poem), with rhyme_pattern (or "
            f"rhyme) and poem_id (or id) if you have them; found {', '.join(table.columns)}"
            + (wrong.hint if wrong else "")
        )
    problems: list[ValidationIssue] = list(table.issues)
    read = PoemFile([], notes=list(table.notes))
    lines: dict[str, int] = {}
    for record in table.records:
        poem = _poem(
            path, (record.line, table.unit), record.values, problems, rhyme_required_to_fit
        )
        if poem is None:
            continue
        if poem.poem_id in lines:
            problems.append(
                ValidationIssue(
                    str(path),
                    record.line,
                    "poem_id",
                    f"duplicate poem id {poem.poem_id!r} (first on line {lines[poem.poem_id]}; "
                    "a poem without an id is known by its text: the same poem twice?)",
                    table.unit,
                )
            )
            continue
        lines[poem.poem_id] = record.line
        read.poems.append(replace(poem, where=place(str(path), record.line, table.unit)))
    if problems:
        problems.sort(key=lambda issue: issue.line or 0)
        listed = [issue.plain() for issue in problems]
        raise PoemFileError(
            _listed(str(path), listed, "no pairs are built from a file with problems")
        )
    if not read.poems:
        raise PoemFileError(f"{path}: no poems")
    return read


def _poem(
    path: Path,
    where: tuple[int, str],
    raw: dict[str, Any],
    problems: list[ValidationIssue],
    fit: bool,
) -> SourcePoem | None:
    """One record's poem; None (with its problem added) when it has none."""
    from poemetric.data.normalize import normalize_content, normalize_rhyme_pattern
    from poemetric.data.poem_ids import content_hash

    line, unit = where
    values = {str(k).strip().lower(): v for k, v in raw.items()}
    column, cell = _pick(values, TEXT_KEYS)
    text = normalize_content(_text(cell) or "")
    if not text.strip():
        problems.append(ValidationIssue(str(path), line, column, "no poem text", unit))
        return None
    rhyme_column, rhyme_cell = _pick(values, RHYME_KEYS)
    try:
        rhyme = normalize_rhyme_pattern(_text(rhyme_cell) or "")
    except ValueError as error:
        problems.append(ValidationIssue(str(path), line, rhyme_column, str(error), unit))
        return None
    misfit = rhyme_misfit(text, rhyme) if fit else None
    if misfit:
        problems.append(ValidationIssue(str(path), line, rhyme_column, misfit, unit))
        return None
    poem_id = next((_text(values.get(key)) for key in ID_KEYS if _text(values.get(key))), None)
    if poem_id is None:
        from poemetric.data.schema import record_poem_id

        poem_id = record_poem_id(raw) or f"poem-{content_hash(text)}"
    form = _text(values.get("form"))
    return SourcePoem(poem_id.strip(), text, rhyme, form.strip().lower() if form else None)
