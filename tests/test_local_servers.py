"""Models behind OpenAI-compatible servers of one's own (`vllm serve`, llama.cpp, Ollama), run
end to end through the CLI against the local wire-protocol server."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.cli.judging import local_judge_commands
from poemetric.providers.base import ModelSpec
from poemetric.providers.remote_common import NO_KEY
from poemetric.redaction import COMMON_SECRET_ENV
from poemetric.roster import RosterFileError
from poemetric.roster.model_file import load_model_file
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


def test_a_base_url_with_the_endpoint_path_says_the_sdk_adds_it(
    folder: Path, tmp_path: Path
) -> None:
    """`base_url: .../v1/chat/completions` (the endpoint's URL, pasted from a provider's docs)
    was reported as a model the provider does not know; the 404 now names the path to drop."""
    with OpenAIServer() as server:
        write_model(folder, "pasted", "llama3:8b", server.base_url + "/chat/completions/")
        run = tmp_path / "run"
        args = ["generate", "--run", str(run), "--models", "pasted", "--limit", "2"]
        result = CliRunner().invoke(app, [*args, "--no-progress"], terminal_width=400)
        assert result.exit_code == 1, result.output
        said = " ".join(result.output.split())
        assert (
            f"ends in /chat/completions, which the SDK adds to it itself: write base_url: "
            f"{server.base_url}" in said
        ), said
        assert "knows no model" not in said
    with RunStore(run, create=False) as store:
        assert store.count("generations", "author = 'pasted'") == 0  # left pending


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
        # the model id of the stored answers, as the server reported it
        "warning: local-openai: this run's judge answers so far came from model "
        "'llama3:8b-served'; its file now names 'Qwen/Qwen2.5-7B-Instruct'."
    )
    assert {call.body["model"] for call in server.generation_requests} == {"llama3:8b"}


KEYLESS_FILE = """\
name: keyless
provider: openai-compatible
model: llama3:8b
base_url: {base_url}
api_key_env: {key}
"""
#: A key of the user's own, for another service: never sent to a server that checks none.
USERS_OPENAI_KEY = "sk-proj-Users0wnRealLookingKey0123456789abcdefXYZ"


def files_text(folder: Path) -> str:
    """Every file under `folder` (the run store, its logs), as text."""
    return "\n".join(
        path.read_bytes().decode(errors="replace") for path in folder.rglob("*") if path.is_file()
    )


@pytest.mark.parametrize("openai_key_set", [False, True], ids=["no-key-set", "openai-key-set"])
def test_a_model_file_saying_no_key_runs_with_no_variable_set(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_key_set: bool
) -> None:
    """A local server that checks no key (vllm serve without --api-key, llama.cpp, Ollama) still
    needed a variable exported with a dummy value; `api_key_env: false` now runs with none set,
    the SDK sending a placeholder, never a key of the user's (OPENAI_API_KEY) to that server."""
    for variable in COMMON_SECRET_ENV:
        monkeypatch.delenv(variable, raising=False)
    if openai_key_set:
        monkeypatch.setenv("OPENAI_API_KEY", USERS_OPENAI_KEY)
    run = tmp_path / "run"
    with OpenAIServer() as server:
        text = KEYLESS_FILE.format(base_url=server.base_url, key="false")
        (folder / "keyless.yaml").write_text(text)
        listed = CliRunner().invoke(app, ["models"], terminal_width=250)
        assert listed.exit_code == 0 and "unusable" not in listed.output, listed.output
        shown = CliRunner().invoke(app, ["models", "show", "keyless"])
        assert "\napi_key_env: false\n" in shown.output, shown.output
        args = ["generate", "--run", str(run), "--models", "keyless", "--limit", "2"]
        result = CliRunner().invoke(app, [*args, "--no-progress"], terminal_width=250)
        assert result.exit_code == 0, result.output
        assert len(server.generation_requests) == 2
        assert {r.headers.get("authorization") for r in server.requests} == {f"Bearer {NO_KEY}"}
    with RunStore(run, create=False) as store:
        assert store.count("generations", "author = 'keyless' AND status = 'ok'") == 2
        dump = "\n".join(store.conn.iterdump())
    stored = files_text(run) + dump + result.output
    assert USERS_OPENAI_KEY[8:24] not in stored and NO_KEY not in stored
    assert "Bearer" not in stored and "sk-" not in stored


