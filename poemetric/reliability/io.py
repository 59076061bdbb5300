"""Reading a long-format ratings file: one row per unit x rater x item."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from poemetric.data.csv_text import HeaderTest, decimal_comma
from poemetric.data.io import (
    DatasetError,
    RawRecord,
    RawTable,
    ValidationIssue,
    file_format,
    read_table,
    stream_table,
)
from poemetric.data.raw_table import place
from poemetric.reliability.header_hints import RATINGS_SPELLINGS, header_renames, rename_hint
from poemetric.reliability.rater_spellings import spelled_apart, spelled_apart_message
from poemetric.reliability.ratings import NA_WORDS, Ratings, parse_score
from poemetric.reliability.rows import Interned, RatingRows
from poemetric.text.listing import first_few
from poemetric.text.plural import counted, plural

REQUIRED = ("unit", "rater", "score")
#: The unit column under another name: `poem`, as in `poemetric survey sheets` templates and the
#: long expert-ratings files of `analyze --experts` (used when there is no `unit` column).
UNIT_ALIASES = ("poem",)
#: The item of files without an `item` column.
SINGLE_ITEM = "score"
#: `poemetric export survey_answers`: one row per answer, its columns named as in the run store
#: (unit = generation_id, rater = rater_id, item = question), read when there is no unit, poem
#: or rater column. Rows of the survey's attention checks are left out, as `survey import` and
#: `analyze` leave them out; with several surveys in the file, each rater id is prefixed with
#: its survey id, as `analyze` does.
EXPORTED = {"unit": "generation_id", "rater": "rater_id", "item": "question"}
#: The instructed-response item of a survey (poemetric.survey.tasks.ATTENTION_KEY).
ATTENTION_ITEM = "attention_check"
MAX_SHOWN = 20
#: The rater column of the ratings files read here: `agree`'s and the expert ratings'.
RATER_COLUMNS = {"rater", "expert", "rater_id"}


#: Ratings files shipped inside the package (so in every install, not only a checkout), read by
#: `poemetric agree NAME`: Krippendorff's (2011) worked example, `krippendorff-2011`.
EXAMPLES = Path(__file__).resolve().parent / "examples"


def bundled_example(name: str) -> Path | None:
    """The bundled ratings file `name` (`krippendorff-2011`, with or without `.csv`), or None."""
    if not name or Path(name).name != name:
        return None
    path = EXAMPLES / (name if name.endswith(".csv") else f"{name}.csv")
    return path if path.is_file() else None


def ratings_header(names: set[str]) -> bool:
    """Whether a `.csv` header split on `;` is a ratings file's: a rater and a score column."""
    return bool(names & RATER_COLUMNS) and "score" in names


def read_ratings_table(
    path: Path, warnings: list[str] | None, is_header: HeaderTest = ratings_header
) -> RawTable:
    """`read_table` for a ratings file: a `.csv` with a semicolon-separated ratings header is
    read so; `warnings` gets how the file was read (`RawTable.notes`). Raises OSError and
    DatasetError as `read_table` does."""
    table = read_table(path, semicolon_names=is_header)
    if warnings is not None:
        warnings.extend(table.notes)
    return table


def score_text(
    text: str, table: RawTable, line: int, warnings: list[str] | None, seen: list[int]
) -> str:
    """A score cell as a number's text: a decimal comma (`3,5`) of a semicolon-separated file
    read as `3.5`, said once in `warnings` (`seen`: the lines so read, shared by a file's
    cells)."""
    read = decimal_comma(text, table.separator)
    if read != text and not seen:
        seen.append(line)
        if warnings is not None:
            warnings.append(
                f"{place(str(table.path), line)}: scores with a decimal comma (first "
                f"{text.strip()!r}) are read as decimal numbers ({read}), the file being "
                "semicolon-separated"
            )
    return read


#: What a row's score text is (`ScoreText.kind`); a row repeating an earlier row's (unit, rater,
#: item) is REPEAT whatever its score.
BLANK, SCORE, NA_WORD, NA_NUMBER, BAD, OFF_SCALE, REPEAT = range(7)


@dataclass(frozen=True)
class ScoreText:
    """A score cell read: its `kind`, the score (`value`, NaN when N/A or none), whether a
    decimal comma was read (`comma`) and, for BAD and OFF_SCALE, the `problem`."""

    kind: int
    value: float = float("nan")
    comma: bool = False
    problem: str = ""


