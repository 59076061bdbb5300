"""Import filled line-annotation CSVs into the run store (`line_annotations`).

Every row is checked against the sheet it names (saved in the run store when the sheets were
made): known sheet, poem and line, the line's text unchanged (a moved row is caught), a grade
on the paper's scale, the coherence grades the protocol fixes (none for a first line, *not* for
a repeated line), and every line of a poem graded once an annotator has graded any. Problems are
reported as ``file:line: reason``; a file with any problem imports nothing. Rows without an
annotator and without grades are untouched template rows and are skipped; a file with nothing
else (an unfilled template) is a problem too. Importing a file again replaces that annotator's
earlier grades for the same lines, web grades included; a line-survey page drawn before the
import cannot store over the grades it imported (`poemetric.survey.edits`).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poemetric.annotation.grades import LineGrade, store_line_grades
from poemetric.annotation.sheets import CSV_COLUMNS, FORMULA_STARTS
from poemetric.annotation.task import (
    LABEL_SCORES,
    NOT_APPLICABLE,
    LineItem,
    LineTask,
    stored_tasks,
)
from poemetric.store import RunStore, utc_now
from poemetric.store.poem_codes import poem_code, sheet_secrets
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.data.io import RawTable

#: The problem of a file without one graded row (an unfilled template, say).
NO_GRADES = (
    "no filled grades found: no row names an annotator or grades a line (an unfilled template? "
    "save the filled sheet and import it again). A filled row has the annotator's name and a "
    "fluency grade, e.g. annotator,fluency,coherence = ann1,strong,weak"
)


#: Columns the importer reads (`item` and `text` are the template's too; `text` is checked when
#: present).
REQUIRED_COLUMNS = ("sheet_id", "annotator", "generation_id", "line", "fluency", "coherence")


class LineImportError(ValueError):
    """The files could not be imported; `problems` lists every `file:line: reason`."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = problems[:30]
        more = f"\n... and {len(problems) - 30} more" if len(problems) > 30 else ""
        super().__init__("\n".join(shown) + more)


@dataclass
class LineImportReport:
    rows: int = 0
    skipped_blank: int = 0
    annotators: set[str] = field(default_factory=set)
    poems: set[str] = field(default_factory=set)
    #: How a file was read (`FILE: read as Windows-1252 ...`): warnings to print.
    notes: list[str] = field(default_factory=list)


def _grade(value: Any) -> float | None:
    text = str(value if value is not None else "").strip().lower()
    if not text:
        return None
    if text not in LABEL_SCORES:
        raise ValueError(f"{value!r} is not a grade; use strong, weak or not (or 1, 0.5, 0)")
    return LABEL_SCORES[text]


