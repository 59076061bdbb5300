"""`survey sheets` and `ghostwriting sheets` refuse to write over a filled template; a file at the
template's path that could not be read as one at all (a template Excel saved as UTF-16 "Unicode
Text", a file with another header, a row broken by an unclosed quote) counted as "not a
template" and was overwritten without a word, answers and all."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

WIDE = {"COLUMNS": "400"}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("sheets") / "demo"
    runner = CliRunner()
    result = runner.invoke(app, ["demo", "--run", str(run), "--no-progress", "--limit", "4"])
    assert result.exit_code == 0, result.output
    built = runner.invoke(
        app, ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "2"]
    )
    assert built.exit_code == 0, built.output
    return run


def _utf16(template: Path, column: str, value: str) -> bytes:
    """The template filled in and saved as Excel's "Unicode Text" (UTF-16, tab-separated)."""
    rows = list(csv.reader(io.StringIO(template.read_text(encoding="utf-8"))))
    at = rows[0].index(column)
    for row in rows[1:]:
        row[at] = value
    text = io.StringIO()
    csv.writer(text, delimiter="\t", lineterminator="\r\n").writerows(rows)
    return text.getvalue().encode("utf-16")


def _broken(template: Path, column: str, value: str) -> bytes:
    """A filled row that cannot be read (an unclosed quote), and no other filled row."""
    lines = template.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join([*lines, '"unclosed,' + value + "\n"]).encode("utf-8")


def _other_header(template: Path, column: str, value: str) -> bytes:
    return f"poem,my {column}\n1,{value}\n".encode()


@pytest.mark.parametrize("saved", [_utf16, _broken, _other_header])
@pytest.mark.parametrize(
    ("command", "name", "column"),
    [
        (["ghostwriting", "sheets"], "annotations.csv", "fluency"),
        (["survey", "sheets", "--survey", "experts"], "R1.csv", "score"),
    ],
    ids=["ghostwriting", "survey"],
)
def test_a_file_that_is_not_a_readable_template_is_never_overwritten(
    run: Path, tmp_path: Path, command: list[str], name: str, column: str, saved: object
) -> None:
    assert callable(saved)
    args = [*command, "--run", str(run), "--out", str(tmp_path)]
    runner = CliRunner()
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    template = tmp_path / name
    data = saved(template, column, "3")
    template.write_bytes(data)
    again = runner.invoke(app, args, env=WIDE)
    assert again.exit_code == 2, again.output
    assert again.stdout == ""
    assert again.stderr.startswith(f"error: {template} exists and cannot be read as a sheet ")
    assert "nothing was written" in again.stderr and "--out" in again.stderr
    assert template.read_bytes() == data
    template.write_bytes(b"")  # an empty file holds nothing: written again
    assert runner.invoke(app, args).exit_code == 0
    assert template.read_bytes().startswith(b"page," if name == "R1.csv" else b"sheet_id,")
