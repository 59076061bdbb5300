"""A `base_url` the SDKs cannot call is refused when its model file is read (no scheme, a port
out of range, no host, a query key given twice), with file, line and the fix, and without
quoting a login; a query (`?api-version=...`) reaches the server on every call. Real SDKs
against the local wire servers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_secrets import generate, model_file

from poemetric.roster import RosterError
from poemetric.roster.model_file import load_model_file
from poemetric.testing.exchange import HttpAnswer
from poemetric.testing.servers import AnthropicServer, OpenAIServer, RecordedRequest

PASSWORD = "Nightingale-pw"


def refusal(tmp_path: Path, base_url: str) -> str:
    path = tmp_path / "m1.yaml"
    path.write_text(
        f"name: m1\nprovider: openai-compatible\nmodel: m\napi_key_env: false\n"
        f"base_url: {base_url}\n"
    )
    with pytest.raises(RosterError) as caught:
        load_model_file(path, kind="generators")
    message = str(caught.value)
    assert message.startswith(f"{path}:5: base_url: ") and PASSWORD not in message
    return message


def test_a_base_url_without_a_scheme_is_refused_with_the_line_to_write(tmp_path: Path) -> None:
    """`localhost:8000/v1` was accepted: every call failed as a 'Connection error', retried 6
    times a run, and `models show` printed a login written into it (masking needs a scheme)."""
    message = refusal(tmp_path, f"poet:{PASSWORD}@localhost:8000/v1")
    assert "no http:// or https:// before the host; write base_url: " in message
    assert "http://USER:PASSWORD@localhost:8000/v1" in message
    assert "put your login in place of USER:PASSWORD" in message
    assert "write base_url: http://localhost:8000/v1 " in refusal(tmp_path, "localhost:8000/v1")
    assert "ftp:// is not a scheme the SDKs call" in refusal(tmp_path, "ftp://host/v1")


@pytest.mark.parametrize("port", ["99999", "0", "80a"])
def test_a_port_out_of_range_is_refused(tmp_path: Path, port: str) -> None:
    """Port 99999 failed every call as 'unexpected ExceptionGroup' (anyio's connect raised
    OverflowError 'port must be 0-65535' inside a task group, past the SDK's error mapping)."""
    message = refusal(tmp_path, f"http://poet:{PASSWORD}@127.0.0.1:{port}/v1")
    assert f"port '{port}' is not a port: it must be a number from 1 to 65535" in message
    assert "(http://***@127.0.0.1:" in message


def test_no_host_or_a_repeated_query_key_is_refused(tmp_path: Path) -> None:
    assert "no host after http://" in refusal(tmp_path, "http://:8000/v1")
    message = refusal(tmp_path, "http://127.0.0.1:8000/v1?a=1&b=2&a=3")
    assert "the query gives a more than once" in message


class QueryRecording:
    """Keeps the query of every request the wire server routes (in `queries`, set before use)."""

    queries: list[dict[str, list[str]]]

    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> HttpAnswer:
        self.queries.append(query)
        return super().route(record, query, raw)  # type: ignore[misc]


class QueryOpenAIServer(QueryRecording, OpenAIServer):
    pass


class QueryAnthropicServer(QueryRecording, AnthropicServer):
    pass


@pytest.mark.parametrize("server_class", [QueryOpenAIServer, QueryAnthropicServer])
def test_a_query_in_base_url_is_sent_with_every_call(
    tmp_path: Path,
    user_model: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    server_class: type[QueryOpenAIServer | QueryAnthropicServer],
) -> None:
    """`?api-version=...` made the SDK add its path after the query (POST /v1/ with the query
    `api-version=2024-10-21chat/completions`): every call a 404 'the provider knows no model'."""
    monkeypatch.setenv("PROXY_MODEL_KEY", "sk-local-dummy-123456")
    provider = "anthropic" if server_class is QueryAnthropicServer else "openai-compatible"
    with server_class() as server:
        server.queries = []
        url = f"{server.base_url}?api-version=2024-10-21&tag=a%2Fb"
        model_file(user_model, "m1", provider, url, api_key_env="PROXY_MODEL_KEY")
        output = generate(tmp_path / "run", "m1")
        assert [request.status for request in server.requests] == [200, 200], output
    assert server.queries == [{"api-version": ["2024-10-21"], "tag": ["a/b"]}] * 2
