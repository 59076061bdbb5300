"""Line-level fluency / coherence: sheets, CSV template, import with file:line errors, scores."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from survey_support import add_generation
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.annotation.importer import LineImportError, import_line_annotations
from poemetric.annotation.sheets import CSV_COLUMNS, write_line_sheets
from poemetric.annotation.task import LineTask, build_line_task, stored_tasks
from poemetric.cli import app
from poemetric.ghostwriting.fluency import fluency_scores, load_line_annotations
from poemetric.store import RunStore
from poemetric.store.poem_codes import poem_code
from poemetric.survey.tokens import load_secret

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REFRAIN = "The same line again and again"


def _line_survey_with_sheets(tmp_path: Path) -> str:
    """The run of `_store_with_a_refrain` with a line survey `lines` of 3 poems built and its
    sheets written (`RUN/survey-lines/R1.csv`, ...); the run's path."""
    _store_with_a_refrain(tmp_path).close()
    run = str(tmp_path / "run")
    build = ["survey", "build", "--run", run, "-s", "lines", "--task", "lines", "--poems", "3"]
    assert CliRunner().invoke(app, build).exit_code == 0
    assert CliRunner().invoke(app, ["survey", "sheets", "--run", run, "-s", "lines"]).exit_code == 0
    return run


def _store_with_a_refrain(tmp_path: Path) -> RunStore:
    """Four demo poems (human rows) and a 'parrot' poem that repeats its second line."""
    store = prepared_store(tmp_path / "run", poems=4)
    add_generation(store, "parrot-1", "parrot", f"One line\n{REFRAIN}\n{REFRAIN}")
    return store


def _filled(template: Path, out: Path, annotator: str, grade: str) -> Path:
    with template.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["annotator"] = annotator
        row["fluency"] = grade
        if not row["coherence"]:
            row["coherence"] = grade
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return out


@pytest.fixture
def sheets(tmp_path: Path) -> tuple[RunStore, LineTask, list[Path]]:
    store = _store_with_a_refrain(tmp_path)
    task = build_line_task(store, per_author=5, seed=3)
    return store, task, write_line_sheets(task, tmp_path / "sheets", load_secret(store.run_dir))


def _code(store: RunStore, task: LineTask, generation_id: str) -> str:
    """The code the sheets name a poem by (in their `generation_id` column)."""
    return poem_code(load_secret(store.run_dir), task.sheet_id, generation_id)


def test_sheets_hold_every_poem_blind_with_the_fixed_grades(
    sheets: tuple[RunStore, LineTask, list[Path]],
) -> None:
    store, task, (html, template, data) = sheets
    assert len(task.items) == 5 and stored_tasks(store)[task.sheet_id] == task
    parrot = next(item for item in task.items if item.generation_id == "parrot-1")
    assert parrot.repeats == [3]
    content = json.loads(data.read_text(encoding="utf-8"))
    assert content["kind"] == "line-fluency-coherence"
    assert content["seed"] == 3  # the sheet says how it was drawn (`ghostwriting sheets --seed`)
    page = html.read_text(encoding="utf-8")
    assert "parrot" not in page and "human" not in page.lower().replace("human-", "")
    assert "repeats line 2: not coherent" in page and "first line: none" in page
    with template.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == sum(len(item.lines) for item in task.items)
    fixed = [r for r in rows if r["generation_id"] == _code(store, task, "parrot-1")]
    assert [r["coherence"] for r in fixed] == ["n/a", "", "not"]
    # No poem is named by its generation id, a hash of public inputs (the poem id, the
    # generation template, the author's name) that an annotator could recompute per author.
    generation_ids = {item.generation_id for item in task.items}
    assert not generation_ids & {r["generation_id"] for r in rows}
    assert not generation_ids & {item["generation_id"] for item in content["items"]}


