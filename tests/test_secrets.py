"""No API key, nor a recognisable piece of one, in anything POEMetric stores or prints: the real
SDKs against local servers that send the key back, as some proxies and APIs do."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_provider_plugins import Installer, install
from test_runner_support import FAST, prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.providers.base import ModelSpec
from poemetric.redaction import Redactor, url_to_copy
from poemetric.store import RunStore
from poemetric.testing.exchange import HttpAnswer
from poemetric.testing.servers import ChatCall, GeminiServer, OpenAIServer, RecordedRequest

REPO = Path(__file__).resolve().parent.parent
KEY_ENV = "POEMETRIC_SECRETS_TEST_KEY"
#: First 8 characters "pm-audit", last 4 "v4Hb": neither occurs in a store or an output otherwise.
KEY = "pm-audit-Zq8Xw3Lk5Rt7Yp2Nv4Hb"
PIECES = (KEY, KEY[:8], KEY[8:16], KEY[-8:], KEY[-4:])

__all__ = ["install"]  # fixture


def leaks(text: str | bytes) -> list[str]:
    """The pieces of KEY found in `text` (a file's bytes, a command's output)."""
    data = text.encode() if isinstance(text, str) else text
    return [piece for piece in PIECES if piece.encode() in data]


def folder_leaks(folder: Path) -> dict[str, list[str]]:
    """Pieces of KEY in any file under `folder` (SQLite store and WAL read as bytes)."""
    found = {str(p): leaks(p.read_bytes()) for p in folder.rglob("*") if p.is_file()}
    return {path: pieces for path, pieces in found.items() if pieces}


def model_file(
    user_model: Callable[..., Path], name: str, provider: str, base_url: str, **fields: str
) -> None:
    lines = [f"name: {name}", f"provider: {provider}", "model: m", f"base_url: {base_url}"]
    lines += [f"{field}: {value}" for field, value in fields.items()]
    lines += ["limits:", "  max_retries: 0", "  max_concurrency: 1"]
    user_model("generators", name, "\n".join(lines) + "\n")


def generate(run: Path, models: str, *extra: str) -> str:
    command = ["generate", "--run", str(run), "--models", models, "--limit", "2", "--no-progress"]
    result = CliRunner().invoke(app, [*command, *extra], env={"COLUMNS": "300"})
    return result.output


def test_the_redactor_removes_a_key_its_pieces_and_its_masked_forms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY + "\r\n")  # a .env file with Windows line ends
    redact = Redactor([KEY_ENV])
    assert redact(f"key={KEY}&x=1") == "key=***&x=1"
    assert redact(f"Incorrect API key provided: {KEY[:8]}{'*' * 20}{KEY[-4:]}.") == (
        "Incorrect API key provided: ***."
    )
    assert redact(f"cut at 300 characters: {KEY[:12]}") == "cut at 300 characters: ***"
    truncated = f"[input_value='token {KEY[:14]}...stream, rotate it', input_type=str]"
    assert redact(truncated) == "[input_value='token ***, rotate it', input_type=str]"
    # A text without the key keeps its words, numbers and asterisks.
    plain = "Field required; 12345678 tokens; **** ; Response... sk-test"
    assert redact(plain) == plain
    monkeypatch.setenv(KEY_ENV, "sk-no-key-required")  # a local server's dummy key
    assert Redactor([KEY_ENV])("Field required") == "Field required"


class MaskedKeyServer(OpenAIServer):
    """Answers every chat request as the OpenAI API answers a wrong key, quoting its start and
    end: "Incorrect API key provided: sk-abcd****wxyz"."""

    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> Any:
        key = record.headers["authorization"].removeprefix("Bearer ")
        masked = f"{key[:8]}{'*' * 28}{key[-4:]}"
        return self.error_answer(401, f"Incorrect API key provided: {masked}. You can find ...")


def test_a_masked_key_in_an_error_is_neither_stored_nor_printed(
    tmp_path: Path, user_model: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The call log kept "Incorrect API key provided: pm-audit****...v4Hb" (the key's first 8
    and last 4 characters); only the whole key was scrubbed."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    run = tmp_path / "run"
    with MaskedKeyServer() as server:
        model_file(user_model, "gpt", "openai", server.base_url)
        output = generate(run, "gpt")
    assert "authentication failed (HTTP 401): check OPENAI_API_KEY" in output
    assert leaks(output) == [] and folder_leaks(run) == {}


class TruncatingGeminiServer(GeminiServer):
    """Answers generateContent with a 200 whose part has a string where a boolean belongs, the
    key inside it: the SDK's pydantic error quotes the string shortened ('token pm-audit-Zq...')."""

    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> Any:
        key = record.headers["x-goog-api-key"]
        thought = f"token {key} was rejected upstream, rotate it"
        body = {"candidates": [{"content": {"parts": [{"text": "x", "thought": thought}]}}]}
        return HttpAnswer.json(200, body)


