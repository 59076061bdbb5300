"""Under make (POEMETRIC_MAKE=1, set by the Makefile) the notes of `analyze` and `figures` name
make's targets: they said "(run `poemetric judge`)", a command not on the PATH of a user who only
runs make (the venv is not activated), and without the run, so it went to `runs/default`."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app


@pytest.fixture(scope="module")
def unjudged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with poems, neither form-checked nor judged."""
    run = tmp_path_factory.mktemp("hints") / "my runs" / "demo"
    result = CliRunner().invoke(
        app,
        ["generate", "--run", str(run), "--dataset", "demo", "--models", "markov", "--limit", "2",
         "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return run


@pytest.mark.parametrize("command", ["analyze", "figures"])
def test_notes_under_make_name_make_targets(unjudged: Path, tmp_path: Path, command: str) -> None:
    args = [command, "--run", str(unjudged)]
    if command == "figures":
        args += ["--out", str(tmp_path / "figures")]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": "1"})
    assert result.exit_code == 0, result.output
    run = shlex.quote(str(unjudged))
    assert f"(run `make judge RUN={run} JUDGE=NAME`)" in result.output
    assert f"(run `make form RUN={run}`)" in result.output
    assert "`poemetric " not in result.output
    plain = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": ""})
    assert f"(run `poemetric judge --run {run}`)" in plain.output
    assert f"(run `poemetric form run --run {run}`)" in plain.output
