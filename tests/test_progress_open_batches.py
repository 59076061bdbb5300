"""A run without --batch leaves the jobs of a batch still open to that batch
(`open_batches.outside_open_batches`), but its model's bar kept them in its total: it read `0/2`,
its clock running, and a log reported the model as under way (`0/2 (0%)`) every few intervals
as long as another model ran, though it had nothing left to do. The bar's total is now the jobs
this command calls. Real `generate` commands, the real openai SDK and the local OpenAI server."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.testing.servers import ChatCall, Fault, OpenAIServer


def slow_for_slow_gpt(call: ChatCall) -> str:
    if call.model == "slow-model":
        time.sleep(0.1)  # the other model runs while the log's lines are due
    return f"Echo: {call.prompt}"


def test_jobs_left_to_an_open_batch_are_not_counted_as_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_model: Callable[..., Path]
) -> None:
    run = str(tmp_path / "run")
    faults = [None, *[Fault.server_error(502)] * 2]  # submitted; then its status polls fail
    with OpenAIServer(
        slow_for_slow_gpt, api_key="sk-right-0123456789abcdef", batch_faults=faults
    ) as server:
        user_model(
            "generators",
            "my-gpt",
            f"name: my-gpt\nprovider: openai\nmodel: gpt-4o\nbase_url: {server.base_url}\n"
            "limits:\n  max_retries: 1\n",
        )
        user_model(
            "generators",
            "slow-gpt",
            f"name: slow-gpt\nprovider: openai\nmodel: slow-model\n"
            f"base_url: {server.base_url}\nlimits:\n  max_concurrency: 1\n",
        )
        monkeypatch.setenv("OPENAI_API_KEY", "sk-right-0123456789abcdef")
        first = ["generate", "--run", run, "--models", "my-gpt", "--limit", "2", "--batch"]
        submitted = CliRunner().invoke(app, first, env={"COLUMNS": "100"})
        assert submitted.exit_code == 1, submitted.output
        command = ["generate", "--run", run, "--models", "my-gpt,slow-gpt", "--limit", "2"]
        env = {"COLUMNS": "100", "POEMETRIC_PROGRESS_EVERY": "0.05"}
        result = CliRunner().invoke(app, command, env=env)
        called = [r.body["model"] for r in server.generation_requests]
        assert called == ["slow-model"] * 2, called  # my-gpt's jobs were left to the batch
    assert "left to it, not called again" in " ".join(result.output.split()), result.output
    lines = [line for line in result.output.splitlines() if line.startswith("[")]
    assert any(line.split()[1] == "slow-gpt:" for line in lines), result.output  # lines were due
    assert not [line for line in lines if "my-gpt" in line], lines
