"""A missing run store is unusable input in every command that reads one: one `error:` line on
stderr naming the store, and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

COMMANDS = [
    ["form", "run"],
    ["analyze"],
    ["figures"],
    ["report"],
    ["export"],
    ["judge", "--judge", "gemini-2.5-pro"],
    ["judge", "reparse"],
    ["survey", "status"],
    ["ghostwriting", "metrics"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_missing_run_store_is_one_error_line_and_exit_2(
    tmp_path: Path, command: list[str]
) -> None:
    run = tmp_path / "no-such-run"
    result = CliRunner().invoke(app, [*command, "--run", str(run)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: no run store at {run / 'poemetric.sqlite'}; ")
    assert not run.exists()
