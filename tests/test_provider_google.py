"""Google adapter: the real `google-genai` SDK against the local Gemini server."""

from __future__ import annotations

from typing import Any

import pytest
from provider_support import batch_round, early_batch_results, failure, local_spec, run
from provider_support import chat_request as request

from poemetric.providers.base import Completion, ModelSpec, ProviderError
from poemetric.providers.google_provider import GoogleProvider
from poemetric.testing import ChatCall, Fault, GeminiServer, Reply, ResponderError

KEY = "AIza-test-SECRET-77"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)


def provider(server: GeminiServer, timeout_s: float = 2.0, **kwargs: Any) -> GoogleProvider:
    spec = local_spec(
        server, timeout_s=timeout_s, name="gemini", provider="google", model="gemini-2.5-pro",
        **kwargs,
    )  # fmt: skip
    return GoogleProvider(spec)


def thinker(call: ChatCall) -> Reply:
    return Reply(text="Lines that return", reasoning="repeat lines two and four")


def test_completion_usage_and_request_id() -> None:
    with GeminiServer(api_key=KEY) as server:
        completion = run(
            provider(server), request(("system", "Be a poet."), ("user", "Write a sestina"))
        )
        record = server.generation_requests[0]
    assert record.path.endswith("/models/gemini-2.5-pro:generateContent")
    assert record.headers["x-goog-api-key"] == KEY
    assert record.body["systemInstruction"]["parts"][0]["text"] == "Be a poet."
    assert [c["role"] for c in record.body["contents"]] == ["user"]
    assert record.body.get("generationConfig", {}) == {}  # nothing set, nothing sent
    assert completion.text == "Echo: Write a sestina"
    assert completion.reasoning is None
    assert completion.usage.input_tokens == 6 and completion.usage.output_tokens == 4
    assert completion.request_id is not None and completion.finish_reason == "STOP"
    assert completion.provider_model == "gemini-2.5-pro-001"
    assert KEY not in repr(completion) and KEY not in str(completion.raw)


def test_thought_parts_become_reasoning() -> None:
    with GeminiServer(thinker) as server:
        completion = run(provider(server), request(reasoning_budget_tokens=1024, max_tokens=2000))
        config = server.generation_requests[0].body["generationConfig"]
    assert config["maxOutputTokens"] == 2000
    thinking = config.get("thinkingConfig") or config["thinking_config"]
    assert (thinking.get("thinkingBudget") or thinking.get("thinking_budget")) == 1024
    assert completion.reasoning == "repeat lines two and four"
    assert completion.text == "Lines that return"
    assert completion.usage.reasoning_tokens == 5
    assert completion.usage.output_tokens == 8  # answer + thoughts


def test_thinking_budget_zero_turns_thinking_off() -> None:
    with GeminiServer(thinker) as server:
        completion = run(provider(server, thinking=True), request(reasoning_budget_tokens=0))
    assert completion.reasoning is None and completion.usage.reasoning_tokens == 0


def test_settings_mapping() -> None:
    with GeminiServer() as server:
        run(provider(server), request(temperature=0.4, top_p=0.9, top_k=32, seed=5, stop=("##",)))
        config = server.generation_requests[0].body["generationConfig"]
    assert config == {
        "temperature": 0.4,
        "topP": 0.9,
        "topK": 32,
        "seed": 5,
        "stopSequences": ["##"],
    }


@pytest.mark.parametrize(
    ("fault", "status", "retryable"),
    [
        (Fault.server_error(500), 500, True),
        (Fault.server_error(503), 503, True),
        (Fault.client_error(400), 400, False),
        (Fault.client_error(401), 401, False),
    ],
)
def test_status_errors(fault: Fault, status: int, retryable: bool) -> None:
    with GeminiServer(faults=[fault]) as server:
        error = failure(provider(server))
    assert error.status == status and error.retryable is retryable


def test_a_wrong_key_is_a_refused_key_and_a_plain_400_is_not() -> None:
    """The real API answers a wrong key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID."""
    with GeminiServer(api_key="AIza-the-right-key") as server:
        refused = failure(provider(server))
    assert refused.status == 400 and refused.key_refused and not refused.retryable
    assert "API key not valid" in str(refused) and KEY not in str(refused)
    with GeminiServer(faults=[Fault.client_error(400, "API key field is unknown")]) as server:
        plain = failure(provider(server))
    assert plain.status == 400 and not plain.key_refused


