"""Adaptive rate control, rate-limit retries that spend no retry budget, and endpoints that
cannot be reached (issue 8; issue 7: name the URL, fail fast on a refused local port)."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import time
from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    generation_rows,
    openai_spec,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.generation.stage import run_generation
from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    GenerationSettings,
    ProviderError,
    TokenUsage,
)
from poemetric.providers.openai_provider import OpenAICompatibleProvider
from poemetric.providers.remote_errors import transport_error
from poemetric.runner.ratelimit import DECREASE, AdaptiveRate
from poemetric.runner.retry import Attempts, RetryPolicy
from poemetric.testing.servers import OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_adaptive_rate_finds_the_granted_rate_and_climbs_back() -> None:
    clock = Clock()
    rate = AdaptiveRate(None, clock=clock)
    assert rate.rate is None  # unpaced until the server objects
    for _ in range(40):  # 20 successes per second for two seconds
        clock.now += 0.05
        rate.on_success()
    rate.on_rate_limited()
    assert rate.rate is None  # a lone 429 (an overloaded replica) only delays its own job
    rate.on_rate_limited()  # a burst: the server's limit is reached
    assert rate.rate == pytest.approx(20 * DECREASE, rel=0.05)
    first = rate.rate
    clock.now += 0.5
    rate.on_rate_limited()
    rate.on_rate_limited()  # within the hold time: one decrease per burst of 429s
    assert rate.rate == first and rate.decreases == 1
    for _ in range(60):  # about three seconds of successes at the lowered rate
        clock.now += 0.05
        rate.on_success()
    assert rate.rate is not None and first + 1.0 < rate.rate < first + 6.0
    clock.now += 5.0
    rate.on_rate_limited()
    rate.on_rate_limited()
    assert rate.rate is not None and rate.decreases == 2  # from the current rate, not demand


def test_adaptive_rate_never_exceeds_the_configured_ceiling() -> None:
    clock = Clock()
    rate = AdaptiveRate(5.0, clock=clock)
    for _ in range(100):
        clock.now += 0.2
        rate.on_success()
    assert rate.rate == 5.0
    rate.on_rate_limited()
    rate.on_rate_limited()
    assert rate.rate == pytest.approx(5.0 * DECREASE)


def test_rate_limits_do_not_spend_the_retry_budget(tmp_path: Path) -> None:
    def behaviour(request: GenerationRequest, number: int) -> Completion:
        if number <= 8:
            raise ProviderError("slow down", retryable=True, status=429, retry_after_s=0.001)
        return Completion(text="a poem\nin two lines", usage=TokenUsage(5, 5))

    provider = use_scripted(behaviour)
    store = prepared_store(tmp_path, poems=1)
    spec = scripted_spec(limits={"max_concurrency": 1, "max_retries": 1})
    report = run_generation(store, [spec], options=FAST)
    assert report.models[0].ok == 1 and report.errors == 0 and len(provider.calls) == 9
    outcomes = [r["outcome"] for r in store.query("SELECT outcome FROM calls ORDER BY call_id")]
    assert outcomes == ["retry"] * 8 + ["ok"]


def test_retry_policy_bounds_rate_limits_and_other_failures_separately() -> None:
    policy = RetryPolicy(max_retries=2, max_rate_limited=5)
    assert not policy.exhausted(Attempts(failures=2, rate_limited=5))
    assert policy.exhausted(Attempts(failures=3))
    assert policy.exhausted(Attempts(rate_limited=6))


@pytest.mark.slow
def test_a_model_file_without_limits_adapts_to_a_rate_limited_server(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=16)
    with OpenAIServer(latency_s=0.05, rate_limit_rps=20, api_key=TEST_KEY) as server:
        # Default limits (8 in flight, no request rate) could send ~150 requests/s.
        spec = openai_spec(server.base_url, max_retries=2).model_copy(
            update={"settings": GenerationSettings(seed=3)}
        )
        report = run_generation(store, [spec], options=dataclasses.replace(FAST, samples=5))
        model = report.models[0]
        assert model.ok == 80 and report.errors == 0
        assert model.rate_decreases >= 1 and model.final_rate_per_s is not None
        rejected = sum(r.fault == "rate_limit" for r in server.generation_requests)
        assert rejected > 0  # the server did push back, and nothing failed because of it
        assert server.duplicate_successes() == []
    assert len(generation_rows(store, spec.name)) == 80


def closed_local_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_refused_local_endpoint_stops_the_model_at_once_naming_the_url(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=6)
    url = f"http://127.0.0.1:{closed_local_port()}/v1"
    spec = openai_spec(url, max_retries=6)
    started = time.monotonic()
    report = run_generation(store, [spec], options=FAST)
    assert time.monotonic() - started < 5.0
    model = report.models[0]
    assert model.not_run is not None and url in model.not_run and "refused" in model.not_run
    assert model.left_pending == 6 and model.errors == 0
    assert generation_rows(store, spec.name) == []  # nothing stored: all 6 jobs stay pending


def test_connection_errors_name_the_endpoint() -> None:
    remote = transport_error("openai", ConnectionError("reset by peer"), None, "https://x.test/v1")
    assert remote.retryable and not remote.fatal and "https://x.test/v1" in str(remote)
    refused = ConnectionRefusedError(111, "Connection refused")
    elsewhere = transport_error("openai", refused, None, "https://x.test/v1")
    assert elsewhere.retryable and not elsewhere.fatal  # a remote host may come back
    local = transport_error("openai", refused, None, "http://localhost:8000/v1")
    assert local.fatal and not local.retryable and "http://localhost:8000/v1" in str(local)


def test_the_sdk_error_for_a_refused_local_port_is_fatal() -> None:
    spec = openai_spec(f"http://127.0.0.1:{closed_local_port()}/v1")
    provider = OpenAICompatibleProvider(spec)

    async def call() -> None:
        try:
            await provider.generate(GenerationRequest(messages=(), settings=GenerationSettings()))
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError) as caught:
        asyncio.run(call())
    assert caught.value.fatal and str(spec.base_url) in str(caught.value)
