"""Seconds read from environment variables (`POEMETRIC_STOP_GRACE`, `POEMETRIC_PROGRESS_EVERY`):
a bad value is an error naming the variable, not the default without a word."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.env_settings import SettingError, flag_from_text, number_from_text, seconds_from_env
from poemetric.progress_lines import EVERY_ENV, interval_s
from poemetric.runner.stopping import GRACE_ENV, grace_s

VARIABLE = "POEMETRIC_TEST_SECONDS"


@pytest.mark.parametrize(
    ("value", "expected"), [(None, 7.0), ("", 7.0), ("  ", 7.0), ("0", 0.0), (" 2.5 ", 2.5)]
)
def test_seconds_and_the_default(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: float
) -> None:
    if value is None:
        monkeypatch.delenv(VARIABLE, raising=False)
    else:
        monkeypatch.setenv(VARIABLE, value)
    assert seconds_from_env(VARIABLE, 7.0) == expected


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf", "20s"])
def test_a_bad_value_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(VARIABLE, value)
    with pytest.raises(SettingError) as caught:
        seconds_from_env(VARIABLE, 7.0)
    assert str(caught.value) == (
        f"{VARIABLE}={value!r} is not a number of seconds (0 or more; unset, it is 7)"
    )


@pytest.mark.parametrize(("variable", "read"), [(GRACE_ENV, grace_s), (EVERY_ENV, interval_s)])
def test_both_settings_refuse_a_bad_value(
    monkeypatch: pytest.MonkeyPatch, variable: str, read: Callable[[], float]
) -> None:
    monkeypatch.setenv(variable, "3")
    assert read() == 3.0
    monkeypatch.setenv(variable, "three")
    with pytest.raises(SettingError, match=variable):
        read()


@pytest.mark.parametrize("variable", [GRACE_ENV, EVERY_ENV])
def test_the_command_line_says_which_variable_is_wrong(tmp_path: Path, variable: str) -> None:
    """A bad value was taken for the default without a word; now the command stops before any
    call, exit status 2 (unusable input), with one error line and no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "poemetric", "generate", "--run", str(tmp_path / "run"),
         "--models", "markov", "--limit", "1"],
        env={**os.environ, variable: "-5"}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: {variable}='-5' is not a number of seconds (0 or more; unset, it is "
        f"{20 if variable == GRACE_ENV else 60})"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", True), ("TRUE", True), (" yes ", True), ("On", True), ("0", False), ("false", False),
     ("No", False), ("off", False), ("y", True), ("T", True), ("n", False), (" F ", False)],
)  # fmt: skip
def test_yes_no_values(text: str, expected: bool) -> None:
    assert flag_from_text("POEMETRIC_X", text) is expected


@pytest.mark.parametrize("text", ["maybe", "2", "-1", "enabled"])
def test_a_bad_yes_no_value_names_the_variable_and_the_values(text: str) -> None:
    with pytest.raises(SettingError) as caught:
        flag_from_text("POEMETRIC_X", text)
    assert str(caught.value) == (
        f"POEMETRIC_X={text!r} is not a yes/no value (yes: 1, true, yes, on, y, t; no: 0, false, no, "
        "off, n, f)"
    )


def test_numbers() -> None:
    assert number_from_text("N", " 4 ", int) == 4
    assert number_from_text("N", "2.5", float) == 2.5
    whole, number = "a whole number (e.g. 4)", "a number (e.g. 2.5)"
    for text, kind, what in [("4.5", int, whole), ("four", int, whole), ("nan", float, number)]:
        with pytest.raises(SettingError, match=rf"^N='{text}' is not {re.escape(what)}$"):
            number_from_text("N", text, kind)


def test_demo_local_from_the_environment_is_one_error_line() -> None:
    """`POEMETRIC_DEMO_LOCAL=maybe poemetric demo` was Typer's error box ("Input should be a
    valid boolean, unable to interpret input"), naming neither the values nor the cause."""
    result = CliRunner().invoke(app, ["demo"], env={"POEMETRIC_DEMO_LOCAL": "maybe"})
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "error: POEMETRIC_DEMO_LOCAL='maybe' is not a yes/no value (yes: 1, true, yes, on, y, t; "
        "no: 0, false, no, off, n, f)"
    ]


def _echo_app() -> typer.Typer:
    """An app of one command whose yes/no and number options each have a variable (checked
    since poemetric.cli.app was imported, as every option's is)."""
    echo = typer.Typer()

    @echo.command()
    def show(
        flag: bool = typer.Option(False, "--flag/--no-flag", envvar="T_FLAG"),
        count: int = typer.Option(3, "--count", envvar="T_COUNT"),
        ratio: float = typer.Option(0.5, "--ratio", envvar="T_RATIO"),
    ) -> None:
        print(flag, count, ratio)

    return echo


@pytest.mark.parametrize(
    ("env", "shown"),
    [({}, "False 3 0.5"), ({"T_FLAG": "Yes", "T_COUNT": " 7 ", "T_RATIO": "0.25"}, "True 7 0.25"),
     ({"T_FLAG": "off"}, "False 3 0.5"), ({"T_FLAG": "  "}, "False 3 0.5"),
     # click's own short words, which these variables took before they were checked here
     ({"T_FLAG": "y"}, "True 3 0.5"), ({"T_FLAG": "N"}, "False 3 0.5")],
)  # fmt: skip
def test_every_options_variable_takes_the_values_it_names(env: dict[str, str], shown: str) -> None:
    result = CliRunner().invoke(_echo_app(), [], env=env)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == shown


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [("T_FLAG", "sure", "is not a yes/no value"), ("T_COUNT", "lots", "is not a whole number"),
     ("T_RATIO", "inf", "is not a number")],
)  # fmt: skip
def test_every_options_bad_variable_is_one_error_line(
    variable: str, value: str, message: str
) -> None:
    result = CliRunner().invoke(_echo_app(), [], env={variable: value})
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {variable}={value!r} {message}")
