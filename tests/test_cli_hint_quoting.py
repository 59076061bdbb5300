"""The commands a hint prints work when copied: a run folder with a space is quoted for the
shell (`--run 'my runs/demo'`), as `make`'s hints and `batches abandon`'s already were; before,
`poemetric judge --run my runs/demo --judge ...` ran on a folder named `my`."""

from __future__ import annotations

import shlex
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

WIDE = {"COLUMNS": "400"}


def _copied(command: str, output: str) -> list[str]:
    """The words of the first line of `output` that holds `command`, from `command` to the
    closing backquote (or the line's end), as the shell splits them."""
    line = next(line for line in output.splitlines() if command in line)
    return shlex.split(line[line.index(command) :].split("`")[0])[:5]


def test_hints_quote_a_run_folder_with_a_space(tmp_path: Path) -> None:
    run = tmp_path / "my runs" / "demo"
    demo = CliRunner().invoke(
        app, ["demo", "--run", str(run), "--limit", "2", "--no-progress"], env=WIDE
    )
    assert demo.exit_code == 0, demo.output
    judge = _copied("poemetric judge --run", demo.output)
    assert judge == ["poemetric", "judge", "--run", str(run), "--judge"]
    export = _copied("poemetric export --run", demo.output)
    assert export == ["poemetric", "export", "--run", str(run), "--format"]

    no_judge = CliRunner().invoke(
        app, ["analyze", "--run", str(run), "--judge", "gpt-4o"], env=WIDE
    )
    assert no_judge.exit_code == 2
    assert _copied("poemetric judge --run", no_judge.stderr)[3] == str(run)

    missing = tmp_path / "my runs" / "none"
    result = CliRunner().invoke(app, ["analyze", "--run", str(missing)], env=WIDE)
    assert result.exit_code == 2
    assert _copied("poemetric generate --run", result.stderr)[3] == str(missing)

    empty = tmp_path / "my runs" / "empty"
    RunStore(empty).close()
    result = CliRunner().invoke(app, ["judge", "--run", str(empty), "--judge", "gpt-4o"], env=WIDE)
    assert result.exit_code == 2, result.output
    assert _copied("poemetric generate --run", result.stderr)[3] == str(empty)
