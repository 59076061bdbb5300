"""`--progress/--no-progress` on every long-running command: `form run --no-progress` (and
`form check --no-progress`) failed with "No such option", though `generate` and `demo` took it,
and `probe build` and `probe run` each spelled their own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import click
import pytest
import typer.main
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.cli.options import ProgressOption

#: Commands that run long enough to show a progress bar (or lines in a log file).
LONG_RUNNING = [
    ("generate",),
    ("demo",),
    ("judge",),
    ("judge", "recognise"),
    ("ghostwriting", "style-match"),
    ("form", "check"),
    ("form", "run"),
    ("probe", "build"),
    ("probe", "run"),
]
#: A progress line in a log file (`poemetric.progress_lines`).
LINE = re.compile(r"^\[\d\d:\d\d:\d\d\] form check: ", re.MULTILINE)


def _command(path: tuple[str, ...]) -> click.Command:
    command: Any = typer.main.get_command(app)
    for name in path:  # groups are loaded lazily (not click.Group instances)
        command = command.get_command(click.Context(command), name)
        assert command is not None, path
    return cast(click.Command, command)


@pytest.mark.parametrize("path", LONG_RUNNING, ids=" ".join)
def test_every_long_running_command_takes_the_shared_progress_option(
    path: tuple[str, ...],
) -> None:
    params = [p for p in _command(path).params if "--progress" in p.opts]
    assert len(params) == 1, path
    (param,) = params
    assert param.secondary_opts == ["--no-progress"] and param.default is True
    assert getattr(param, "help", None) == ProgressOption.help  # one definition, one wording


def test_form_run_and_form_check_take_no_progress(tmp_path: Path) -> None:
    run = tmp_path / "run"
    made = CliRunner().invoke(
        app, ["generate", "--run", str(run), "--models", "markov", "--limit", "8", "--no-progress"]
    )
    assert made.exit_code == 0, made.output
    # Where stderr is no terminal (here), a line every POEMETRIC_PROGRESS_EVERY seconds.
    env = {"POEMETRIC_PROGRESS_EVERY": "0.001"}
    form_run = ["form", "run", "--run", str(run), "--jobs", "1", "--force"]
    shown = CliRunner().invoke(app, form_run, env=env)
    assert shown.exit_code == 0, shown.output
    assert LINE.search(shown.stderr), shown.stderr  # the check is slow enough to show a line
    quiet = CliRunner().invoke(app, [*form_run, "--no-progress"], env=env)
    assert quiet.exit_code == 0, quiet.output  # was 2: "No such option: --no-progress"
    assert quiet.stderr == "" and "checked 16" in quiet.stdout
    out = tmp_path / "checks.jsonl"
    demo = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "poems.csv"
    form_check = ["form", "check", str(demo), "-o", str(out), "-j", "1"]
    shown = CliRunner().invoke(app, form_check, env=env)
    assert shown.exit_code == 0 and LINE.search(shown.stderr), shown.output
    quiet = CliRunner().invoke(app, [*form_check, "--no-progress"], env=env)
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == "" and "16 rows" in quiet.stdout
