"""Seconds read from environment variables (`POEMETRIC_STOP_GRACE`, `POEMETRIC_PROGRESS_EVERY`):
a bad value is an error naming the variable, not the default without a word."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from poemetric.env_settings import SettingError, seconds_from_env
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
