"""A model asked for in the other roster (docs/models.md): a judge's file put in a generators
folder, or a judge named by `generate --models`, is said to be one, with its file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

JUDGE_FILE = """\
name: my-judge
provider: openai-compatible
model: my/judge
base_url: http://127.0.0.1:9/v1
api_key_env: false
"""


def test_a_judge_file_in_a_generators_folder_is_said_to_be_a_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`judge --judge my-judge` with the file in POEMETRIC_GENERATORS_DIR was only "unknown
    judge", with no word that the file was found, as a generator."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "my-judge.yaml").write_text(JUDGE_FILE, encoding="utf-8")
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(mine))
    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["judge", "--run", str(run), "--judge", "my-judge"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert (
        f"unknown judge or group 'my-judge' ('my-judge' is a generator, in "
        f"{mine / 'my-judge.yaml'}; a judge's file goes in a judges folder)" in said
    ), said
    assert not run.exists()


def test_a_judge_named_as_a_generator_is_said_to_be_a_judge(tmp_path: Path) -> None:
    """`generate --models local-openai` suggested the group 'openai' instead."""
    result = CliRunner().invoke(
        app, ["generate", "--run", str(tmp_path / "run"), "--models", "local-openai"]
    )
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert "('local-openai' is a judge, in " in said and "did you mean" not in said, said


def test_a_judge_file_given_by_its_path_names_its_folder_and_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--judge my-judge.yaml` (a copy of local-openai.yaml, given as `--template` takes a file)
    was "unknown judge or group 'my-judge.yaml'" with no way to use the file. Following the hint
    now works."""
    mine = tmp_path / "mine"
    mine.mkdir()
    judge_file = mine / "my-judge.yaml"
    judge_file.write_text(JUDGE_FILE, encoding="utf-8")
    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)
    monkeypatch.delenv("POEMETRIC_GENERATORS_DIR", raising=False)
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["judge", "--run", str(run), "--judge", str(judge_file)])
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert (
        f"unknown judge or group '{judge_file}' ('{judge_file}' is a file; --judge takes names: "
        f"set POEMETRIC_JUDGES_DIR={mine}, the file's folder, and give --judge my-judge)" in said
    ), said
    missing = CliRunner().invoke(app, ["generate", "--run", str(run), "--models", "nope.yaml"])
    assert "(--models takes names, not files: 'nope' for nope.yaml)" in " ".join(
        missing.stderr.split()
    ), missing.output
    monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(mine))
    known = CliRunner().invoke(app, ["models", "--judges"], env={"COLUMNS": "400"})
    assert "my-judge" in known.output, known.output