def test_rate_limit_retry_after() -> None:
    with GeminiServer(faults=[Fault.rate_limited(4.0)]) as server:
        error = failure(provider(server))
    assert error.retryable and error.status == 429 and error.retry_after_s == pytest.approx(4.0)


def test_server_side_rate_limit() -> None:
    with GeminiServer(rate_limit_rps=1) as server:
        run(provider(server), request())
        error = failure(provider(server))
        assert [r.fault for r in server.generation_requests] == [None, "rate_limit"]
    assert error.status == 429 and error.retry_after_s is not None and error.retry_after_s <= 1


DAILY = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
PER_MINUTE = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (Fault.quota_failure(DAILY), f"the daily quota {DAILY} is used up"),
        (Fault.quota_failure(PER_MINUTE, quota_value="0"), f"quota {PER_MINUTE} is 0"),
    ],
    ids=["per-day", "no-quota"],
)
def test_a_used_up_daily_quota_is_fatal_not_a_rate_limit(fault: Fault, said: str) -> None:
    """The free tier's requests per day, used up: a 429 RESOURCE_EXHAUSTED whose QuotaFailure
    names a per-day quota, refilled at midnight Pacific time. It was retried as a rate limit
    after its retryDelay (seconds), up to 100 times a job; now it stops the model, saying why.
    So does a quota of 0 (a tier without this model), which no wait ends."""
    with GeminiServer(faults=[fault]) as server:
        error = failure(provider(server))
    assert error.status == 429 and error.fatal and not error.retryable
    assert "You exceeded your current quota" in str(error) and said in str(error)
    assert "jobs are left for that run" in str(error) and KEY not in str(error)


def test_a_per_minute_quota_is_still_retried() -> None:
    with GeminiServer(faults=[Fault.quota_failure(PER_MINUTE, retry_after_s=30.0)]) as server:
        error = failure(provider(server))
    assert error.status == 429 and error.retryable and not error.fatal
    assert error.retry_after_s == pytest.approx(30.0)


@pytest.mark.parametrize("fault", [Fault.truncated(), Fault.invalid_json(), Fault.disconnect()])
def test_broken_bodies_are_retryable(fault: Fault) -> None:
    with GeminiServer(faults=[fault]) as server:
        assert failure(provider(server)).retryable


def test_timeout_is_retryable() -> None:
    with GeminiServer(faults=[Fault.slow(3.0)]) as server:
        error = failure(provider(server, timeout_s=0.3))
    assert error.retryable and error.status is None


def test_an_infinite_timeout_means_none() -> None:
    """`limits.timeout_s: .inf` (which a model file may say) crashed every call with
    "OverflowError: cannot convert float infinity to integer" (the SDK takes milliseconds)."""
    with GeminiServer() as server:
        completion = run(provider(server, timeout_s=float("inf")), request())
        sent = server.generation_requests[0].headers
    assert completion.text.startswith("Echo:")
    assert "x-server-timeout" not in sent


def test_asyncio_timeout_is_a_retryable_transport_error() -> None:
    """Where aiohttp is installed (vLLM and `datasets` install it) the SDK's async client speaks
    aiohttp, whose timeout is asyncio's `TimeoutError`: it was an "unexpected TimeoutError",
    not retried, so a slow Gemini answer became an error row."""
    with GeminiServer() as server:
        error = provider(server).translate(TimeoutError())
    assert error.retryable and not error.fatal and error.status is None
    assert "timeout or connection failure" in str(error)


@pytest.mark.aiohttp
def test_over_aiohttp_timeouts_and_dropped_connections_are_retryable() -> None:
    """The same faults as above, through the SDK's aiohttp transport (a dropped connection is
    an `aiohttp.ClientPayloadError` there, a refused one an `aiohttp.ClientConnectorError`)."""
    from google.genai import _api_client

    assert _api_client.has_aiohttp  # the SDK speaks aiohttp: what this test is about
    with GeminiServer(faults=[Fault.slow(3.0), Fault.disconnect()]) as server:
        timed_out = failure(provider(server, timeout_s=0.3))
        dropped = failure(provider(server))
        origin = server.origin
    assert timed_out.retryable and dropped.retryable
    spec = ModelSpec(name="gemini", provider="google", model="gemini-2.5-pro", base_url=origin)
    refused = failure(GoogleProvider(spec))  # the server is gone: nothing listens there
    assert refused.fatal and "connection refused" in str(refused)