def _score(
    text: str, table: RawTable, na_value: float | None, scale: Sequence[float] | None
) -> ScoreText:
    """A (stripped) score cell: blank = not rated, `n/a`, `na` or `na_value` = N/A, `3,5` = 3.5
    in a semicolon-separated file, anything else a number on the `scale`."""
    if text == "":
        return ScoreText(BLANK)
    number = decimal_comma(text, table.separator)
    comma = number != text
    try:
        score = parse_score(number, na_value)
    except ValueError:
        return ScoreText(BAD, comma=comma, problem=f"score {text!r} is not a number (or N/A)")
    if score is None:
        return ScoreText(NA_WORD if text.lower() in NA_WORDS else NA_NUMBER, comma=comma)
    allowed = set(scale) if scale is not None else None
    if allowed is not None and score not in allowed:
        problem = f"score {text!r} is not on the scale {sorted(allowed)}"
        return ScoreText(OFF_SCALE, comma=comma, problem=problem)
    return ScoreText(SCORE, score, comma)


class RatingsFileError(ValueError):
    """The ratings file is unreadable or has bad rows; the message names file and line."""


class LinedProblems(list[str]):
    """The problems of a file, each noted at the line being read when it was added (`line`), so
    that they are listed in line order: the reader's issues (a row with too many fields) came
    first, before those of the rows read after it (`:9, :5, :12`)."""

    def __init__(self, issues: Sequence[ValidationIssue] = ()) -> None:
        super().__init__()
        self.lines: list[int] = []
        #: The line of the record being read: problems added now are at it.
        self.line = 0
        for issue in issues:
            self.line = issue.line or 0
            self.append(issue.plain())
        self.line = 0

    def append(self, problem: str) -> None:
        super().append(problem)
        self.lines.append(self.line)

    def in_line_order(self) -> list[str]:
        """The problems by line; those of one line in the order they were found."""
        order = sorted(range(len(self)), key=lambda index: self.lines[index])
        return [self[index] for index in order]


def problem_report(title: str, problems: Sequence[str]) -> str:
    """`title` and the first problems, one per line (the count of the others at the end)."""
    shown = list(problems[:MAX_SHOWN])
    if len(problems) > MAX_SHOWN:
        shown.append(f"... and {len(problems) - MAX_SHOWN} more")
    return title + ":\n  " + "\n  ".join(shown)


def _stream(path: Path) -> tuple[RawTable, Iterator[RawRecord], set[str]]:
    """The ratings file's table, its records as a stream (`stream_table`) and its columns as
    far as they are known before its records are read: its header line, or, in a file without
    one (JSONL), the keys of its first record; every record's keys are `table.columns` once the
    records are read (`read_ratings` checks them). A file `read_table` cannot read (OSError,
    DatasetError) is a RatingsFileError."""
    try:
        file_format(path)  # an unsupported file before a missing one, as `read_table`
        table, records = stream_table(path, semicolon_names=ratings_header)
        if table.header_read:
            return table, records, set(table.columns)
        first = next(records, None)
    except (OSError, DatasetError) as exc:
        raise RatingsFileError(f"{path}: cannot read ratings: {exc}") from exc
    if first is None:
        return table, records, set()
    return table, itertools.chain((first,), records), set(first.values)


def _columns(header: set[str]) -> tuple[dict[str, str], bool]:
    """The columns read as unit, rater and item in a file of columns `header`, and whether it
    is a survey export (`EXPORTED`: none of unit, poem and rater, all of its columns)."""
    if not header & {"unit", *UNIT_ALIASES, "rater"} and set(EXPORTED.values()) <= header:
        return EXPORTED, True
    unit = next((c for c in ("unit", *UNIT_ALIASES) if c in header), "unit")
    return {"unit": unit, "rater": "rater", "item": "item"}, False


def _cell(values: dict[str, Any], column: str, missing: str = "") -> str:
    """A record's value in `column` as text, stripped; `missing` without that column."""
    if column not in values:
        return missing
    value = values[column]
    return "" if value is None else str(value).strip()


