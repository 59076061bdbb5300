"""Anthropic adapter: the real `anthropic` SDK against the local Anthropic server."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from provider_support import batch_round, early_batch_results, failure, local_spec, run
from provider_support import chat_request as request

from poemetric.providers.anthropic_provider import AnthropicProvider
from poemetric.providers.base import Completion, ProviderError, ResponseSchema
from poemetric.testing import AnthropicServer, ChatCall, Fault, Reply, ResponderError

KEY = "sk-ant-test-SECRET-42"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


def provider(server: AnthropicServer, timeout_s: float = 2.0, **kwargs: Any) -> AnthropicProvider:
    spec = local_spec(
        server, timeout_s=timeout_s, name="claude", provider="anthropic",
        model="claude-test-model", **kwargs,
    )  # fmt: skip
    return AnthropicProvider(spec)


def thinker(call: ChatCall) -> Reply:
    return Reply(text="Do not go gentle", reasoning="plan the refrains")


def test_completion_system_prompt_and_default_max_tokens() -> None:
    with AnthropicServer(api_key=KEY) as server:
        completion = run(
            provider(server), request(("system", "You are a poet."), ("user", "Write a ghazal"))
        )
        sent = server.generation_requests[0].body
        headers = server.generation_requests[0].headers
    assert completion.text == "Echo: Write a ghazal"
    assert completion.reasoning is None
    assert sent["system"] == "You are a poet."
    assert sent["messages"] == [{"role": "user", "content": "Write a ghazal"}]
    assert sent["max_tokens"] == 4096
    assert set(sent) == {"model", "messages", "max_tokens", "system"}
    assert KEY in (
        headers.get("x-api-key"),
        headers.get("authorization", "").removeprefix("Bearer "),
    )
    assert completion.usage.input_tokens == 7 and completion.usage.output_tokens == 4
    assert completion.request_id is not None and completion.request_id.startswith("req_")
    assert completion.finish_reason == "end_turn"
    assert KEY not in repr(completion) and KEY not in str(completion.raw)


def test_extended_thinking_blocks_become_reasoning() -> None:
    with AnthropicServer(thinker) as server:
        completion = run(provider(server), request(reasoning_budget_tokens=2048, top_p=0.95))
        sent = server.generation_requests[0].body
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert sent["max_tokens"] == 16000 and sent["top_p"] == 0.95
    assert completion.text == "Do not go gentle"
    assert completion.reasoning == "plan the refrains"
    assert completion.usage.output_tokens == 7


def test_explicit_settings_are_sent() -> None:
    with AnthropicServer() as server:
        run(provider(server), request(max_tokens=300, temperature=0.5, top_k=20, stop=("END",)))
        sent = server.generation_requests[0].body
    assert sent["max_tokens"] == 300 and sent["temperature"] == 0.5 and sent["top_k"] == 20
    assert sent["stop_sequences"] == ["END"]


def test_seed_is_a_clear_error_before_any_request() -> None:
    with AnthropicServer() as server:
        error = failure(provider(server), request(seed=1))
        assert server.requests == []
    assert not error.retryable and "seed" in str(error)


@pytest.mark.parametrize(
    ("fault", "status", "retryable"),
    [
        (Fault.rate_limited(3.0), 429, True),
        (Fault.overloaded(), 529, True),
        (Fault.server_error(500), 500, True),
        (Fault.server_error(503), 503, True),
        (Fault.client_error(400), 400, False),
        (Fault.client_error(401), 401, False),
    ],
)
def test_status_errors(fault: Fault, status: int, retryable: bool) -> None:
    with AnthropicServer(faults=[fault]) as server:
        error = failure(provider(server))
    assert error.status == status and error.retryable is retryable
    if status == 429:
        assert error.retry_after_s == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("settings", "named"),
    [({"reasoning_budget_tokens": 2000, "max_tokens": 1500}, "max_tokens"),
     ({"reasoning_budget_tokens": 512}, "reasoning_budget_tokens")],
)  # fmt: skip
def test_a_thinking_budget_the_api_refuses_is_a_clear_error_before_any_request(
    settings: dict[str, int], named: str
) -> None:
    """The API (and the local server) refuses a budget below 1024 or not below max_tokens with
    a 400; the adapter says so before sending, as a model file with one is refused on loading."""
    with AnthropicServer() as server:
        error = failure(provider(server), request(**settings))
        assert server.requests == []
    assert not error.retryable and f"anthropic: {named}: " in str(error)


def test_a_thinking_block_in_extra_is_extended_thinking_as_the_typed_budget_is() -> None:
    """`settings.extra.thinking` (the API's own block) went out with the plain defaults: a
    `max_tokens` of 4096, below its budget, and a judge's forced tool call, both of which the
    API refuses with extended thinking (a 400 for every job). It now gets what
    `reasoning_budget_tokens` gets: room above the budget, and `tool_choice` auto."""
    block = {"type": "enabled", "budget_tokens": 8000}
    asked = request(extra={"thinking": block})
    schema = ResponseSchema("verdict", {"type": "object", "properties": {}})
    judged = dataclasses.replace(asked, response_schema=schema)
    with AnthropicServer(thinker) as server:
        completion = run(provider(server), asked)
        run(provider(server), judged)
        sent, sent_judged = (call.body for call in server.generation_requests)
    assert sent["thinking"] == block and sent["max_tokens"] == 16000  # as the typed budget's
    assert completion.reasoning == "plan the refrains"
    assert sent_judged["tool_choice"] == {"type": "auto"}


@pytest.mark.parametrize(
    ("settings", "named"),
    [({"temperature": 0.7}, "temperature"), ({"max_tokens": 2000}, "max_tokens"),
     ({"reasoning_budget_tokens": 0}, "extra.thinking")],
)  # fmt: skip
def test_a_thinking_block_in_extra_is_refused_as_the_typed_budget_is(
    settings: dict[str, Any], named: str
) -> None:
    """With `extra.thinking`, the settings the API refuses with extended thinking are refused
    before sending, as with `reasoning_budget_tokens` (and a block beside the typed setting,
    which it would replace unrecorded)."""
    extra = {"thinking": {"type": "enabled", "budget_tokens": 4000}}
    with AnthropicServer() as server:
        error = failure(provider(server), request(extra=extra, **settings))
        assert server.requests == []
    assert not error.retryable and error.not_sent and f"anthropic: {named}: " in str(error)


def test_a_disabled_thinking_block_in_extra_is_no_thinking() -> None:
    with AnthropicServer() as server:
        run(provider(server), request(temperature=0.7, extra={"thinking": {"type": "disabled"}}))
        sent = server.generation_requests[0].body
    assert sent["max_tokens"] == 4096 and sent["temperature"] == 0.7


@pytest.mark.parametrize("fault", [Fault.truncated(), Fault.invalid_json(), Fault.disconnect()])
def test_broken_bodies_are_retryable(fault: Fault) -> None:
    with AnthropicServer(faults=[fault]) as server:
        assert failure(provider(server)).retryable


CREDIT_TOO_LOW = (
    "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing "
    "to upgrade or purchase credits."
)


def test_a_credit_balance_too_low_stops_the_model() -> None:
    """Anthropic answers an account without credits with a 400 (a malformed request's status):
    every job became an error row, each naming the same cause. It now stops the model, its
    jobs left for a run after the billing is fixed, saying so."""
    with AnthropicServer(faults=[Fault.client_error(400, CREDIT_TOO_LOW)]) as server:
        error = failure(provider(server))
    assert error.fatal and not error.retryable and error.status == 400
    assert "credit balance is too low" in str(error) and "add credits" in str(error)
    with AnthropicServer(faults=[Fault.client_error(400, "max_tokens: too large")]) as server:
        other = failure(provider(server))
    assert not other.fatal and not other.retryable  # any other 400 stays the job's own error


def test_timeout_is_retryable() -> None:
    with AnthropicServer(faults=[Fault.slow(3.0)]) as server:
        error = failure(provider(server, timeout_s=0.3))
    assert error.retryable and error.status is None


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with AnthropicServer() as server:
        error = failure(provider(server))
    assert not error.retryable and "ANTHROPIC_API_KEY" in str(error)


def test_message_batch_round_trip() -> None:
    def answer(call: ChatCall) -> Reply:
        if call.prompt == "bad":
            raise ResponderError(400, "prompt is too long")
        return Reply(text=f"poem {call.custom_id}", reasoning="thoughts")

    items = [
        ("g1", request(("user", "one"), reasoning_budget_tokens=1024)),
        ("g2", request(("user", "two"))),
        ("g3", request(("user", "bad"))),
    ]
    with AnthropicServer(answer, batch_polls_in_progress=1) as server:
        batch = batch_round(provider(server), items, polls=2)
    assert batch.states == ["in_progress", "completed"]
    assert (batch.last.total, batch.last.completed, batch.last.failed) == (3, 2, 1)
    g1, g2, g3 = batch.results["g1"], batch.results["g2"], batch.results["g3"]
    assert isinstance(g1, Completion) and g1.text == "poem g1" and g1.reasoning == "thoughts"
    assert isinstance(g2, Completion) and g2.reasoning is None
    assert isinstance(g3, ProviderError) and not g3.retryable and "too long" in str(g3)


def test_batch_results_before_the_end_is_a_retryable_error() -> None:
    with AnthropicServer(batch_polls_in_progress=5) as server:
        error = early_batch_results(provider(server))
        assert KEY not in repr(provider(server))
    assert error.retryable and "in progress" in str(error)


class ContentlessServer(AnthropicServer):
    """Answers a prompt asking for it with a 200 message without `content` (missing or null),
    as a broken proxy might."""

    def render_message(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        message = super().render_message(call, reply)
        if call.prompt == "content: missing":
            del message["content"]
        elif call.prompt == "content: null":
            message["content"] = None
        return message


@pytest.mark.parametrize("prompt", ["content: missing", "content: null"])
def test_a_reply_without_content_is_a_retryable_malformed_reply(prompt: str) -> None:
    """It was "TypeError: 'NoneType' object is not iterable", not retryable: an error row where
    the other adapters retry a malformed reply."""
    with ContentlessServer() as server:
        error = failure(provider(server), request(("user", prompt)))
    assert error.retryable and error.status is None
    assert str(error).startswith("anthropic: malformed or truncated response body (")


@pytest.mark.parametrize(
    "usage",
    [{"input_tokens": 3}, {"input_tokens": None, "output_tokens": None}, None, "missing"],
    ids=["left-out", "null", "usage-null", "usage-missing"],
)
def test_token_counts_a_compatible_server_leaves_out_are_zero(usage: Any) -> None:
    """An Anthropic-compatible server whose `usage` has no `output_tokens` (or nulls) gave a
    Completion with a None count: the runner failed that job as an adapter's bug, the answer it
    had paid for dropped, and every later run bought it again. `usage` itself missing is still a
    malformed reply, retried."""

    class Server(AnthropicServer):
        def render_message(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
            message = super().render_message(call, reply)
            if usage == "missing":
                del message["usage"]
            else:
                message["usage"] = usage
            return message

    with Server() as server:
        if not isinstance(usage, dict):
            error = failure(provider(server))
            assert error.retryable and "malformed or truncated response body" in str(error)
            return
        completion = run(provider(server), request())
    assert completion.text.startswith("Echo:")
    assert completion.usage.input_tokens == (usage["input_tokens"] or 0)
    assert completion.usage.output_tokens == 0


def test_a_batch_item_without_content_is_a_retryable_error_of_that_item() -> None:
    items = [("ok", request(("user", "one"))), ("broken", request(("user", "content: null")))]
    with ContentlessServer(batch_polls_in_progress=0) as server:
        batch = batch_round(provider(server), items, polls=1)
    assert batch.last.done
    results = batch.results
    assert isinstance(results["ok"], Completion) and results["ok"].text == "Echo: one"
    broken = results["broken"]
    assert isinstance(broken, ProviderError) and broken.retryable
    assert "malformed or truncated response body" in str(broken)