def test_import_scores_per_author_and_replaces_a_reimport(
    sheets: tuple[RunStore, LineTask, list[Path]], tmp_path: Path
) -> None:
    store, task, (_, template, _) = sheets
    first = _filled(template, tmp_path / "ann1.csv", "ann1", "strong")
    second = _filled(template, tmp_path / "ann2.csv", "ann2", "weak")
    report = import_line_annotations(store, [first, second])
    lines = sum(len(item.lines) for item in task.items)
    assert report.rows == 2 * lines and report.annotators == {"ann1", "ann2"}
    scores = fluency_scores(load_line_annotations(store)).set_index("author")
    # Paper eq. 1 per poem: (strong + 0.5 weak) / annotations = (1 + 0.5) / 2.
    assert scores.loc["human", "fluency"] == pytest.approx(0.75)
    assert scores.loc["human", "fluency_agreement"] == 0.0
    # The parrot's third line is not coherent by rule; its first line has no coherence grade:
    # coherence over lines 2 and 3 of two annotators = (1 + 0.5 + 0 + 0) / 4.
    assert scores.loc["parrot", "coherence"] == pytest.approx(0.375)
    assert scores.loc["parrot", "coherence_not"] == pytest.approx(0.5)
    again = _filled(template, tmp_path / "ann2b.csv", "ann2", "strong")
    import_line_annotations(store, [again])
    assert store.count("line_annotations") == 2 * lines
    rescored = fluency_scores(load_line_annotations(store)).set_index("author")
    assert (
        rescored.loc["human", "fluency"] == 1.0
        and rescored.loc["human", "fluency_agreement"] == 1.0
    )


def test_bad_rows_are_reported_by_file_and_line_and_nothing_is_imported(
    sheets: tuple[RunStore, LineTask, list[Path]], tmp_path: Path
) -> None:
    store, task, (_, template, _) = sheets
    path = _filled(template, tmp_path / "bad.csv", "ann1", "strong")
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    parrot = [n for n, r in enumerate(rows) if r["generation_id"] == _code(store, task, "parrot-1")]
    rows[0]["fluency"] = "quite"  # not a grade
    rows[1]["text"] = "edited text"  # a moved or edited row
    rows[parrot[2]]["coherence"] = "strong"  # a repeated line cannot be coherent
    rows[parrot[0]]["coherence"] = "weak"  # the first line has no coherence
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(LineImportError) as caught:
        import_line_annotations(store, [path])
    problems = caught.value.problems
    assert f"{path}:2: 'quite' is not a grade; use strong, weak or not (or 1, 0.5, 0)" in problems
    assert any(p.startswith(f"{path}:3: the text differs from line 2") for p in problems)
    assert f"{path}:{parrot[2] + 2}: line 3 repeats line 2: coherence is 'not'" in problems
    assert any(p.startswith(f"{path}:{parrot[0] + 2}: the first line") for p in problems)
    assert store.count("line_annotations") == 0


def test_an_unreadable_record_is_named_without_a_column_dash(
    sheets: tuple[RunStore, LineTask, list[Path]], tmp_path: Path
) -> None:
    """A record with a field too many came out as `FILE:3: -: expected ...` (a dataset
    validator's empty column), unlike the file's other problems."""
    store, _, (_, template, _) = sheets
    path = _filled(template, tmp_path / "bad.csv", "ann1", "strong")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] += ",an extra field"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(LineImportError) as caught:
        import_line_annotations(store, [path])
    assert any(p.startswith(f"{path}:3: expected") for p in caught.value.problems)
    assert not any(": -: " in p for p in caught.value.problems)
    assert store.count("line_annotations") == 0


