"""A login written into a model's `base_url` (`http://user:pass@proxy/v1`) is never stored nor
printed: messages name the URL as `http://***@host/v1`, and the password (its pieces, the
`user:pass` pair, the `Basic` header made of them) is redacted like a key from whatever an SDK
or a proxy says. Real SDKs against the local wire servers."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_secrets import KEY, folder_leaks, generate, leaks, model_file
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.redaction import Redactor, url_credentials, url_without_credentials
from poemetric.roster import RosterError
from poemetric.roster.model_file import load_model_file
from poemetric.testing.exchange import HttpAnswer
from poemetric.testing.servers import GeminiServer, OpenAIServer, RecordedRequest

USER = "poet"
BASIC = base64.b64encode(f"{USER}:{KEY}".encode()).decode()
#: Variables for the adapters' own keys: harmless dummies, so only the URL's login is secret.
DUMMY_KEYS = {"PROXY_MODEL_KEY": "sk-local-dummy-123456", "GEMINI_API_KEY": "AIza" + "x" * 30}


def login(url: str) -> str:
    return url.replace("http://", f"http://{USER}:{KEY}@", 1)


def assert_no_login(output: str, run: Path) -> None:
    assert leaks(output) == [] and BASIC not in output
    assert folder_leaks(run) == {}
    assert not [p for p in run.rglob("*") if p.is_file() and BASIC.encode() in p.read_bytes()]


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in DUMMY_KEYS.items():
        monkeypatch.setenv(name, value)


def test_a_url_is_shown_without_its_login_and_the_login_is_a_secret() -> None:
    url = f"http://{USER}:p%40ss-{KEY}@proxy.example:8080/v1"
    assert url_without_credentials(url) == "http://***@proxy.example:8080/v1"
    assert url_without_credentials("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert f"p@ss-{KEY}" in url_credentials(url) and f"{USER}:p%40ss-{KEY}" in url_credentials(url)
    assert url_credentials("https://api.openai.com/v1") == ()
    said = Redactor()(f"Cannot reach http://someone:{KEY}@10.0.0.1/v1/chat/completions")
    assert said == "Cannot reach http://***@10.0.0.1/v1/chat/completions"


PROVIDERS = [
    ("openai-compatible", {"api_key_env": "PROXY_MODEL_KEY"}),
    ("anthropic", {"api_key_env": "PROXY_MODEL_KEY"}),
    ("google", {}),
]


@pytest.mark.parametrize(("provider", "fields"), PROVIDERS)
def test_a_refused_connection_names_the_url_without_its_login(
    tmp_path: Path, user_model: Callable[..., Path], provider: str, fields: dict[str, str]
) -> None:
    """The message was 'cannot connect to http://user:SECRET@127.0.0.1:9/v1', stored and printed."""
    run = tmp_path / "run"
    model_file(user_model, "m1", provider, login("http://127.0.0.1:9/v1"), **fields)
    output = generate(run, "m1")
    assert "cannot connect to http://***@127.0.0.1:9/v1 (connection refused)" in output
    assert_no_login(output, run)


def test_an_unknown_host_names_the_url_without_its_login(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = tmp_path / "run"
    model_file(
        user_model, "m1", "openai-compatible", login("http://nonexistent.invalid/v1"),
        api_key_env="PROXY_MODEL_KEY",
    )  # fmt: skip
    output = generate(run, "m1")
    assert "calling http://***@nonexistent.invalid/v1" in output
    assert_no_login(output, run)


def echo_login(server: Any, record: RecordedRequest) -> HttpAnswer:
    """A proxy's error page that quotes the login it was sent, decoded and as sent."""
    sent = record.headers.get("authorization", "")
    pair = base64.b64decode(sent.removeprefix("Basic ")).decode()
    headers = json.dumps(record.headers)
    return server.error_answer(400, f"proxy refused login {pair} for {record.path}; {headers}")


class EchoingOpenAI(OpenAIServer):
    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> Any:
        return echo_login(self, record)


class EchoingGemini(GeminiServer):
    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> Any:
        return echo_login(self, record)


@pytest.mark.parametrize(
    ("provider", "server_class", "fields"),
    [
        ("openai-compatible", EchoingOpenAI, {"api_key_env": "PROXY_MODEL_KEY"}),
        ("google", EchoingGemini, {}),
    ],
)
def test_an_http_error_quoting_the_login_is_neither_stored_nor_printed(
    tmp_path: Path,
    user_model: Callable[..., Path],
    provider: str,
    server_class: type[OpenAIServer] | type[GeminiServer],
    fields: dict[str, str],
) -> None:
    run = tmp_path / "run"
    with server_class() as server:
        model_file(user_model, "m1", provider, login(server.base_url), **fields)
        output = generate(run, "m1")
        sent = [r.headers.get("authorization") for r in server.requests]
    assert f"Basic {BASIC}" in sent, "the SDK did not send the URL's login"
    assert "proxy refused login ***" in output
    assert_no_login(output, run)


def test_the_404_hint_names_the_url_without_its_login(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """A base_url without /v1: the hint quoted the whole base_url, login included."""
    run = tmp_path / "run"
    with OpenAIServer() as server:
        model_file(
            user_model, "m1", "openai-compatible", login(server.origin),
            api_key_env="PROXY_MODEL_KEY",
        )  # fmt: skip
        output = generate(run, "m1")
        shown = server.origin.replace("http://", "http://***@")
    assert f"base_url {shown} has no path" in output
    assert_no_login(output, run)


def test_models_show_masks_the_login(user_model: Callable[..., Path]) -> None:
    model_file(user_model, "m1", "openai-compatible", login("http://proxy.example/v1"),
               api_key_env="PROXY_MODEL_KEY")  # fmt: skip
    result = CliRunner().invoke(app, ["models", "show", "m1"])
    assert result.exit_code == 0, result.output
    assert "base_url: http://***@proxy.example/v1" in result.output
    assert leaks(result.output) == []


@pytest.mark.parametrize("variable", ["PROXY_PASS", "PROXY_AUTH", "MY_PROXY_CRED", "PROXY_PWD"])
def test_a_password_variable_is_not_put_into_base_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, KEY)
    path = tmp_path / "m1.yaml"
    path.write_text(
        "name: m1\nprovider: openai-compatible\nmodel: m\n"
        f"base_url: http://user:${{{variable}}}@127.0.0.1:9/v1\napi_key_env: PROXY_MODEL_KEY\n"
    )
    with pytest.raises(RosterError, match=rf"\$\{{{variable}\}} names a secret; .*api_key_env"):
        load_model_file(path)


def test_a_variable_merely_containing_those_letters_is_still_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTHOR_MODEL", "m-by-author")
    monkeypatch.setenv("COMPASS_HOST", "127.0.0.1")
    path = tmp_path / "m1.yaml"
    path.write_text(
        "name: m1\nprovider: openai-compatible\nmodel: ${AUTHOR_MODEL}\n"
        "base_url: http://${COMPASS_HOST}:9/v1\napi_key_env: PROXY_MODEL_KEY\n"
    )
    spec = load_model_file(path)
    assert (spec.model, spec.base_url) == ("m-by-author", "http://127.0.0.1:9/v1")
