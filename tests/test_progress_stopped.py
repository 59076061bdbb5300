"""The progress bar of a model stopped at its first refusal (a wrong key) read `4/4`, as if its
jobs were done, beside `0 tok $0`: the jobs it leaves pending no longer advance the bar, which
stops where it is and says `(stopped)`. Real `generate` commands, the real openai SDK and the
local OpenAI server; the bars as a log file gets them (the last state of each)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.testing import OpenAIServer


def test_a_stopped_model_s_bar_shows_what_it_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_model: Callable[..., Path]
) -> None:
    command = ["generate", "--run", str(tmp_path / "run"), "--models", "my-gpt,markov",
               "--limit", "2", "--samples", "2"]  # fmt: skip
    with OpenAIServer(api_key="sk-right-0123456789abcdef") as server:
        user_model(
            "generators",
            "my-gpt",
            f"name: my-gpt\nprovider: openai\nmodel: gpt-4o\nbase_url: {server.base_url}\n"
            "limits:\n  max_concurrency: 1\n",
        )
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-fedcba9876543210")
        result = CliRunner().invoke(app, command, env={"COLUMNS": "100"})
    assert result.exit_code == 1, result.output
    bars = {line.split()[0]: line for line in result.output.splitlines() if " tok " in line}
    assert bars["my-gpt"].startswith("my-gpt (stopped) ") and " 0/4 " in bars["my-gpt"], bars
    assert " 4/4 " in bars["markov"] and "stopped" not in bars["markov"], bars
    assert "4 jobs left for the next run" in result.output


def test_a_log_s_progress_lines_leave_a_stopped_model_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_model: Callable[..., Path]
) -> None:
    """In a log, a stopped model was still reported as under way every few intervals, `about
    ... left` included, as long as another model ran."""
    command = ["generate", "--run", str(tmp_path / "run"), "--models", "my-gpt,markov",
               "--limit", "4", "--samples", "60"]  # fmt: skip
    with OpenAIServer(api_key="sk-right-0123456789abcdef") as server:
        user_model(
            "generators",
            "my-gpt",
            f"name: my-gpt\nprovider: openai\nmodel: gpt-4o\nbase_url: {server.base_url}\n",
        )
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-fedcba9876543210")
        env = {"COLUMNS": "100", "POEMETRIC_PROGRESS_EVERY": "0.05"}
        result = CliRunner().invoke(app, command, env=env)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("[")]
    assert any(line.split()[1] == "markov:" for line in lines), result.output  # lines were due
    assert not [line for line in lines if "(stopped)" in line], lines
    # Named only before its first answer (the refused key) came back, never as under way after.
    reported = [line for line in lines if line.split()[1].startswith("my-gpt")]
    assert not [line for line in reported if "left" in line or "0/240" not in line], lines
    assert len(reported) < len(lines) - len(reported), lines