def test_cli_makes_sheets_and_imports_them(tmp_path: Path) -> None:
    store = _store_with_a_refrain(tmp_path)
    store.close()
    run = str(tmp_path / "run")
    made = CliRunner().invoke(
        app, ["ghostwriting", "sheets", "--run", run, "--out", str(tmp_path / "s")]
    )
    assert made.exit_code == 0, made.output
    filled = _filled(tmp_path / "s" / "annotations.csv", tmp_path / "f.csv", "me", "strong")
    done = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(filled)])
    assert done.exit_code == 0, done.output
    assert "imported" in done.output and "parrot" in done.output
    broken = tmp_path / "broken.csv"
    broken.write_text(filled.read_text(encoding="utf-8").replace(",me,", ",,", 1), encoding="utf-8")
    failed = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(broken)])
    assert failed.exit_code == 2 and failed.stdout == "", failed.output
    assert failed.stderr.startswith(f"error: nothing imported: {broken}:2: grades without an")


def test_a_windows_1252_sheet_is_imported_with_a_warning(tmp_path: Path) -> None:
    """A sheet re-saved by Excel on Windows (Windows-1252: an annotator named Zoë) was refused
    as not UTF-8; it is read, and the warning names the file and the encoding."""
    _store_with_a_refrain(tmp_path).close()
    run = str(tmp_path / "run")
    made = CliRunner().invoke(
        app, ["ghostwriting", "sheets", "--run", run, "--out", str(tmp_path / "s")]
    )
    assert made.exit_code == 0, made.output
    filled = _filled(tmp_path / "s" / "annotations.csv", tmp_path / "f.csv", "Zoë", "strong")
    filled.write_bytes(filled.read_text(encoding="utf-8").encode("cp1252"))
    done = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(filled)])
    assert done.exit_code == 0, done.output
    assert "annotators: Zoë" in done.stdout
    assert done.stderr.startswith(f"warning: {filled}:2: not UTF-8 (byte 0xeb): read as")


def test_a_missing_file_or_a_folder_is_named_as_other_commands_do(tmp_path: Path) -> None:
    """A missing file showed Python's `[Errno 2] No such file or directory: 'x.csv'`, a folder
    `[Errno 21] Is a directory`, and a .txt file its name twice."""
    prepared_store(tmp_path / "run", poems=1).close()
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "notes.txt").write_text("fluent\n")
    names = [str(tmp_path / name) for name in ("missing.csv", "folder.csv", "notes.txt")]
    args = ["ghostwriting", "import-lines", "--run", str(tmp_path / "run"), *names]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == (
        f"error: nothing imported: {names[0]}: no such file\n"
        f"{names[1]}: a folder, not a file\n"
        f"{names[2]}: unsupported file type '.txt'; use one of .csv, .tsv, .jsonl, .ndjson, "
        ".parquet, .pq\n"
    )


def test_importing_an_unfilled_template_is_an_error_naming_the_file(tmp_path: Path) -> None:
    """The sheet's own annotations.csv, not filled in, imported "0 line grades" (exit 0)."""
    _store_with_a_refrain(tmp_path).close()
    run = str(tmp_path / "run")
    made = CliRunner().invoke(
        app, ["ghostwriting", "sheets", "--run", run, "--out", str(tmp_path / "s")]
    )
    assert made.exit_code == 0, made.output
    template = tmp_path / "s" / "annotations.csv"
    result = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(template)])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith(f"error: nothing imported: {template}: no filled grades found")
    assert "e.g. annotator,fluency,coherence = ann1,strong,weak" in result.stderr


