"""`--progress/--no-progress` on every long-running command: `form run --no-progress` (and
`form check --no-progress`) failed with "No such option", though `generate` and `demo` took it,
and `probe build` and `probe run` each spelled their own; `analyze` and `ghostwriting metrics`
showed no progress at all."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any, cast

import click
import pytest
import typer.main
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
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
    ("analyze",),
    ("ghostwriting", "metrics"),
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


#: A progress line of `analyze` or `ghostwriting metrics`: the step, then how far it is.
STEP_LINE = re.compile(r"^\[\d\d:\d\d:\d\d\] (?P<step>[^:]+): \d+/(?P<total>[\d,]+) ", re.MULTILINE)


def test_analyze_and_ghostwriting_metrics_show_their_slow_steps(tmp_path: Path) -> None:
    """`analyze` and `ghostwriting metrics` said nothing for the seconds (at the paper's 6,090
    poems) of the ghostwriting measures, nor `analyze --ci bootstrap` for the minute of its score
    intervals; in a log file they now print a line per unfinished step, on stderr."""
    env = {"POEMETRIC_PROGRESS_EVERY": "0.001"}
    first = tmp_path / "run"  # 3 forms x 40 poems x 3 authors: long enough to show a line
    build_synthetic_run(first, poems_per_form=40, judges=()).close()
    # Each command measures the poems of a run of its own: the second on one run would read the
    # measures the first kept in the store (tests/test_ghostwriting_cache.py), too fast to show.
    second = tmp_path / "copy"
    shutil.copytree(first, second)
    for command, run in ((["analyze"], first), (["ghostwriting", "metrics"], second)):
        shown = CliRunner().invoke(app, [*command, "--run", str(run)], env=env)
        assert shown.exit_code == 0, shown.output
        steps = {m["step"]: m["total"] for m in STEP_LINE.finditer(shown.stderr)}
        assert steps == {"ghostwriting measures": "360"}, shown.stderr
        assert "wrote " in shown.stdout and "measures:" not in shown.stdout  # stdout: tables
        quiet = CliRunner().invoke(app, [*command, "--run", str(run), "--no-progress"], env=env)
        assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output
    judged = tmp_path / "judged"  # one judge x 3 authors: 3 groups to bootstrap
    build_synthetic_run(judged, poems_per_form=1).close()
    analyze = ["analyze", "--run", str(judged), "--bootstrap", "0"]
    shown = CliRunner().invoke(app, [*analyze, "--ci", "bootstrap"], env=env)
    assert shown.exit_code == 0, shown.output
    steps = {m["step"]: m["total"] for m in STEP_LINE.finditer(shown.stderr)}
    assert steps.get("judge scores, bootstrap CIs") == "3", shown.stderr
    fast = CliRunner().invoke(app, analyze, env=env)  # t intervals take milliseconds: no step
    assert fast.exit_code == 0, fast.output
    assert "bootstrap CIs" not in fast.stderr
