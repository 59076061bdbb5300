"""At an 80-column terminal the tables keep model names whole: `models` left the open, think,
price and groups columns no room, the `generate`/`judge` summaries cut names to `gem…`, and
`export` misaligned table names longer than 12 characters."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.data import load_dataset
from poemetric.roster import list_models

NARROW = {"COLUMNS": "80"}
#: A line of --help that is an example command.
EXAMPLE = re.compile(r"(poemetric|sbatch) ")
LONG_NAMES = ["markov", "gemini-2.5-pro", "deepseek-r1-distill-qwen-1.5b", "claude-3.7-sonnet"]


def _cells(output: str) -> list[list[str]]:
    return [[c.strip() for c in re.split("[│┃]", line)[1:-1]] for line in output.splitlines()]


def test_models_at_80_columns_keep_names_and_the_short_columns() -> None:
    for extra, kind in (([], "generators"), (["--judges"], "judges")):
        result = CliRunner().invoke(app, ["models", *extra], env=NARROW)
        assert result.exit_code == 0, result.output
        assert max(map(len, result.output.splitlines()[:-1])) <= 80
        assert "…" not in result.output
        names = [row.name for row in list_models(kind)]
        first_cells = [line.split("│")[0].strip() for line in result.output.splitlines()]
        assert set(names) <= set(first_cells)
        header = next(line for line in result.output.splitlines() if line.startswith("name"))
        assert [h.strip() for h in header.split("┃")][1:5] == ["open", "think", "in $/M", "out $/M"]
        assert "left out at this width" in result.output and "models show NAME" in result.output
    wide = CliRunner().invoke(app, ["models"], env={"COLUMNS": "250"})
    assert "model id" in wide.output and "left out" not in wide.output


def test_the_judges_table_points_to_the_show_command_that_works() -> None:
    """`models --judges` said "see `poemetric models show NAME`", which looks among the
    generators: a judge's name there is "unknown generator"."""
    judges = CliRunner().invoke(app, ["models", "--judges"], env=NARROW)
    command = re.search(r"see\s+`poemetric (models show NAME[^`]*)`", judges.output)
    assert command is not None and command.group(1) == "models show NAME --judges"
    name = list_models("judges")[0].name
    shown = CliRunner().invoke(app, command.group(1).replace("NAME", name).split(), env=NARROW)
    assert shown.exit_code == 0 and f"name: {name}" in shown.output
    generators = CliRunner().invoke(app, ["models"], env=NARROW)
    assert "see `poemetric models show NAME`)" in generators.output