def test_a_file_that_is_no_line_table_is_one_problem_naming_its_columns(
    sheets: tuple[RunStore, LineTask, list[Path]], tmp_path: Path
) -> None:
    """A sheet saved with ';' as separator got one "expected 1 fields" line per row (30 shown),
    an expert-survey CSV "no filled grades found (an unfilled template?)": neither said why."""
    store, _, (_, template, _) = sheets
    filled = _filled(template, tmp_path / "filled.csv", "ann1", "strong")
    with filled.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    semicolons = tmp_path / "semicolons.csv"
    with semicolons.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter=";").writerows(rows)
    survey = tmp_path / "R1.csv"
    survey.write_text("page,poem,rater,item,score,comment\n1,parrot-1,R1,form,4,\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(LineImportError) as caught:
        import_line_annotations(store, [semicolons, survey, empty])
    problems = caught.value.problems
    assert len(problems) == 3, problems
    assert problems[0].startswith(f"{semicolons}: missing columns sheet_id, annotator, ")
    assert problems[0].endswith("; found " + ";".join(CSV_COLUMNS))
    assert problems[1].startswith(f"{survey}: missing columns sheet_id, annotator, ")
    assert problems[1].endswith("; found page, poem, rater, item, score, comment")
    assert problems[2] == f"{empty}: the file is empty"
    assert store.count("line_annotations") == 0


def test_a_line_survey_sheet_imported_completes_the_raters_pages(tmp_path: Path) -> None:
    """`survey sheets --survey lines`, filled and imported with `import-lines`: `survey status`
    (and the admin page, and the rater's link) said "0 of 2 done" of a rater whose every line
    was graded, as if nothing had been imported."""
    from poemetric.survey import db

    run = _line_survey_with_sheets(tmp_path)
    folder = tmp_path / "run" / "survey-lines"
    filled = _filled(folder / "R1.csv", tmp_path / "R1.csv", "R1", "weak")
    done = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(filled)])
    assert done.exit_code == 0, done.output
    with RunStore(tmp_path / "run", create=False) as store:
        progress = {row.rater: (row.completed, row.assigned) for row in db.progress(store, "lines")}
    assert progress["R1"] == (progress["R1"][1], progress["R1"][1]) and progress["R1"][1] > 0
    assert progress["R2"][0] == 0


def test_a_line_survey_sheet_imported_under_another_name_is_named(tmp_path: Path) -> None:
    """R1's filled `survey sheets --survey lines` template, with the rater's own name in the
    annotator column (the printed sheet said only "Annotator: ____"), went in as a new
    annotator without a word: R1 stayed "0 of N done" and their web grades of those poems were
    kept beside it. The printed sheet names the rater it is for, and the import warns, as
    `survey import` does of an expert's answers to poems the survey did not give them."""
    run = _line_survey_with_sheets(tmp_path)
    folder = tmp_path / "run" / "survey-lines"
    assert "Annotator: R1 " in (folder / "R1.html").read_text(encoding="utf-8")
    filled = _filled(folder / "R1.csv", tmp_path / "R1.csv", "Jane", "weak")
    result = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(filled)])
    assert result.exit_code == 0, result.output
    with filled.open(encoding="utf-8") as handle:
        poems = len({row["generation_id"] for row in csv.DictReader(handle)})
    said = " ".join(result.stderr.split())
    assert (
        "warning: survey 'lines' did not give these poems to the annotator the file names: "
        f"Jane ({poems} poem{'s' if poems > 1 else ''}). Their grades are stored"
    ) in said, said
    assert "(raters: R1, R2, R3;" in said
    own = _filled(folder / "R1.csv", tmp_path / "own.csv", "R1", "weak")
    result = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(own)])
    assert result.exit_code == 0 and "did not give" not in result.stderr, result.output


def test_a_file_named_twice_is_one_problem(
    sheets: tuple[RunStore, LineTask, list[Path]], tmp_path: Path
) -> None:
    """`import-lines a.csv a.csv` reported every row as graded "already at" itself."""
    store, _, (_, template, _) = sheets
    filled = _filled(template, tmp_path / "filled.csv", "ann1", "strong")
    with pytest.raises(LineImportError) as caught:
        import_line_annotations(store, [filled, tmp_path / "." / "filled.csv"])
    assert caught.value.problems == [f"{tmp_path / '.' / 'filled.csv'}: named more than once"]
    assert store.count("line_annotations") == 0