def read_ratings(
    path: str | Path,
    *,
    na_value: float | None = 0.0,
    scale: Sequence[float] | None = None,
    warnings: list[str] | None = None,
    na_read: dict[str, int] | None = None,
) -> Ratings:
    """Ratings from a CSV/TSV/JSONL/Parquet file with columns `unit, rater, score` and an
    optional `item` (other columns are ignored). A blank score = not rated; `n/a`, `na` or
    `na_value` = N/A; `3,5` = 3.5 in a semicolon-separated file. Every bad row is reported with
    its file and line; `warnings` gets how the file was read (Windows-1252, `;`-separated);
    `na_read` gets, per item, how many numbers `na_value` were read as N/A (not the words).
    A `na_value` on the given `scale` is a ValueError: its scores would be read as N/A.
    The file is read a record at a time into compact rows (`rows.RatingRows`): 1.47 million
    ratings (a 51 MB CSV) peak at about 110 MiB traced, not 1.2 GB of rows as Python objects."""
    path = Path(path)
    if scale is not None and na_value is not None and na_value in set(scale):
        raise ValueError(
            f"the N/A value {na_value:g} is on the scale {', '.join(f'{v:g}' for v in scale)}: "
            f"every {na_value:g} would be read as N/A, not as a score (--na none when "
            f"{na_value:g} is a score, or --na with another value)"
        )
    table, records, header = _stream(path)
    names, exported = _columns(header)
    needed = [names.get(c, c) for c in REQUIRED]
    missing = [c for c in needed if table.header_read and c not in table.columns]
    renames = header_renames(table.columns, RATINGS_SPELLINGS) if table.header_read else {}
    if not exported and "item" not in header and "item" in renames.values():
        missing.append("item")  # `Item`, `Question`: read without it, every item would be one
    if missing:
        for _ in records:  # the notes on how the whole file was read
            pass
        if warnings is not None:
            warnings.extend(table.notes)
        raise RatingsFileError(
            f"{path}: missing {plural(len(missing), 'column')} {', '.join(missing)}; a ratings file "
            "has columns "
            f"unit (or poem), rater, item (optional), score; found "
            f"{', '.join(table.columns) or 'none'}{rename_hint(renames, 'docs/agreement.md')}"
        )
    rows, surveys, empty = _rows(path, records, names, exported)
    if not table.header_read and (read := _columns(set(table.columns))) != (names, exported):
        # A JSONL key first met after the first record changes the columns read (a `poem`
        # key where the first record has none): read the file again with them.
        names, exported = read
        table, records, _ = _stream(path)
        rows, surveys, empty = _rows(path, records, names, exported)
    if warnings is not None:
        warnings.extend(table.notes)
    # With several surveys in an exported file, each rater is named with its survey.
    by_survey = exported and len(surveys) > 1
    raters: Interned[str] = Interned()
    merged = np.asarray(
        [raters.number(f"{s}:{r}" if by_survey else r) for s, r in rows.raters.names], np.int32
    )
    if not exported:  # an exported file's ids are its surveys' own: one may have `Cy` and `cy`
        rater_of_row = merged[np.asarray(rows.rater, dtype=np.intp)]
        numbers, first = np.unique(rater_of_row, return_index=True)
        first_lines = {raters.names[n]: rows.line[k] for n, k in zip(numbers, first, strict=True)}
        if apart := spelled_apart(first_lines):
            raise RatingsFileError(spelled_apart_message(path, apart, "run again; nothing read"))
    return _coded(
        path, table, rows, raters.names, merged, empty, na_value, scale, warnings, na_read
    )


def _rows(
    path: Path, records: Iterator[RawRecord], names: dict[str, str], exported: bool
) -> tuple[RatingRows, set[str], list[tuple[int, str]]]:
    """The ratings of `records` read from the columns `names` (`_columns`), the surveys of an
    exported file, and the lines with an empty unit, rater or item (line, problem)."""
    rows, surveys, empty = RatingRows(), set[str](), list[tuple[int, str]]()
    unit_column, rater_column, item_column = names["unit"], names["rater"], names["item"]
    for record in records:
        values = record.values
        if exported:
            surveys.add(str(values.get("survey_id") or ""))
        unit, rater = _cell(values, unit_column), _cell(values, rater_column)
        item = _cell(values, item_column, SINGLE_ITEM)
        if exported and item == ATTENTION_ITEM:
            continue
        if not unit or not rater or not item:
            blank = [
                names[c] for c, v in (("unit", unit), ("rater", rater), ("item", item)) if not v
            ]
            empty.append((record.line, f"{path}:{record.line}: empty {', '.join(blank)}"))
            continue
        survey = _cell(values, "survey_id") if exported else ""
        rows.add(unit, (survey, rater), item, _cell(values, "score"), record.line)
    return rows, surveys, empty