def test_run_summaries_at_80_columns_keep_model_names_whole(tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    plan = CliRunner().invoke(
        app,
        ["generate", "--run", run, "--models", ",".join(LONG_NAMES), "--dry-run", "--no-progress"],
        env=NARROW,
    )
    assert plan.exit_code == 0, plan.output
    table = plan.output[plan.output.index("plan (dry run)") : plan.output.index("└")]
    assert "…" not in table and max(map(len, table.splitlines())) <= 80
    assert {cells[0] for cells in _cells(table) if cells} >= set(LONG_NAMES)
    assert "0 for every model, left out at this width: done, cached" in plan.output
    generated = CliRunner().invoke(
        app, ["generate", "--run", run, "--models", "markov", "--limit", "1", "--no-progress"],
        env=NARROW,
    )  # fmt: skip
    assert generated.exit_code == 0 and ["markov", "1", "1", "1"] in [
        cells[:4] for cells in _cells(generated.output)
    ]
    judges = ["gemini-2.5-pro", "claude-3.7-sonnet", "local-openai"]
    judged = CliRunner().invoke(
        app, ["judge", "--run", run, "--judge", ",".join(judges), "--dry-run", "--no-progress"],
        env=NARROW,
    )  # fmt: skip
    assert judged.exit_code == 0, judged.output
    table = judged.output[judged.output.index("plan (dry run)") : judged.output.index("└")]
    assert "…" not in table and {cells[0] for cells in _cells(table) if cells} >= set(judges)
    # Numbers are whole too: the token estimates were cut to `27,201/12…`.
    # (which column holds them depends on the width: look for the cell, not at an index)
    assert all(
        any(re.fullmatch(r"[\d,]+/[\d,]+", cell) for cell in c)
        for c in _cells(table)
        if c[:1] in [[j] for j in judges]
    )


def test_export_aligns_long_table_names(tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    made = CliRunner().invoke(app, ["generate", "--run", run, "--limit", "1", "--no-progress"])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(
        app, ["export", "--run", run, "--to", str(tmp_path / "out")], env=NARROW
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if " → " in line]
    assert any(line.startswith("survey_assignments ") for line in lines)
    assert len({line.index("→") for line in lines}) == 1


def _command_paths(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command and group, the root included (groups have help text of their own)."""
    yield path
    if hasattr(group, "commands"):
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):  # loads lazily registered commands
            yield from _command_paths(group.get_command(ctx, name), (*path, name))


def _help_lines(path: tuple[str, ...], columns: int) -> list[str]:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return [line.strip().strip("│").strip() for line in result.output.splitlines()]


def test_help_examples_stay_whole_at_80_columns() -> None:
    """An example command in --help was split mid-argument at 80 columns (`... --template` /
    `my-prompt.jinja`), so it could not be copied; every example line now fits."""
    broken = []
    for path in _command_paths(typer.main.get_command(app)):
        narrow = set(_help_lines(path, 80))
        examples = [line for line in _help_lines(path, 250) if EXAMPLE.match(line)]
        broken += [line for line in examples if line not in narrow]
    assert broken == []


def test_survey_build_hints_stay_whole_at_80_columns(tmp_path: Path) -> None:
    """The `next:` commands after `survey build` were wrapped mid-line (`... (print / CSV for`
    / `offline raters)`, or inside the command with a long run path)."""
    run = tmp_path / "a-run-folder-with-a-rather-long-name"
    made = CliRunner().invoke(app, ["generate", "--run", str(run), "--limit", "2", "--no-progress"])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(
        app, ["survey", "build", "--run", str(run), "--per-rater", "2"], env=NARROW
    )
    assert result.exit_code == 0, result.output
    for command in ("serve", "sheets"):
        assert f"  poemetric survey {command} --run {run} --survey experts" in (
            result.output.splitlines()
        )


def test_survey_import_names_a_long_run_path_on_one_line(tmp_path: Path) -> None:
    """`survey import` at 80 columns wrapped its message before the run path: "... into survey
    'experts' of" on one line, the path on the next (cut inside it when longer than a line)."""
    run = tmp_path / "a-run-folder-with-a-rather-long-name-that-holds-the-survey-answers"
    made = CliRunner().invoke(app, ["generate", "--run", str(run), "--limit", "2", "--no-progress"])
    assert made.exit_code == 0, made.output
    built = CliRunner().invoke(app, ["survey", "build", "--run", str(run), "--per-rater", "2"])
    assert built.exit_code == 0, built.output
    sheets = CliRunner().invoke(app, ["survey", "sheets", "--run", str(run)])
    assert sheets.exit_code == 0, sheets.output
    sheet = run / "survey-experts" / "R1.csv"
    filled = sheet.read_text(encoding="utf-8").replace(",R1,form,,", ",R1,form,4,")
    sheet.write_text(filled, encoding="utf-8")
    result = CliRunner().invoke(
        app, ["survey", "import", str(sheet), "--run", str(run)], env=NARROW
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"imported 2 answers (2 new, 0 replaced) by 1 rater into survey 'experts' of {run}"
    ]


def test_a_paper_scale_judge_summary_keeps_every_number_whole_at_80_columns() -> None:
    """A resumed judge run with re-asks and errors at the paper's scale: the columns left after
    the all-zero ones did not fit 80 columns, and rich cut them (`0.03…` for the cost, `6090`
    to `…`, `gemini-2.5…`). What does not fit goes to a second table with the model again.
    Counts have a thousands separator, as the tokens do."""
    from io import StringIO

    from rich.console import Console

    from poemetric.runner.report import ModelReport, StageReport

    model = ModelReport(
        model="gemini-2.5-pro", provider="google", jobs=6090, already_done=1400,
        from_cache=700, pending=3990, called=3990, ok=3900, errors=90, reasked=130,
        input_tokens=16_599_000, output_tokens=6_320_000, cost_usd=84.0321,
    )  # fmt: skip
    out = StringIO()
    StageReport(stage="judge", models=[model]).render(Console(file=out, width=80, emoji=False))
    text = out.getvalue()
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    rows = [cells for cells in _cells(text) if cells[:1] == ["gemini-2.5-pro"]]
    # Counts with a thousands separator, as the tokens (6090 before).
    assert rows[0] == ["gemini-2.5-pro", "6,090", "1,400", "700", "3,990", "3,900", "90", "130"]
    assert rows[1] == ["gemini-2.5-pro", "16,599,000/6,320,000", "84.0321"]


def test_dataset_show_at_80_columns_keeps_each_id_whole() -> None:
    """`dataset show demo` at 80 columns folded each poem id over eight lines of its column (and
    before that cut `Shakespea…`, `ABABCDCDE…`). An id now has a line of its own where a table
    cannot hold it whole, its values indented below it; no value is cut."""
    result = CliRunner().invoke(app, ["dataset", "show", "demo", "--limit", "5"], env=NARROW)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "demo: 5 of 16 poems"
    ids = [poem.poem_id for poem in load_dataset("demo").head(5)]
    assert [line for line in lines if not line.startswith(" ")][1:] == ids
    assert "…" not in result.output and max(map(len, lines)) <= 80
    values = " ".join(line.strip() for line in lines)
    assert "Sonnet 18: Shall I compare thee to a summer's day?, by William Shakespeare" in values
    assert "sonnet, 14 lines, meter Iambic pentameter, rhyme ABABCDCDEFEF GG" in values


def test_dataset_show_keeps_the_table_where_the_ids_fit(tmp_path: Path) -> None:
    """Wide enough for the ids (or with short ids at 80 columns), `dataset show` is a table whose
    id column never folds; the other columns fold instead."""
    wide = CliRunner().invoke(app, ["dataset", "show", "demo", "-n", "3"], env={"COLUMNS": "200"})
    assert wide.exit_code == 0, wide.output
    first = [row[0] for row in _cells(wide.output) if len(row) == 7 and row[0]]
    assert first == ["poem_id", *(poem.poem_id for poem in load_dataset("demo").head(3))]
    mine = tmp_path / "mine.csv"
    title = "A Title Long Enough To Fold Over Several Lines Of Its Own Narrow Column"
    mine.write_text(
        "id,form,title,author,content,meter_pattern,rhyme_pattern,theme\n"
        f'limerick-0001,limerick,{title},Nobody Known,"a\nb\nc\nd\ne",anapestic,AABBA,sea\n',
        encoding="utf-8",
    )
    narrow = CliRunner().invoke(app, ["dataset", "show", str(mine)], env=NARROW)
    assert narrow.exit_code == 0, narrow.output
    rows = [row for row in _cells(narrow.output) if len(row) == 7]
    assert [row[0] for row in rows if row[0]] == ["poem_id", "limerick-0001"]
    assert len(rows) > 3 and " ".join(row[2] for row in rows[1:] if row[2]) == title
    assert max(map(len, narrow.output.splitlines())) <= 80


def test_dataset_list_at_80_columns_is_a_block_per_dataset(tmp_path: Path) -> None:
    """`dataset list` at 80 columns folded the descriptions into a column of 15 characters, a
    table 46 lines tall for three datasets (and before that cut where the release goes,
    `/root/.local/s…`). Where the description would have less than 30 columns, each dataset is
    a block, as `dataset show`'s poems are: its name line, its file's path, its description
    wrapped below; no value is cut."""
    data = tmp_path / "a-data-folder-with-a-long-name"
    result = CliRunner().invoke(
        app, ["dataset", "list"], env={**NARROW, "POEMETRIC_DATA_DIR": str(data)}
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "…" not in result.output and "│" not in result.output
    assert max(map(len, lines)) <= 80 and len(lines) <= 16, lines
    assert lines[0] == "demo (16 poems): bundled"
    assert (
        "poemetric (163 poems): not present, fetch it: poemetric dataset fetch poemetric" in lines
    )
    path = str(data / "datasets" / "poemetric" / "POEMetric_human_poems_annotated.csv")
    assert path in "".join(line.strip() for line in lines)  # folded only where wider than 80
    words = " ".join(line.strip() for line in lines)
    assert "hand-annotated like the POEMetric release. Offline, no download." in words
    wide = CliRunner().invoke(
        app, ["dataset", "list"], env={"COLUMNS": "400", "POEMETRIC_DATA_DIR": str(tmp_path)}
    )
    rows = [row for row in _cells(wide.output) if len(row) == 5]
    assert rows[0] == ["name", "present", "poems", "where", "description"]
    where = next(row[3] for row in rows if row[0] == "poemetric")
    assert where == str(tmp_path / "datasets" / "poemetric" / "POEMetric_human_poems_annotated.csv")


def test_ghostwriting_tables_keep_every_header_whole_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ghostwriting score` of two poems cut `unweighted` to `unweight…` at 80 columns, and
    `ghostwriting metrics` cut `near-copies` to `near-copi…` beside a long model name, while the
    name column folded anyway; a narrower terminal folds a header, never cuts it."""
    demo = load_dataset("demo").poems
    files = [tmp_path / "parma.txt", tmp_path / "slumber.txt"]
    for file, poem in zip(files, (demo[10], demo[13]), strict=True):
        file.write_text(poem.content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    scored = CliRunner().invoke(
        app, ["ghostwriting", "score", "parma.txt", "slumber.txt"], env=NARROW
    )
    assert scored.exit_code == 0, scored.output
    assert "…" not in scored.output and max(map(len, scored.output.splitlines())) <= 80
    assert "unweighted" in scored.output and "slumber.txt" in scored.output
    run = tmp_path / "run"
    generated = CliRunner().invoke(
        app, ["generate", "--run", "run", "--models", "markov", "--limit", "2", "--no-progress"]
    )
    assert generated.exit_code == 0, generated.output
    with sqlite3.connect(run / "poemetric.sqlite") as db:  # as a model of that name would write
        db.execute("UPDATE generations SET author = ? WHERE author = 'markov'", (LONG_NAMES[2],))
    result = CliRunner().invoke(app, ["ghostwriting", "metrics", "--run", "run"], env=NARROW)
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and max(map(len, result.output.splitlines())) <= 80
    # named by display name, as the other tables name authors
    assert "near-copies" in result.output and "DeepSeek-R1-Distill" in result.output
    # Narrower than the headers' words: every header folds (rich reads COLUMNS once a process).
    from rich.console import Console

    from poemetric.cli.ghostwriting_cmd import fitted_table

    headers = ["author", "poems", "rhyme density", "uniqueness", "near-copies"]
    table = fitted_table(None, headers, [[LONG_NAMES[2], "16", "0.108", "0.110", "0"]], 40)
    narrow = Console(width=40, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    narrow.print(table)
    text = narrow.export_text()
    assert "…" not in text and max(map(len, text.splitlines())) <= 40


def test_ghostwriting_score_with_a_reference_keeps_file_names_and_headers_whole_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ghostwriting score poems/ --reference ref/` at 80 columns folded each file name into
    lines of 7 characters (`/tmp/jp`, `r/poems`, `/baker.`, `txt`) and cut every header in two
    (`syllabl`/`es`, `uniquen`/`ess`): eight columns' borders and padding left the names no
    room. The cells lose their padding there, and each name and header word stays on one line."""
    demo = load_dataset("demo").poems
    poems, reference = tmp_path / "mine", tmp_path / "ref"
    poems.mkdir()
    reference.mkdir()
    for name, poem in zip(("parma.txt", "dream.txt"), (demo[10], demo[13]), strict=True):
        (poems / name).write_text(poem.content, encoding="utf-8")
    (reference / "other.txt").write_text(demo[3].content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    scored = CliRunner().invoke(
        app, ["ghostwriting", "score", "mine", "--reference", "ref"], env=NARROW
    )
    assert scored.exit_code == 0, scored.output
    lines = scored.output.splitlines()
    table = [line for line in lines if not line.startswith("uniqueness:")]  # a note, not folded
    assert "…" not in scored.output and max(map(len, table)) <= 80
    cells = [[cell.strip() for cell in row] for row in _cells("\n".join(table)) if row]
    # Nine columns with the TTR: the long header words break where a hyphen may, never cut.
    headers = [f"{top[:-1]}{low}" if top.endswith("-") else f"{top} {low}".strip()
               for top, low in zip(cells[0], cells[1], strict=True)]  # fmt: skip
    words = {word for header in headers for word in header.split()}
    assert {"file", "syllables", "unweighted", "Raplyzer", "uniqueness", "TTR"} <= words, headers
    rows = [row for row in cells if row[0].startswith("mine/")]
    assert [row[0] for row in rows] == ["mine/dream.txt", "mine/parma.txt"]
    assert all(len(row) == 9 and all(row) for row in rows), rows  # a name, 8 numbers: 1 line
