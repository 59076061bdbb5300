"""Models behind OpenAI-compatible servers of one's own (`vllm serve`, llama.cpp, Ollama), run
end to end through the CLI against the local wire-protocol server."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

MODEL_FILE = """\
name: {name}
provider: openai-compatible
model: {model}
base_url: {base_url}
api_key_env: LOCAL_SERVER_KEY
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user folder of generator files, read by every command of the test."""
    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(mine))
    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)
    monkeypatch.setenv("LOCAL_SERVER_KEY", "EMPTY")
    return mine


def write_model(folder: Path, name: str, model: str, base_url: str) -> None:
    text = MODEL_FILE.format(name=name, model=model, base_url=base_url)
    (folder / f"{name}.yaml").write_text(text)


def test_a_base_url_without_v1_stops_the_model_with_a_hint(folder: Path, tmp_path: Path) -> None:
    """`base_url: http://127.0.0.1:8000` (no `/v1`, where vLLM and Ollama answer) made one
    call per job, each stored as an error (vLLM: `HTTP 404: {'detail': 'Not Found'}`) with no word
    on the cause; the model now stops at the first 404, its jobs left pending, and says to add /v1."""
    with OpenAIServer() as server:
        write_model(folder, "no-v1", "llama3:8b", server.origin)
        run = tmp_path / "run"
        args = ["generate", "--run", str(run), "--models", "no-v1", "--limit", "3"]
        result = CliRunner().invoke(app, [*args, "--no-progress"], terminal_width=400)
        assert result.exit_code == 1, result.output
        hint = "OpenAI-compatible servers such as vllm serve and Ollama answer under /v1"
        assert f"{hint}, e.g. {server.origin}/v1" in result.output
        assert {r.path for r in server.requests} == {"/chat/completions"}
        with RunStore(run, create=False) as store:
            assert store.count("generations", "author = 'no-v1'") == 0  # left pending
        write_model(folder, "no-v1", "llama3:8b", server.origin + "/v1")
        fixed = CliRunner().invoke(app, [*args, "--no-progress"])
        assert fixed.exit_code == 0, fixed.output
    with RunStore(run, create=False) as store:
        assert store.count("generations", "author = 'no-v1' AND status = 'ok'") == 3


def test_the_local_judge_pointed_at_another_model_says_its_answers_are_kept(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`judge --judge local-openai` again with another POEMETRIC_LOCAL_MODEL said every job was
    done, asked nothing, and relabelled the first model's judgments with the second model's
    name, without a word; it now warns (and still keeps what is stored)."""
    run = tmp_path / "run"
    made = CliRunner().invoke(app, ["generate", "--run", str(run), "--limit", "2", "--no-progress"])
    assert made.exit_code == 0, made.output
    judge = ["judge", "--run", str(run), "--judge", "local-openai", "--no-progress"]
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER) as server:
        monkeypatch.setenv("POEMETRIC_LOCAL_BASE_URL", server.base_url)
        monkeypatch.setenv("POEMETRIC_LOCAL_API_KEY", "EMPTY")
        monkeypatch.setenv("POEMETRIC_LOCAL_MODEL", "llama3:8b")
        first = CliRunner().invoke(app, judge)
        assert first.exit_code == 0 and "warning" not in first.stderr, first.output
        again = CliRunner().invoke(app, judge)
        assert again.exit_code == 0 and "warning" not in again.stderr, again.output
        monkeypatch.setenv("POEMETRIC_LOCAL_MODEL", "Qwen/Qwen2.5-7B-Instruct")
        switched = CliRunner().invoke(app, judge)
        assert switched.exit_code == 0, switched.output
    assert switched.stderr.startswith(
        "warning: local-openai: this run's judge answers so far came from model 'llama3:8b'; "
        "its file now names 'Qwen/Qwen2.5-7B-Instruct'."
    )
    assert {call.body["model"] for call in server.generation_requests} == {"llama3:8b"}