def _coded(
    path: Path,
    table: RawTable,
    rows: RatingRows,
    raters: list[str],
    merged: np.ndarray,
    empty: list[tuple[int, str]],
    na_value: float | None,
    scale: Sequence[float] | None,
    warnings: list[str] | None,
    na_read: dict[str, int] | None,
) -> Ratings:
    """The rows read (`merged`: each of `rows.raters` as a number of `raters`) checked, as a
    row-by-row reading checks them, and coded: a repeat of a (unit, rater, item) is an error
    and nothing else of it is read; a blank score is no rating; a score that is no number (or
    N/A), or off the `scale`, an error."""
    scores = [_score(text, table, na_value, scale) for text in rows.texts.names]
    rater = merged[np.asarray(rows.rater)]
    again, first = rows.repeats(rater)
    text = np.asarray(rows.text)
    kind = np.asarray([s.kind for s in scores], dtype=np.int8)[text]
    kind[again] = REPEAT  # nothing else of a repeated row is read
    problems = list(empty)
    for k, earlier in zip(again.tolist(), first.tolist(), strict=True):
        unit, item = rows.units.names[rows.unit[k]], rows.items.names[rows.item[k]]
        problems.append(
            (
                rows.line[k],
                f"{path}:{rows.line[k]}: rater {raters[rater[k]]!r} rated unit {unit!r} on "
                f"{item!r} already on line {rows.line[earlier]}",
            )
        )
    for k in np.flatnonzero((kind == BAD) | (kind == OFF_SCALE)).tolist():
        problems.append((rows.line[k], f"{path}:{rows.line[k]}: {scores[rows.text[k]].problem}"))
    comma_texts = [number for number, score in enumerate(scores) if score.comma]
    commas = np.flatnonzero(np.isin(text, comma_texts) & (kind != REPEAT))
    if len(commas):  # said once, at the first row read with a decimal comma
        k = int(commas[0])
        score_text(rows.texts.names[rows.text[k]], table, rows.line[k], warnings, [])
    item = np.asarray(rows.item)
    if na_read is not None:
        na_items = item[kind == NA_NUMBER]
        numbers, first_at, counts = np.unique(na_items, return_index=True, return_counts=True)
        for n in np.argsort(first_at, kind="stable").tolist():
            name = rows.items.names[numbers[n]]
            na_read[name] = na_read.get(name, 0) + int(counts[n])
    lined = LinedProblems(table.issues)
    for at, problem in problems:  # put in line order by `in_line_order`
        lined.line = at
        lined.append(problem)
    if lined:
        raise RatingsFileError(problem_report(f"{path}: invalid ratings", lined.in_line_order()))
    kept = (kind == SCORE) | (kind == NA_WORD) | (kind == NA_NUMBER)
    if not kept.any():
        raise RatingsFileError(f"{path}: no ratings (every score is blank)")
    value = np.asarray([s.value for s in scores], dtype=float)
    return Ratings.from_columns(
        (rows.units.names, raters, rows.items.names),
        np.asarray(rows.unit)[kept],
        rater[kept],
        item[kept],
        value[text[kept]],
        scale=scale,
    )


#: Items named in the note on scores read as N/A, before "and N more".
NA_NOTE_ITEMS = 5


def na_reading_note(na_read: dict[str, int], na_value: float) -> str | None:
    """One line on the numbers `na_value` read as N/A (`read_ratings`' `na_read`) on items
    where that may be wrong: every item but the POEMetric questions that allow N/A (imagery
    and literary devices, whose 0 is "N/A"). On a 0-4 scale the default `--na 0` read every 0
    as missing, silently, for alpha and Gwet. None when there is nothing to say."""
    from poemetric.questionnaire import DIMENSIONS_BY_KEY

    suspect = {
        item: count
        for item, count in na_read.items()
        if not (item in DIMENSIONS_BY_KEY and DIMENSIONS_BY_KEY[item].allows_na)
    }
    if not suspect:
        return None
    value = f"{na_value:g}"
    names = sorted(suspect)
    shown = first_few(names, NA_NOTE_ITEMS)
    total = sum(suspect.values())
    return (
        f"{counted(total, 'score')} of {value} ({plural(len(names), 'item')} {shown}) "
        f"{plural(total, 'was', 'were')} read as N/A, not as {plural(total, 'a score', 'scores')} "
        f"(the default --na {value}: POEMetric's N/A); give --na none if {value} is a score on "
        f"this scale, or --na {value} to keep {plural(total, 'it', 'them')} N/A without this "
        "warning"
    )
