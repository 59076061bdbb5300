"""`poemetric export` names its argument as its help does and counts rows in proper English.

An unknown table said `error: TABLES: unknown table 'nosuch'` while `--help` calls the argument
`tables`, and a table of one row was listed as `1 rows`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store.schema import EXPORTABLE_TABLES

runner = CliRunner()


def one_poem_run_at(run: Path) -> Path:
    """A run store at `run` holding one dataset poem and nothing else."""
    with RunStore(run) as store:
        store.add_poems([
            {"poem_id": "p1", "dataset": "t", "position": 0, "form": "limerick",
             "content": "a line", "record": "{}"},
        ])  # fmt: skip
    return run


@pytest.fixture
def one_poem_run(tmp_path: Path) -> Path:
    return one_poem_run_at(tmp_path / "run")


def test_an_unknown_table_is_named_as_help_names_the_argument(one_poem_run: Path) -> None:
    result = runner.invoke(app, ["export", "--run", str(one_poem_run), "nosuch"])
    assert result.exit_code == 2
    assert result.output.startswith("error: tables: unknown table 'nosuch'; tables: poems, ")
    assert ", ".join(EXPORTABLE_TABLES) in result.output
    assert "Usage:" not in result.output
    helped = runner.invoke(app, ["export", "--help"], env={"COLUMNS": "100"}).output
    assert re.search(r"│ +tables", helped)
    close = runner.invoke(app, ["export", "--run", str(one_poem_run), "judgements"]).output
    assert "unknown table 'judgements' (did you mean 'judgments'?)" in close


def test_a_table_of_one_row_says_row(one_poem_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "exp"
    result = runner.invoke(app, ["export", "--run", str(one_poem_run), "--to", str(out)])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines()}
    assert lines["poems"].split("→")[0].split()[1:] == ["1", "row"]  # was "1 rows"
    assert lines["judgments"].split("→")[0].split()[1:] == ["0", "rows"]
    assert lines["poems"].index("→") == lines["judgments"].index("→")  # the arrows line up


@pytest.mark.parametrize("name", ["latex", "tex", "markdown"])
def test_a_latex_format_is_sent_to_analyze(one_poem_run: Path, name: str) -> None:
    """`--format latex` was Typer's box "'latex' is not one of 'csv', 'jsonl', 'parquet'", with
    no word that `analyze` writes the LaTeX tables a paper needs."""
    result = runner.invoke(
        app, ["export", "--run", str(one_poem_run), "--format", name], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2
    assert " ".join(result.output.split()) == (
        f"error: --format {name}: export writes the run store's raw tables (csv, jsonl, "
        f"parquet); the analysis tables for a paper, in LaTeX and Markdown, are written by "
        f"`poemetric analyze --run {one_poem_run}` to {one_poem_run / 'analysis'} (tables.tex "
        "includes every one)"
    )
    assert not (one_poem_run / "export").exists()


def test_a_mistyped_format_is_one_line_with_the_close_name(one_poem_run: Path) -> None:
    result = runner.invoke(app, ["export", "--run", str(one_poem_run), "--format", "parqet"])
    assert result.exit_code == 2
    assert result.output == (
        "error: --format: unknown format 'parqet' (did you mean 'parquet'?); formats: csv, "
        "jsonl, parquet\n"
    )
