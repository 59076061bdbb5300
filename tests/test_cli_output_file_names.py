"""A file's output option given a folder: `form check ... -o outdir/` wrote a file named
`outdir` (the trailing slash is lost once the name is a Path), with exit status 0. Every command
whose output option is a file (form check, judge parse, probe build, probe run, report) refuses
a name ending in / and an existing folder at once (exit 2), naming a file in it to give instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import write_jsonl

LIMERICK = (
    "A baker who lived by the quay\nMade bread that was shaped like a tree\nHe iced every bough\n"
    "With a pink sugar cow\nAnd sold it for tuppence and tea"
)

#: The option is named as typed (`-o outdir/` was answered "--output outdir/: ...").
COMMANDS = [
    (["form", "check", "poems.jsonl", "-o"], "-o", "checks.jsonl"),
    (["judge", "parse", "answers.jsonl", "--output"], "--output", "parsed.jsonl"),
    (["probe", "build", "demo", "-t", "synonym", "-o"], "-o", "pairs.jsonl"),
    (["probe", "run", "pairs.jsonl", "--out"], "--out", "scores.jsonl"),
    (["report", "--run", "run", "-o"], "-o", "index.html"),
]


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The commands' inputs, in a fresh current folder."""
    (tmp_path / "poems.jsonl").write_text(json.dumps({"text": LIMERICK, "form": "limerick"}) + "\n")
    (tmp_path / "answers.jsonl").write_text(json.dumps({"id": "a", "response": "x"}) + "\n")
    source = SourcePoem("p", LIMERICK, "AABBA")
    write_jsonl(build_pairs([source], ["delete_1_nonrhyming"], seed=0), tmp_path / "pairs.jsonl")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("args", "option", "name"), COMMANDS)
def test_a_name_ending_in_a_slash_is_refused(
    inputs: Path, args: list[str], option: str, name: str
) -> None:
    result = CliRunner().invoke(app, [*args, "outdir/"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {option} outdir/: names a folder (it ends in /); give a file name, e.g. "
        f"outdir/{name}\n"
    )
    assert not (inputs / "outdir").exists()  # neither a file nor a folder named outdir


@pytest.mark.parametrize(("args", "option", "name"), COMMANDS)
def test_an_existing_folder_is_refused(
    inputs: Path, args: list[str], option: str, name: str
) -> None:
    (inputs / "outdir").mkdir()
    result = CliRunner().invoke(app, [*args, "outdir"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert (
        result.stderr
        == f"error: {option} outdir: is a folder; give a file name, e.g. outdir/{name}\n"
    )
    assert list((inputs / "outdir").iterdir()) == []


def test_a_file_name_is_written_as_before(inputs: Path) -> None:
    result = CliRunner().invoke(app, ["form", "check", "poems.jsonl", "-o", "out/checks.jsonl"])
    assert result.exit_code == 0, result.output
    assert json.loads((inputs / "out" / "checks.jsonl").read_text())["passed"] is True


def test_the_help_says_a_folder_is_refused() -> None:
    result = CliRunner().invoke(app, ["form", "check", "--help"], env={"COLUMNS": "200"})
    assert "A folder (one that exists, or a name ending in /) is refused." in result.output