def test_a_key_shortened_by_an_sdk_error_is_neither_stored_nor_printed(
    tmp_path: Path, user_model: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    run = tmp_path / "run"
    with TruncatingGeminiServer() as server:
        model_file(user_model, "gem", "google", server.base_url, api_key_env=KEY_ENV)
        output = generate(run, "gem")
    assert "malformed or truncated response body (ValidationError" in output
    assert leaks(output) == [] and folder_leaks(run) == {}


def test_a_key_set_with_surrounding_whitespace_is_redacted_from_responses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK sends the key stripped; the runner looked for the variable's value as set
    ("...v4Hb\\r" from a .env file with Windows line ends), so an echoed key was stored."""
    monkeypatch.setenv(KEY_ENV, KEY + "\r")
    store = prepared_store(tmp_path, poems=2)
    with OpenAIServer(lambda call: f"A poem\nby the proxy of {KEY}\n") as server:
        spec = ModelSpec.model_validate(
            {"name": "remote", "provider": "openai-compatible", "model": "m",
             "base_url": server.base_url, "api_key_env": KEY_ENV}
        )  # fmt: skip
        assert run_generation(store, [spec], options=FAST).models[0].ok == 2
    store.close()
    assert folder_leaks(tmp_path) == {}


#: Poem lines that the error texts' key patterns ("sk-...", "Bearer ...") would cut.
KEY_SHAPED_LINES = "Bearer thunderheads of dawn,\nthe dusk-shrouded hills wait."


def test_a_response_echoing_the_key_loses_the_key_and_keeps_its_poem_lines() -> None:
    """Once any string of a raw response held the key, every string in it went through the
    error texts' patterns: "the du*** hills", "*** of dawn"."""
    redact = Redactor(values=[KEY])
    raw = {
        "choices": [{"message": {"content": KEY_SHAPED_LINES}}],
        "echo": {"authorization": f"Bearer {KEY}", "note": f"{KEY[:12]}... (cut)"},
    }
    assert redact.response_data(raw) == {
        "choices": [{"message": {"content": KEY_SHAPED_LINES}}],
        "echo": {"authorization": "Bearer ***", "note": "***... (cut)"},
    }
    assert redact.response(f"{KEY_SHAPED_LINES}\n{KEY}") == f"{KEY_SHAPED_LINES}\n***"
    assert redact(KEY_SHAPED_LINES) == "*** of dawn,\nthe du*** hills wait."  # an error text


def test_a_stored_answer_echoing_the_key_keeps_its_key_shaped_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner redacted a stored answer that quoted the key with the error texts' patterns
    too: its poem, text and raw response lost "Bearer thunderheads" and "dusk-shrouded"."""
    monkeypatch.setenv(KEY_ENV, KEY)
    store = prepared_store(tmp_path, poems=1)
    with OpenAIServer(lambda call: f"{KEY_SHAPED_LINES}\nby the proxy of {KEY}\n") as server:
        spec = ModelSpec.model_validate(
            {"name": "remote", "provider": "openai-compatible", "model": "m",
             "base_url": server.base_url, "api_key_env": KEY_ENV}
        )  # fmt: skip
        assert run_generation(store, [spec], options=FAST).models[0].ok == 1
    (row,) = store.query(
        "SELECT poem, response_text, raw_response FROM generations WHERE author = 'remote'"
    )
    store.close()
    assert row["poem"].startswith(KEY_SHAPED_LINES)
    assert row["response_text"] == f"{KEY_SHAPED_LINES}\nby the proxy of ***\n"
    assert json.dumps(KEY_SHAPED_LINES)[1:-1] in row["raw_response"]
    assert folder_leaks(tmp_path) == {}


class EchoingBatchServer(GeminiServer):
    """Refuses batch jobs with a 500 that quotes the request's key header."""

    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> Any:
        if record.path.endswith(":batchGenerateContent"):
            key = record.headers["x-goog-api-key"]
            return self.error_answer(500, f"upstream refused the batch for key {key}")
        return super().route(record, query, raw)


def test_a_failed_batch_submission_prints_one_line_without_the_key(
    tmp_path: Path, user_model: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed batch submission ended the command with a traceback; it now stops the model
    with one line, which quotes the provider's answer: scrubbed."""
    monkeypatch.setenv(KEY_ENV, KEY)
    run = tmp_path / "run"
    with EchoingBatchServer() as server:
        model_file(user_model, "gem", "google", server.base_url, api_key_env=KEY_ENV)
        output = generate(run, "gem", "--batch")
    assert (
        "gem: batch submission failed: google: HTTP 500: INTERNAL: upstream refused the batch "
        "for key *** (the provider may have accepted the batch all the same"
    ) in output  # a 500 may come after the batch was created
    assert output.rstrip().endswith("; 2 jobs left for the next run")
    assert "Traceback" not in output
    assert leaks(output) == [] and folder_leaks(run) == {}


#: A third-party adapter with three bugs, each quoting the key it read: its batch submission and
#: its `aclose` raise plain exceptions (no ProviderError), and `generate` lets through a library's
#: timeout that derives from BaseException (as gevent's `Timeout` does, so that `except
#: Exception` cannot swallow it). The first stops its model, the second is a warning; the runner
#: lets the third through, as it lets cancellation through: the command crashes.
CRASHING_PLUGIN = """
from poemetric.providers import Provider
from poemetric.providers.base import BatchCapable
from poemetric.providers.remote_common import resolve_api_key


class Timeout(BaseException):
    pass


class Plugin(Provider, BatchCapable):
    name = "NAME"

    async def generate(self, request):
        raise Timeout(f"no answer in time for the key {resolve_api_key(self.spec, ())}")

    async def submit_batch(self, items):
        raise KeyError(f"no batch field for the key {resolve_api_key(self.spec, ())}")

    async def batch_status(self, batch_id):
        raise NotImplementedError

    async def batch_results(self, batch_id):
        raise NotImplementedError

    async def aclose(self):
        raise KeyError(f"cannot close the client of {resolve_api_key(self.spec, ())}")
"""


def crashing(
    install: Installer, tmp_path: Path, user_model: Callable[..., Path]
) -> Callable[..., Any]:
    """`poemetric generate ...` in a process of its own, the plugin installed (an entry point)."""
    module = install("crashing", CRASHING_PLUGIN)
    bug = user_model(
        "generators", "bug", f"name: bug\nprovider: crashing\nmodel: m\napi_key_env: {KEY_ENV}\n"
    )
    env = {"POEMETRIC_GENERATORS_DIR": str(bug.parent), KEY_ENV: KEY, "COLUMNS": "300",
           "PYTHONPATH": str(tmp_path / "site" / module)}  # fmt: skip

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "poemetric", "generate", "--run", str(tmp_path / "run"),
                   "--models", "bug", "--limit", "1", "--no-progress", *args]  # fmt: skip
        return subprocess.run(
            command, cwd=REPO, env={**os.environ, **env}, capture_output=True, text=True
        )

    return run


def test_a_crash_traceback_prints_no_key(
    install: Installer, tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """A crash's traceback printed the exception as raised, with the key it quoted in clear; an
    exception deriving from BaseException alone was printed by Python itself, unscrubbed."""
    done = crashing(install, tmp_path, user_model)()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" in done.stderr
    assert "Timeout: no answer in time for the key ***" in done.stderr
    assert leaks(done.stdout + done.stderr) == [] and folder_leaks(tmp_path / "run") == {}


def test_adapter_bug_tracebacks_and_warnings_hold_no_key(
    install: Installer, tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """The tracebacks of an adapter's bugs, kept in the call log, and the warning about its
    `aclose`, hold no key either."""
    done = crashing(install, tmp_path, user_model)("--batch")
    assert done.returncode == 1, done.stdout + done.stderr  # its jobs are left pending
    assert "Traceback" not in done.stdout + done.stderr
    assert "failed in aclose with KeyError: 'cannot close the client of ***'." in done.stdout
    assert leaks(done.stdout + done.stderr) == [] and folder_leaks(tmp_path / "run") == {}
    with RunStore(tmp_path / "run") as store:
        logged = store.query("SELECT detail FROM calls WHERE outcome = 'adapter-error'")
    submit, close = (entry["detail"] for entry in logged)
    assert submit.startswith("submit_batch: Traceback") and close.startswith("aclose: Traceback")
    assert "KeyError: 'no batch field for the key ***'" in submit
    assert "KeyError: 'cannot close the client of ***'" in close


def rhyming_echo(call: ChatCall) -> str:
    """A last line that rhymes (it ends on the partner word) and quotes the key."""
    partner = re.search(r"rhyme with \u201c(.+?)\u201d", call.prompt)
    return f"The proxy sent {KEY} to {partner.group(1) if partner else 'x'}."


def test_probe_lines_written_by_an_api_model_carry_no_key(
    tmp_path: Path, user_model: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`probe build --tasks last_line --generator API-MODEL` wrote the model's answers into the
    pairs file as they came; they now go through the runner, into its run store too."""
    monkeypatch.setenv(KEY_ENV, KEY)
    pairs = tmp_path / "pairs.jsonl"
    with OpenAIServer(rhyming_echo) as server:
        model_file(user_model, "gpt", "openai-compatible", server.base_url, api_key_env=KEY_ENV)
        result = CliRunner().invoke(
            app,
            ["probe", "build", "lear-limericks", "-o", str(pairs), "--tasks", "last_line",
             "--limit", "2", "--generator", "gpt", "--attempts", "1",
             "--run", str(tmp_path / "run")],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "The proxy sent *** to" in pairs.read_text(encoding="utf-8")
    assert (tmp_path / "run" / "poemetric.sqlite").is_file()
    assert leaks(result.output) == [] and folder_leaks(tmp_path) == {}


def test_a_key_in_a_model_files_extra_settings_is_refused_naming_its_line(
    tmp_path: Path, user_model: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key written into `settings.extra` (a proxy's body field) was sent, stored in every
    answer's settings and the run's model records, exported and shown in the report, and
    `models show` printed it; the file is now unusable, each place named with its line."""
    monkeypatch.setenv(KEY_ENV, KEY)
    settings = (
        f"settings:\n  extra:\n    user: {KEY}\n    metadata:\n      name: task-scheduler-run\n"
        "      auth: Bearer lit3ral-t0ken-9x\n"
    )
    path = user_model(
        "generators",
        "proxy",
        f"name: proxy\nprovider: openai-compatible\nmodel: m\nbase_url: http://127.0.0.1:9/v1\n"
        f"api_key_env: {KEY_ENV}\n{settings}",
    )
    shown = CliRunner().invoke(app, ["models", "show", "proxy"], env={"COLUMNS": "300"})
    assert shown.exit_code == 2 and leaks(shown.output) == []
    assert f"{path}:8: settings.extra.user: holds an API key" in shown.output
    assert f"{path}:11: settings.extra.metadata.auth: holds an API key" in shown.output
    assert "metadata.name" not in shown.output  # "task-scheduler" holds "sk-scheduler"
    output = generate(tmp_path / "run", "proxy")
    assert "settings.extra.user: holds an API key" in output
    assert leaks(output) == [] and folder_leaks(tmp_path / "run") == {}


def test_a_key_in_a_base_urls_query_is_neither_shown_nor_stored(
    tmp_path: Path, user_model: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """google-genai sends a `base_url`'s query (`?key=...`, as a Gemini proxy takes the key) with
    every call; `models show`, the "cannot connect to URL" line and the call log showed it."""
    monkeypatch.setenv("GEMINI_API_KEY", "unused-by-this-proxy")
    model_file(user_model, "gem", "google", f"http://127.0.0.1:9/?key={KEY}&alt=json")
    shown = CliRunner().invoke(app, ["models", "show", "gem"], env={"COLUMNS": "300"})
    assert "base_url: http://127.0.0.1:9/?key=***&alt=json" in shown.output
    output = generate(tmp_path / "run", "gem")
    assert "cannot connect to http://127.0.0.1:9/?key=***&alt=json" in output
    assert leaks(shown.output + output) == [] and folder_leaks(tmp_path / "run") == {}
    assert url_to_copy(f"http://u:pw@h/v1?alt=json&x-api-key={KEY}") == (
        "http://USER:PASSWORD@h/v1?alt=json&x-api-key=KEY",
        "put your login in place of USER:PASSWORD and your key in place of KEY",
    )
    quoted = "GET http://h/?monkey=1&access_token=tok123456 failed; write ?key=KEY"
    assert Redactor()(quoted) == "GET http://h/?monkey=1&access_token=*** failed; write ?key=KEY"


@pytest.mark.parametrize(
    "pasted", ["hf_Zq8Xw3Lk5Rt7Yp2Nv4HbCANARYabcdefgh", "AIzaSyB_Zq8Xw3Lk5Rt7Yp2Nv4HbCANARY012"]
)
def test_a_key_pasted_as_api_key_env_is_refused_unquoted(
    pasted: str, user_model: Callable[..., Path]
) -> None:
    """A Hugging Face token or a Gemini key holding '_' passed for a variable's name: `models
    show` printed it, and a run said "set the environment variable ***"."""
    path = user_model(
        "generators",
        "hub",
        f"name: hub\nprovider: openai-compatible\nmodel: m\nbase_url: http://127.0.0.1:9/v1\n"
        f"api_key_env: {pasted}\n",
    )
    shown = CliRunner().invoke(app, ["models", "show", "hub"], env={"COLUMNS": "300"})
    assert shown.exit_code == 2 and pasted[:12] not in shown.output
    assert f"{path}:5: api_key_env must be the name of the environment variable" in shown.output


@pytest.mark.parametrize(
    ("pasted", "named"),
    [("\u201c", "LEFT DOUBLE QUOTATION MARK U+201C"), ("\n", "a control character U+000A")],
)
def test_a_key_holding_a_character_no_header_carries_stops_before_any_call(
    pasted: str,
    named: str,
    tmp_path: Path,
    user_model: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A curly quote or a line break pasted inside the key failed each call as a "malformed or
    truncated response body (UnicodeEncodeError ...)" or as a connection error retried by every
    run; the command now stops first, naming the variable and the character, not the key."""
    monkeypatch.setenv("OPENAI_API_KEY", f"{KEY[:16]}{pasted}{KEY[16:]}")
    model_file(user_model, "gpt", "openai", "http://127.0.0.1:9/v1")
    output = " ".join(generate(tmp_path / "run", "gpt").split())
    assert (
        "the environment variable OPENAI_API_KEY holds a character an HTTP header cannot carry "
        f"({named}, character 17 of 30)"
    ) in output
    assert "nothing was run" in output and leaks(output) == []
