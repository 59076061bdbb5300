"""Printable annotation sheets of a `LineTask`: an HTML page (print CSS: one poem per page), the
CSV template annotators fill in, and the task itself as JSON. The template and the JSON name each
poem by its code under the run's survey secret (`poemetric.store.poem_codes`), in the
`generation_id` column and field, never by its generation id: a hash of public inputs, from
which an annotator could recompute each poem's author."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path

import jinja2

from poemetric.annotation.task import NOT_APPLICABLE, LineTask
from poemetric.store.poem_codes import poem_code
from poemetric.text.plural import counted

#: Columns of the CSV template, in order. Annotators fill `annotator`, `fluency`, `coherence`.
CSV_COLUMNS = ("sheet_id", "annotator", "item", "generation_id", "line", "text", "fluency",
               "coherence")  # fmt: skip
#: Columns an annotator fills (coherence is pre-filled on some lines, so it says nothing).
FILLED_COLUMNS = ("annotator", "fluency")
IMPORTER = "poemetric ghostwriting import-lines"
_TEMPLATE = Path(__file__).with_name("line_sheet.html.jinja")


class FilledTemplateError(Exception):
    """A CSV template about to be written already holds someone's answers."""


def refuse_filled(paths: Iterable[Path], columns: Iterable[str], *, importer: str) -> None:
    """Raise `FilledTemplateError` when any of `paths` exists with a value in one of `columns`
    (answers typed into an earlier template), or exists and cannot be read as a template (it may
    hold answers, as a template Excel saved as UTF-16 "Unicode Text" does): writing sheets again
    must not erase them. An empty file has nothing to keep."""
    from poemetric.data.io import DatasetError, read_table

    wanted = tuple(columns)
    for path in paths:
        if not path.is_file():
            continue  # nothing typed into it to keep
        try:
            data = path.read_bytes()
            if not data.strip():
                continue
            # As `import-lines` and `survey import` read it: a template saved by Excel as
            # Windows-1252 or with `;` between fields was not read here, and was overwritten.
            table = read_table(path, data, semicolon_names=lambda names: bool(names & set(wanted)))
        except (OSError, DatasetError) as error:
            raise FilledTemplateError(_unreadable(path, str(error), importer)) from None
        if table.file_error:
            reason = table.issues[0].reason.removesuffix("; save the file as UTF-8")
            raise FilledTemplateError(_unreadable(path, reason, importer))
        missing = [c for c in wanted if c not in table.columns]
        if missing:
            reason = f"no {' or '.join(missing)} column in its header"
            raise FilledTemplateError(_unreadable(path, reason, importer))
        filled = sum(
            any(str(record.values.get(c) or "").strip() for c in wanted) for record in table.records
        )
        if filled:
            raise FilledTemplateError(
                f"{path} already holds answers ({counted(filled, 'filled row')}); import it with "
                f"`{importer}` or move it away first (nothing was written)"
            )
        if table.unreadable:
            issue = table.issues[0]
            reason = (
                f"{counted(table.unreadable, 'row')} unreadable, the first on line {issue.line}"
            )
            raise FilledTemplateError(_unreadable(path, f"{reason}: {issue.reason}", importer))


def _unreadable(path: Path, reason: str, importer: str) -> str:
    return (
        f"{path} exists and cannot be read as a sheet template ({reason}), so it may hold "
        f"answers: nothing was written. Save it as CSV (UTF-8) and import it with `{importer}`, "
        "move it away, or write the sheets to another folder (--out)"
    )


def render_sheet_html(task: LineTask, annotator: str = "") -> str:
    """The printable sheet; `annotator`: the rater a line survey's sheet is printed for, whose id
    the import expects (a blank to write a name on where any annotator may grade it)."""
    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = environment.from_string(_TEMPLATE.read_text(encoding="utf-8"))
    return template.render(task=task, annotator=annotator)


#: What a spreadsheet reads as the start of a formula: a poem line beginning so (a dash of
#: dialogue, "= ...") showed as #NAME? or a computed value, and was saved back that way.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(line: str) -> str:
    """`line` as the template's `text` cell: after an apostrophe where it would start a formula
    (the usual guard; the importer reads the line either way)."""
    return f"'{line}" if line.startswith(FORMULA_STARTS) else line


def write_csv_template(task: LineTask, path: Path, secret: bytes) -> Path:
    """One row per line; coherence is pre-filled where the protocol fixes it. `secret`: the
    run's survey secret, which makes each poem's code."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for item in task.items:
            code = poem_code(secret, task.sheet_id, item.generation_id)
            for number, line in enumerate(item.lines, start=1):
                coherence = (
                    NOT_APPLICABLE if number == 1 else "not" if number in item.repeats else ""
                )
                text = spreadsheet_text(line)
                writer.writerow([task.sheet_id, "", item.item, code, number, text, "", coherence])
    return path


def write_line_sheets(task: LineTask, out_dir: str | Path, secret: bytes) -> list[Path]:
    """`sheet.html`, `annotations.csv` (template) and `task.json` in `out_dir`; `secret` is
    the run's survey secret (`poemetric.survey.tokens.load_secret`)."""
    out = Path(out_dir)
    refuse_filled([out / "annotations.csv"], FILLED_COLUMNS, importer=IMPORTER)
    out.mkdir(parents=True, exist_ok=True)
    html = out / "sheet.html"
    html.write_text(render_sheet_html(task), encoding="utf-8")
    data = out / "task.json"
    content = task.to_dict()
    for item in content["items"]:
        item["generation_id"] = poem_code(secret, task.sheet_id, item["generation_id"])
    data.write_text(json.dumps(content, indent=1, ensure_ascii=False), encoding="utf-8")
    return [html, write_csv_template(task, out / "annotations.csv", secret), data]