def _unguarded(text: str) -> str:
    """A template's `text` cell without the apostrophe that keeps a spreadsheet from reading
    the line as a formula (`sheets.spreadsheet_text`)."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_STARTS) else text


def _normal(text: str) -> str:
    return " ".join(text.split())


def _check_row(
    values: dict[str, Any], item: LineItem, location: str, poem: str
) -> tuple[int, float, float | None] | str:
    """(line number, fluency, coherence) of a graded row, or the problem; `poem`: the poem as
    the file names it (`_as_named`)."""
    try:
        number = int(str(values.get("line", "")).strip())
    except ValueError:
        return f"{location}: line {values.get('line')!r} is not a line number"
    if not 1 <= number <= len(item.lines):
        return f"{location}: poem {poem} has lines 1-{len(item.lines)}, not {number}"
    text = values.get("text")
    if text is not None and _normal(_unguarded(str(text))) != _normal(item.lines[number - 1]):
        return (
            f"{location}: the text differs from line {number} of poem {poem} "
            f"({item.lines[number - 1]!r}); was a row moved or edited?"
        )
    try:
        fluency = _grade(values.get("fluency"))
        raw_coherence = str(values.get("coherence") or "").strip().lower()
        coherence = None if raw_coherence == NOT_APPLICABLE else _grade(raw_coherence)
    except ValueError as error:
        return f"{location}: {error}"
    if fluency is None:
        return f"{location}: no fluency grade (the annotator graded other lines of this poem)"
    if number == 1:
        if coherence is not None:
            return f"{location}: the first line has no line before it: leave coherence n/a"
    elif number in item.repeats:
        if coherence not in (None, 0.0):
            return f"{location}: line {number} repeats line {number - 1}: coherence is 'not'"
        coherence = 0.0
    elif coherence is None:
        return f"{location}: no coherence grade"
    return number, fluency, coherence


def _not_a_line_table(path: Path, table: RawTable) -> str | None:
    """The one problem of a file that is no line-annotation table: nothing readable, or not the
    template's columns (an expert-survey CSV, a sheet saved with ';' as separator). Its rows
    would each be reported as wrong, or skipped as blank ("no filled grades found")."""
    if not table.header_read and not table.records:
        if not table.issues:
            return f"{path}: the file is empty"
        more = len(table.issues) - 1
        return str(table.issues[0]) + (
            f" (and {more} more {plural(more, 'problem')})" if more else ""
        )
    columns = table.columns or sorted({key for record in table.records for key in record.values})
    missing = [column for column in REQUIRED_COLUMNS if column not in columns]
    if not missing:
        return None
    return (
        f"{path}: missing {plural(len(missing), 'column')} {', '.join(missing)} of the line-annotation template "
        f"({', '.join(CSV_COLUMNS)}); found {', '.join(columns) or 'none'}"
    )


def _poems_by_name(task: LineTask, store: RunStore) -> dict[str, LineItem]:
    """A sheet's poems by the names a filled template may give them: the code its sheets
    print (under the run's survey secret or one kept from a run merged into it,
    `poemetric.store.poem_codes`) and the generation id
    (templates printed before the codes)."""
    coded = {
        poem_code(secret, task.sheet_id, item.generation_id): item
        for secret in reversed(sheet_secrets(store.run_dir))  # the run's own secret last: first
        for item in task.items
    }
    return coded | {item.generation_id: item for item in task.items}


def read_line_annotations(
    store: RunStore, paths: Sequence[str | Path]
) -> tuple[list[LineGrade], LineImportReport]:
    """Checked rows ready for the store; raises LineImportError listing every problem."""
    from poemetric.data.io import DatasetError, read_table

    tasks = stored_tasks(store)
    poems = {sheet_id: _poems_by_name(task, store) for sheet_id, task in tasks.items()}
    problems: list[str] = []
    rows: list[LineGrade] = []
    report = LineImportReport()
    seen: dict[tuple[str, str, str, int], str] = {}
    graded: dict[tuple[str, str, str], set[int]] = defaultdict(set)
    first_row: dict[tuple[str, str, str], str] = {}  # `FILE:LINE: ann graded poem 1 (CODE)`
    named: set[Path] = set()
    for path in map(Path, paths):
        if path.resolve() in named:  # each of its rows was "already at" itself, 30 lines shown
            problems.append(f"{path}: named more than once")
            continue
        named.add(path.resolve())
        if not path.is_file():
            problems.append(
                f"{path}: {'a folder, not a file' if path.is_dir() else 'no such file'}"
            )
            continue
        try:
            table = read_table(path)
        except DatasetError as error:  # names the file itself
            problems.append(str(error))
            continue
        except OSError as error:
            problems.append(f"{path}: cannot read ({error.strerror or error})")
            continue
        report.notes += table.notes  # each names the file: `FILE:LINE: ...` or `FILE: ...`
        refused = _not_a_line_table(path, table)
        if refused:
            problems.append(refused)
            continue
        problems += [issue.plain() for issue in table.issues]
        filled = 0
        for record in table.records:
            location = f"{path}:{record.line}"
            values = record.values
            annotator = str(values.get("annotator") or "").strip()
            grades = [str(values.get(c) or "").strip() for c in ("fluency", "coherence")]
            if not annotator and not grades[0] and grades[1] in ("", NOT_APPLICABLE, "not"):
                report.skipped_blank += 1
                continue
            filled += 1
            if not annotator:
                problems.append(f"{location}: grades without an annotator name")
                continue
            task = tasks.get(str(values.get("sheet_id") or "").strip())
            if task is None:
                problems.append(
                    f"{location}: unknown sheet {values.get('sheet_id')!r}; sheets of this run: "
                    f"{', '.join(sorted(tasks)) or 'none (run `poemetric ghostwriting sheets`)'}"
                )
                continue
            poem = str(values.get("generation_id") or "").strip()
            item = poems[task.sheet_id].get(poem)
            if item is None:
                problems.append(f"{location}: poem {poem!r} is not on sheet {task.sheet_id}")
                continue
            generation_id = item.generation_id
            checked = _check_row(values, item, location, _as_named(values, poem))
            if isinstance(checked, str):
                problems.append(checked)
                continue
            number, fluency, coherence = checked
            key = (task.sheet_id, annotator, generation_id, number)
            if key in seen:
                problems.append(f"{location}: {annotator} graded line {number} of poem "
                                f"{_as_named(values, poem)} already at {seen[key]}")  # fmt: skip
                continue
            seen[key] = location
            graded[key[:3]].add(number)
            first_row.setdefault(
                key[:3], f"{location}: {annotator} graded poem {_as_named(values, poem)}"
            )
            rows.append(LineGrade(task.sheet_id, annotator, generation_id, number, fluency,
                                  coherence, location))  # fmt: skip
        if not filled:
            problems.append(f"{path}: {NO_GRADES}")
    for (sheet_id, annotator, generation_id), numbers in graded.items():
        item = next(i for i in tasks[sheet_id].items if i.generation_id == generation_id)
        missing = sorted(set(range(1, len(item.lines) + 1)) - numbers)
        if missing:
            problems.append(
                f"{first_row[(sheet_id, annotator, generation_id)]} of sheet {sheet_id} only in "
                f"part; lines without a row: {', '.join(map(str, missing))}"
            )
    if problems:
        raise LineImportError(problems)
    report.notes += _not_given(store, rows)
    report.rows = len(rows)
    report.annotators = {row.annotator for row in rows}
    report.poems = {row.generation_id for row in rows}
    return rows, report


def _not_given(store: RunStore, rows: Sequence[LineGrade]) -> list[str]:
    """A line survey's grades by an annotator the survey did not give those poems to, as
    `survey import` warns of an expert's: R1's filled sheet with the rater's own name in the
    annotator column ("Annotator: ____" on the sheets before) went in as a new annotator
    without a word, R1 left at 0 done and their web grades of those poems kept beside it."""
    from poemetric.survey import db
    from poemetric.survey.lines import sheet_id_for

    notes = []
    for survey_id in db.survey_ids(store):
        sheet = sheet_id_for(survey_id)
        graded = [(row.annotator, row.generation_id) for row in rows if row.sheet_id == sheet]
        off = db.unassigned(store, survey_id, graded) if graded else {}
        if off:
            named = ", ".join(f"{name} ({counted(count, 'poem')})" for name, count in off.items())
            notes.append(
                f"survey {survey_id!r} did not give these poems to the annotator the file names: "
                f"{named}. Their grades are stored and enter the scores: check that the "
                f"annotator column holds the rater's own id (raters: "
                f"{', '.join(db.raters(store, survey_id))}; a sheet imported under another "
                "rater's id also replaces that rater's grades)."
            )
    return notes


def _as_named(values: dict[str, Any], poem: str) -> str:
    """A poem as the file names it: its `item` number there and its code. A line survey's
    sheets number each rater's poems in the rater's own order, not as the survey does."""
    number = str(values.get("item") or "").strip()
    return f"{number} ({poem})" if number else poem


def import_line_annotations(store: RunStore, paths: Sequence[str | Path]) -> LineImportReport:
    """Check and store the grades of `paths` in one transaction (all or nothing)."""
    rows, report = read_line_annotations(store, paths)
    with store.transaction() as conn:
        # Taken once the write lock is held: imports store in the order of their times, so a
        # line-survey page that shows one import's grades (`edits.seen`) sees every earlier one.
        now = utc_now()
        store_line_grades(conn, rows, now)
        _complete_survey_pages(store, conn, {(row.sheet_id, row.annotator) for row in rows}, now)
    return report


def _complete_survey_pages(
    store: RunStore, conn: sqlite3.Connection, graded: set[tuple[str, str]], now: str
) -> None:
    """A line survey's sheet (`survey sheets --survey S`, sheet id `survey-S`) graded by one of
    its raters completes that rater's pages, as web grades do: `survey status` and the admin page
    said "0 of 4 done" of a rater whose every line was imported."""
    from poemetric.survey import db
    from poemetric.survey.lines import sheet_id_for

    for survey_id in db.survey_ids(store):
        raters = {annotator for sheet, annotator in graded if sheet == sheet_id_for(survey_id)}
        if raters:
            survey = db.load_survey(store, survey_id)
            db.complete_pages(conn, survey.task, survey_id, raters, now)