def test_missing_key_names_both_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY")
    with GeminiServer() as server:
        error = failure(provider(server))
    assert not error.retryable
    assert "GEMINI_API_KEY" in str(error) and "GOOGLE_API_KEY" in str(error)


def test_google_api_key_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.setenv("GOOGLE_API_KEY", KEY)
    with GeminiServer(api_key=KEY) as server:
        assert run(provider(server), request()).text == "Echo: Write a poem"


def test_inline_batch_round_trip() -> None:
    def answer(call: ChatCall) -> Reply:
        if call.prompt == "bad":
            raise ResponderError(400, "unsupported")
        return Reply(text=f"poem {call.custom_id}", reasoning="thoughts")

    items = [
        ("k1", request(("user", "one"), reasoning_budget_tokens=256)),
        ("k2", request(("system", "sys"), ("user", "two"))),
        ("k3", request(("user", "bad"))),
    ]
    with GeminiServer(answer, batch_polls_in_progress=2) as server:
        batch = batch_round(provider(server), items, polls=3)
    assert batch.states == ["in_progress", "in_progress", "completed"]
    # the counts of `batchStats`, which the SDK's BatchJob leaves out: 0 of 0 while it ran
    assert [(s.total, s.completed, s.failed) for s in batch.statuses[:2]] == [(3, 0, 0)] * 2
    assert (batch.last.total, batch.last.completed, batch.last.failed) == (3, 2, 1)
    assert batch.last.error is None
    k1, k2, k3 = batch.results["k1"], batch.results["k2"], batch.results["k3"]
    assert isinstance(k1, Completion) and k1.text == "poem k1" and k1.reasoning == "thoughts"
    assert isinstance(k2, Completion) and k2.text == "poem k2" and k2.reasoning is None
    assert isinstance(k3, ProviderError) and k3.status == 400 and not k3.retryable


def test_a_batch_item_error_reads_its_canonical_code() -> None:
    """A failed request inside a batch job carries a google.rpc.Status, whose code is a
    canonical one ("An internal error has occurred. Please retry", code 13): it was read as
    "HTTP 13", not worth retrying; it is INTERNAL, HTTP 500, retryable."""

    def answer(call: ChatCall) -> Reply:
        if call.prompt == "unlucky":
            raise ResponderError(13, "An internal error has occurred. Please retry.")
        if call.prompt == "bad":
            raise ResponderError(3, "Request contains an invalid argument.")
        return Reply(text="a poem")

    items = [("k1", request(("user", "unlucky"))), ("k2", request(("user", "bad")))]
    with GeminiServer(answer, batch_polls_in_progress=0) as server:
        results = batch_round(provider(server), items, polls=1).results
    internal, invalid = results["k1"], results["k2"]
    assert isinstance(internal, ProviderError) and isinstance(invalid, ProviderError)
    assert internal.status == 500 and internal.retryable
    assert "INTERNAL (code 13): An internal error" in str(internal) and "HTTP 13" not in str(
        internal
    )
    assert invalid.status == 400 and not invalid.retryable
    assert "INVALID_ARGUMENT (code 3)" in str(invalid)


def test_batch_results_before_the_end_is_a_retryable_error() -> None:
    with GeminiServer(batch_polls_in_progress=5) as server:
        error = early_batch_results(provider(server))
        assert KEY not in repr(provider(server))
    assert error.retryable and "in progress" in str(error)


def test_a_batch_failed_whole_says_why() -> None:
    """A batch the API fails whole carries its reason in the operation's `error`, which the
    SDK's BatchJob leaves out: its requests only said "returned no result"."""
    with GeminiServer(api_key=KEY, batch_polls_in_progress=0) as server:
        server.batch_failure = (8, f"Resource has been exhausted for key {KEY}.")
        batch = batch_round(provider(server), [("k1", request())], polls=1)
    assert batch.states == ["failed"] and batch.results == {}
    assert (
        batch.last.error == "RESOURCE_EXHAUSTED (code 8): Resource has been exhausted for key ***."
    )