def test_a_keyless_model_whose_server_wants_a_key_stops_with_a_hint(
    folder: Path, tmp_path: Path
) -> None:
    with OpenAIServer(api_key="local-secret") as server:
        text = KEYLESS_FILE.format(base_url=server.base_url, key="false")
        (folder / "keyless.yaml").write_text(text)
        args = ["generate", "--run", str(tmp_path / "run"), "--models", "keyless", "--limit", "2"]
        result = CliRunner().invoke(app, [*args, "--no-progress"], terminal_width=400)
        assert result.exit_code == 1, result.output
        assert {r.status for r in server.requests} == {401}
    assert (
        "keyless: authentication failed (HTTP 401): the server wants a key, but the model file "
        "says `api_key_env: false`: name the variable that holds it"
    ) in result.output


@pytest.mark.parametrize("key", [None, "KEYLESS_KEY"], ids=["no-api-key-env", "unset-variable"])
def test_a_local_server_without_no_key_said_still_needs_a_key(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str | None
) -> None:
    """Only `api_key_env: false` removes the key: a file that names no variable, or one that is
    not set, is refused before any call, even for a server on this machine, and says how."""
    monkeypatch.delenv("KEYLESS_KEY", raising=False)
    with OpenAIServer() as server:
        text = KEYLESS_FILE.format(base_url=server.base_url, key=key)
        if key is None:
            text = text.replace("api_key_env: None\n", "")
        (folder / "keyless.yaml").write_text(text)
        args = ["generate", "--run", str(tmp_path / "run"), "--models", "keyless", "--limit", "1"]
        result = CliRunner().invoke(app, [*args, "--no-progress"], terminal_width=400)
        # A file naming no variable is unusable as soon as the roster reads it (exit 2, before
        # the run is prepared); a variable that is not set is refused at the run's preflight.
        assert result.exit_code == (2 if key is None else 1), result.output
        assert server.requests == []
    output = " ".join(result.output.split())
    if key is None:
        assert "api_key_env: missing" in output and "false: no key" in output
    else:
        assert "needs an API key" in output
        assert "(`api_key_env: false` for a server that checks no key)" in output


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ('"false"', "api_key_env: 'false' would be read as a variable's name; for a server"),
        (
            "none",
            "'none' would be read as a variable's name; for a server that checks no key "
            "write `api_key_env: false` (unquoted)",
        ),
        ("true", "must be the name of the environment variable holding the key, or false"),
    ],
)
def test_a_no_key_meant_but_mistyped_is_a_file_error(
    tmp_path: Path, value: str, reason: str
) -> None:
    path = tmp_path / "keyless.yaml"
    path.write_text(KEYLESS_FILE.format(base_url="http://127.0.0.1:8000/v1", key=value))
    with pytest.raises(RosterFileError) as raised:
        load_model_file(path)
    assert reason in str(raised.value)


def test_a_keyless_local_judge_is_served_without_a_key(tmp_path: Path) -> None:
    path = tmp_path / "keyless.yaml"
    path.write_text(KEYLESS_FILE.format(base_url="http://127.0.0.1:8000/v1", key="false"))
    spec = load_model_file(path, kind="judges")
    assert ModelSpec.model_validate(spec.model_dump(mode="json")).api_key_env is False
    commands = local_judge_commands(spec, tmp_path / "run")
    assert commands[0] == "vllm serve llama3:8b"
    assert not any("KEY" in command for command in commands)
