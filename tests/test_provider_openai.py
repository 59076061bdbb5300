"""OpenAI and OpenAI-compatible adapters: the real `openai` SDK against the local OpenAI server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from provider_support import batch_round, early_batch_results, failure, local_spec, run

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ProviderError,
    RateLimits,
)
from poemetric.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider
from poemetric.testing import ChatCall, Fault, OpenAIServer, Reply, ResponderError

KEY = "sk-test-SECRET-0123456789"


def make_spec(server: OpenAIServer, model: str = "gpt-4o", **kwargs: Any) -> ModelSpec:
    return local_spec(server, **{"name": "m", "provider": "openai", "model": model, **kwargs})


def request(text: str = "Write a limerick", **settings: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=(ChatMessage(role="user", content=text),),
        settings=GenerationSettings(**settings),
    )


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("DEEPSEEK_KEY", KEY)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(api_key=KEY) as running:
        yield running


def test_completion_text_usage_request_id(server: OpenAIServer) -> None:
    completion = run(OpenAIProvider(make_spec(server)), request("Write a sonnet"))
    assert completion.text == "Echo: Write a sonnet"
    assert completion.usage.input_tokens == 3
    assert completion.usage.output_tokens == 4
    assert completion.request_id is not None and completion.request_id.startswith("req_")
    assert completion.finish_reason == "stop"
    assert completion.provider_model == "gpt-4o-served"
    assert completion.latency_s is not None and completion.latency_s > 0
    assert completion.raw["choices"][0]["message"]["content"] == "Echo: Write a sonnet"


def test_unset_settings_are_not_sent_and_set_ones_are(server: OpenAIServer) -> None:
    run(OpenAIProvider(make_spec(server)), request())
    run(OpenAIProvider(make_spec(server)), request(temperature=0.7, max_tokens=50, seed=3))
    first, second = (r.body for r in server.generation_requests)
    assert set(first) == {"model", "messages"}
    assert second["temperature"] == 0.7 and second["max_tokens"] == 50 and second["seed"] == 3
    assert "top_p" not in second


def test_reasoning_model_parameters_and_reasoning_tokens() -> None:
    def think(call: ChatCall) -> Reply:
        return Reply(text="A poem.", reasoning="count the syllables first")

    with OpenAIServer(think) as server:
        spec = make_spec(server, model="o3-mini")
        completion = run(OpenAIProvider(spec), request(max_tokens=900, reasoning_effort="low"))
        body = server.generation_requests[0].body
    assert body["max_completion_tokens"] == 900 and body["reasoning_effort"] == "low"
    assert "max_tokens" not in body and "temperature" not in body
    assert completion.usage.reasoning_tokens == 4
    assert completion.usage.output_tokens == 6  # includes the reasoning tokens
    assert completion.reasoning is None  # OpenAI does not return the reasoning text


@pytest.mark.parametrize("setting", [{"temperature": 0.2}, {"top_p": 0.9}], ids=str)
def test_a_reasoning_models_temperature_is_refused_not_dropped(setting: dict[str, float]) -> None:
    """It was left out of the request without a word, while the run's stored settings said it
    was used. A model file that sets it is unusable (`test_roster_refused_settings`); settings
    made otherwise are refused before anything is sent."""
    with OpenAIServer() as server:
        error = failure(OpenAIProvider(make_spec(server, model="o3-mini")), request(**setting))
        assert server.generation_requests == []
    (field,) = setting
    assert not error.retryable and f"openai: {field}: a reasoning model takes none" in str(error)


def test_deepseek_reasoning_content_is_read() -> None:
    def think(call: ChatCall) -> Reply:
        return Reply(text="<think>kept raw</think>Final poem", reasoning="private chain")

    with OpenAIServer(think, expose_reasoning_content=True) as server:
        spec = make_spec(
            server,
            model="deepseek-reasoner",
            provider="openai-compatible",
            api_key_env="DEEPSEEK_KEY",
        )
        completion = run(OpenAICompatibleProvider(spec), request(top_k=40))
        body = server.generation_requests[0].body
    assert completion.reasoning == "private chain"
    assert completion.text == "<think>kept raw</think>Final poem"
    assert body["top_k"] == 40


@pytest.mark.parametrize(
    "usage",
    [{"prompt_tokens": 3, "total_tokens": 9}, {"prompt_tokens": None, "completion_tokens": None}],
    ids=["left-out", "null"],
)
def test_token_counts_a_server_leaves_out_are_zero(usage: dict[str, Any]) -> None:
    """An OpenAI-compatible server's `usage` without `completion_tokens` (or with nulls) gave
    `output_tokens=None`, on which the runner's cost sum raised TypeError and ended the stage:
    the answers paid for were not stored."""

    class Server(OpenAIServer):
        def render_completion(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
            return {**super().render_completion(call, reply), "usage": usage}

    with Server() as server:
        completion = run(OpenAIProvider(make_spec(server)), request())
    assert completion.text and completion.usage.output_tokens == 0
    assert completion.usage.input_tokens == (usage["prompt_tokens"] or 0)


def test_rate_limit_gives_retry_after() -> None:
    with OpenAIServer(faults=[Fault.rate_limited(2.5)]) as server:
        error = failure(OpenAIProvider(make_spec(server)))
    assert error.retryable and error.status == 429 and error.retry_after_s == pytest.approx(2.5)


@pytest.mark.parametrize(
    "code", ["insufficient_quota", "credit_balance_exhausted", "project_spend_limit_exceeded"]
)
def test_a_used_up_quota_429_is_fatal_not_a_rate_limit(code: str) -> None:
    """OpenAI answers an account without credits (or past its spending limit) with 429, type
    `insufficient_quota`: it was retried as a rate limit, up to 100 times a job, though no wait
    ends it; now it stops the model, saying what to do."""
    with OpenAIServer(faults=[Fault.quota_exceeded(code)]) as server:
        error = failure(OpenAIProvider(make_spec(server)))
    assert error.status == 429 and error.fatal and not error.retryable
    assert "You exceeded your current quota" in str(error)
    assert "add credits or raise the limit" in str(error)


def test_a_402_payment_required_stops_the_model() -> None:
    """402 Payment Required (DeepSeek's "Insufficient Balance", OpenRouter without credits) was
    each job's own error; no retry ends it, so it now stops the model like a used-up quota."""
    with OpenAIServer(faults=[Fault.client_error(402, "Insufficient Balance")]) as server:
        error = failure(OpenAIProvider(make_spec(server)))
    assert error.status == 402 and error.fatal and not error.retryable
    assert "Insufficient Balance" in str(error) and "add credits" in str(error)


def test_an_ordinary_429_stays_a_rate_limit() -> None:
    with OpenAIServer(faults=[Fault.rate_limited(None)]) as server:
        error = failure(OpenAIProvider(make_spec(server)))
    assert error.retryable and not error.fatal and error.status == 429


@pytest.mark.parametrize("status", [500, 502, 503, 504, 529])
def test_server_errors_are_retryable(status: int) -> None:
    with OpenAIServer(faults=[Fault.server_error(status)]) as server:
        error = failure(OpenAIProvider(make_spec(server)))
    assert error.retryable and error.status == status


@pytest.mark.parametrize("status", [400, 403, 404])
def test_client_errors_are_not_retryable(status: int) -> None:
    with OpenAIServer(faults=[Fault.client_error(status)]) as server:
        error = failure(OpenAIProvider(make_spec(server)))
    assert not error.retryable and error.status == status


def test_wrong_key_is_401_not_retryable(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    error = failure(OpenAIProvider(make_spec(server)))
    assert not error.retryable and error.status == 401
    # The status is said once: it read "openai: HTTP 401: Error code: 401 - invalid API key".
    assert str(error) == "openai: HTTP 401: invalid API key"


@pytest.mark.parametrize("fault", [Fault.truncated(), Fault.invalid_json(), Fault.disconnect()])
def test_broken_bodies_are_retryable(fault: Fault) -> None:
    with OpenAIServer(faults=[fault]) as server:
        error = failure(OpenAIProvider(make_spec(server)))
    assert error.retryable
    assert "malformed" in str(error) or "connection" in str(error)


def test_timeout_is_retryable() -> None:
    with OpenAIServer(faults=[Fault.slow(3.0)]) as server:
        spec = make_spec(server, limits=RateLimits(timeout_s=0.3))
        error = failure(OpenAIProvider(spec))
    assert error.retryable and "Timeout" in str(error)


def test_reasoning_model_rejection_is_surfaced_not_retried() -> None:
    with OpenAIServer() as server:
        spec = make_spec(server, model="o1", options={"reasoning_model": False})
        error = failure(OpenAIProvider(spec), request(max_tokens=10))
    assert not error.retryable and error.status == 400 and "max_completion_tokens" in str(error)


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with OpenAIServer() as server:
        error = failure(OpenAIProvider(make_spec(server)))
        assert server.requests == []
    assert not error.retryable and "OPENAI_API_KEY" in str(error)
    with OpenAIServer() as server:
        spec = make_spec(server, provider="openai-compatible", api_key_env="MY_ENDPOINT_KEY")
        assert "MY_ENDPOINT_KEY" in str(failure(OpenAICompatibleProvider(spec)))


@pytest.mark.parametrize("written", ["MY_ENDPONT_KEY", "my_endpoint_key"])
def test_a_missing_key_names_the_set_variable_the_file_probably_meant(
    monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    """`api_key_env: MY_ENDPONT_KEY` with MY_ENDPOINT_KEY exported was answered "set the
    environment variable MY_ENDPONT_KEY" alone, sending the user to export a second variable
    rather than fix the file's misspelling."""
    monkeypatch.setenv("MY_ENDPOINT_KEY", "sk-the-real-key-1234")
    monkeypatch.delenv(written, raising=False)
    with OpenAIServer() as server:
        spec = make_spec(server, provider="openai-compatible", api_key_env=written)
        error = failure(OpenAICompatibleProvider(spec))
        assert server.requests == []
    message = str(error)
    assert f"set the environment variable {written}" in message
    assert "MY_ENDPOINT_KEY is set: if it holds this key, write `api_key_env: MY_ENDPOINT_KEY`" in (
        message
    )
    assert "sk-the-real-key-1234" not in message
    monkeypatch.setenv("MY_ENDPOINT_KEY", " ")  # set but empty: no key to point at
    with OpenAIServer() as server:
        spec = make_spec(server, provider="openai-compatible", api_key_env=written)
        assert "is set: if it holds" not in str(failure(OpenAICompatibleProvider(spec)))


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_key_variable_is_said_to_be_empty(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """`export MY_ENDPOINT_KEY=` was answered "set the environment variable MY_ENDPOINT_KEY"."""
    monkeypatch.setenv("MY_ENDPOINT_KEY", value)
    with OpenAIServer() as server:
        spec = make_spec(server, provider="openai-compatible", api_key_env="MY_ENDPOINT_KEY")
        error = failure(OpenAICompatibleProvider(spec))
        assert server.requests == []
    assert not error.retryable and "set the environment variable" not in str(error)
    assert "MY_ENDPOINT_KEY is set but empty" in str(error)
    assert "(`api_key_env: false` for a server that checks no key)" in str(error)  # local
    monkeypatch.setenv("OPENAI_API_KEY", value)
    with OpenAIServer() as server:
        remote = make_spec(server, base_url="https://api.example.com/v1")
        error = failure(OpenAIProvider(remote))
    assert "OPENAI_API_KEY is set but empty" in str(error)
    assert "any non-empty value" not in str(error) and "api_key_env: false" not in str(error)


def test_key_never_in_raw_or_repr(server: OpenAIServer) -> None:
    provider = OpenAIProvider(make_spec(server))
    completion = run(provider, request())
    assert KEY not in repr(completion) and KEY not in str(completion.raw)
    assert KEY not in repr(provider)
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_top_k_on_openai_is_a_clear_error(server: OpenAIServer) -> None:
    error = failure(OpenAIProvider(make_spec(server)), request(top_k=5))
    assert not error.retryable and "top_k" in str(error)
    assert server.requests == []


def test_batch_round_trip() -> None:
    def answer(call: ChatCall) -> Reply:
        if "fail" in call.prompt:
            raise ResponderError(400, "content policy")
        return Reply(text=f"poem for {call.custom_id}")

    items = [
        ("a", request("one")),
        ("b", request("two", max_tokens=20)),
        ("c", request("fail")),
    ]
    with OpenAIServer(answer, batch_polls_in_progress=2) as server:
        batch = batch_round(OpenAIProvider(make_spec(server)), items, polls=3)
        uploaded, created = server.requests[0], server.requests[1]
    assert batch.states == ["in_progress", "in_progress", "completed"]
    # Untagged (`submit_batch`, not the runner's `submit_tagged_batch`): no `metadata` key at
    # all, not `null`, which an OpenAI-compatible batch API may refuse.
    assert created.path == "/v1/batches" and "metadata" not in created.body
    assert (batch.last.total, batch.last.completed, batch.last.failed) == (3, 2, 1)
    assert uploaded.path == "/v1/files" and uploaded.body["purpose"] == "batch"
    a, b, c = batch.results["a"], batch.results["b"], batch.results["c"]
    assert isinstance(a, Completion) and a.text == "poem for a" and a.request_id
    assert isinstance(b, Completion) and b.usage.output_tokens == 3
    assert isinstance(c, ProviderError) and c.status == 400 and not c.retryable


def test_batch_results_before_the_end_is_a_retryable_error() -> None:
    with OpenAIServer(batch_polls_in_progress=5) as server:
        error = early_batch_results(OpenAIProvider(make_spec(server)))
    assert error.retryable and "still" in str(error)


def test_a_batch_failed_whole_says_why_in_each_request_error() -> None:
    """A batch OpenAI fails whole (its organization's enqueued-token limit, an input file
    refused) has no result file: why is only in its `errors`, which each request's error now
    carries (it said "ended (failed) without a result" alone)."""
    why = "Enqueued token limit reached for gpt-4o in organization org-x. Limit: 90,000"
    errors: list[dict[str, Any]] = [
        {"code": "token_limit_exceeded", "message": why, "line": None, "param": None},
        *({"code": "invalid_json", "message": "bad", "line": n, "param": None} for n in (2, 3, 4)),
    ]
    with OpenAIServer(batch_polls_in_progress=0, batch_validation_errors=errors) as server:
        batch = batch_round(OpenAIProvider(make_spec(server)), [("a", request())], polls=1)
    assert batch.states == ["failed"]
    error = batch.results["a"]
    assert isinstance(error, ProviderError) and error.retryable
    assert str(error).endswith(
        f"without a result for this request: token_limit_exceeded: {why}; invalid_json: bad "
        "(input line 2); invalid_json: bad (input line 3); and 1 more"
    ), str(error)