def test_the_printed_sheet_puts_one_poem_on_each_page(
    sheets: tuple[RunStore, LineTask, list[Path]], browser: Browser, tmp_path: Path
) -> None:
    _, task, (html, _, _) = sheets
    page = browser.new_page(viewport={"width": 900, "height": 1200})
    try:
        page.goto(html.as_uri())
        assert page.locator("section.poem").count() == len(task.items)
        page.emulate_media(media="print")
        breaks = page.eval_on_selector_all(
            "section.poem", "els => els.map(e => getComputedStyle(e).breakBefore)"
        )
        assert breaks == ["page"] * len(task.items)
        boxes = page.locator("section.poem").first.locator("td.box span")
        assert boxes.first.bounding_box()["width"] > 8  # type: ignore[index]
        page.screenshot(path=str(tmp_path / "sheet.png"), full_page=True)
        pdf = page.pdf(format="A4")
        # The instructions, then one page per poem (each poem here fits on a page).
        assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == len(task.items) + 1
    finally:
        page.close()


def test_a_line_a_spreadsheet_would_read_as_a_formula_round_trips(tmp_path: Path) -> None:
    """A poem line starting with a dash of dialogue or "=" was written as is into the template:
    a spreadsheet showed it as #NAME? (or a computed value) and saved that back, which the
    importer then refused as a moved row. It is written after an apostrophe and read either
    way."""
    store = prepared_store(tmp_path / "run", poems=2)
    add_generation(store, "dash-1", "dash", "- Who goes there?\n=1+1 is what they said\nNo one")
    task = build_line_task(store, per_author=5, seed=3)
    _, template, _ = write_line_sheets(task, tmp_path / "s", load_secret(store.run_dir))
    with template.open(encoding="utf-8") as handle:
        texts = [row["text"] for row in csv.DictReader(handle)]
    assert "'- Who goes there?" in texts and "'=1+1 is what they said" in texts
    assert "No one" in texts  # other lines as they are
    filled = _filled(template, tmp_path / "f.csv", "me", "strong")
    import_line_annotations(store, [filled])
    assert store.count("line_annotations", "generation_id = 'dash-1'") == 3


def test_a_poem_graded_in_part_is_named_as_the_raters_sheet_names_it(tmp_path: Path) -> None:
    """A line survey's sheets number each rater's poems in the rater's order, but a poem graded
    only in part was named by its number in the whole survey, with no file or line: "sheet
    survey-lines: R1 graded poem 2 only in part" of the poem R1.csv lists as item 1. Now the
    file, line, item number and code of the file's own rows."""
    run = _line_survey_with_sheets(tmp_path)
    with RunStore(tmp_path / "run", create=False) as store:
        task = stored_tasks(store)["survey-lines"]
        numbers = {_code(store, task, item.generation_id): item.item for item in task.items}
    sheets = {}
    for rater in ("R1", "R2", "R3"):
        with (tmp_path / "run" / "survey-lines" / f"{rater}.csv").open(encoding="utf-8") as handle:
            sheets[rater] = list(csv.DictReader(handle))
    rater, rows = next(
        (rater, rows)
        for rater, rows in sheets.items()
        if any(int(r["item"]) != numbers[r["generation_id"]] for r in rows)
    )
    poem = next(r for r in rows if int(r["item"]) != numbers[r["generation_id"]])
    first = next(n for n, r in enumerate(rows) if r["generation_id"] == poem["generation_id"])
    path = tmp_path / f"{rater}.csv"
    for row in rows:
        row.update(annotator=rater, fluency="weak", coherence=row["coherence"] or "weak")
    rows[first + 2]["text"] = "edited text"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(row for n, row in enumerate(rows) if n != first + 1)  # its line 2
    result = CliRunner().invoke(app, ["ghostwriting", "import-lines", "--run", run, str(path)])
    assert result.exit_code != 0
    assert (
        f"{path}:{first + 2}: {rater} graded poem {poem['item']} ({poem['generation_id']}) of "
        "sheet survey-lines only in part; lines without a row: 2, 3"
    ) in " ".join(result.output.split())
    assert (
        f"{path}:{first + 3}: the text differs from line 3 of poem {poem['item']} "
        f"({poem['generation_id']})"
    ) in " ".join(result.output.split())
