"""A 429 without a usable Retry-After waits until the provider's rate-limit reset headers say
the limits refill (OpenAI's `x-ratelimit-reset-*` durations, Anthropic's
`anthropic-ratelimit-*-reset` timestamps and its unified limits' reset, epoch seconds or a
timestamp); a 529 (overloaded) keeps its backoff: the real SDKs against the local servers."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from provider_support import failure, local_spec
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers.anthropic_provider import AnthropicProvider
from poemetric.providers.openai_provider import OpenAIProvider
from poemetric.providers.rate_limit_reset import parse_duration, rate_limit_reset_seconds
from poemetric.testing import AnthropicServer, Fault, OpenAIServer


@pytest.fixture(autouse=True)
def _api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (TEST_KEY_ENV, "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(name, TEST_KEY)


def rfc3339_in(seconds: float) -> str:
    """An RFC 3339 timestamp `seconds` from now, to the millisecond, as Anthropic writes one."""
    moment = datetime.fromtimestamp(time.time() + seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1s", 1.0),
        ("6m0s", 360.0),
        ("20ms", 0.02),
        ("1m30.5s", 90.5),
        ("1h2m3s", 3723.0),
        ("2m59.56s", 179.56),
        ("0.5s", 0.5),
        (".5s", 0.5),
        ("250us", 0.00025),
        ("250µs", 0.00025),
        ("100ns", 1e-7),
        ("0s", 0.0),
        (" 7s ", 7.0),
        ("12", 12.0),  # a bare number is seconds (Azure and some proxies)
        ("1.5", 1.5),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "text",
    ["", " ", "soon", "s", "-1s", "+1s", "1x", "1s2", "1 s", "1e3", "1e3s", "inf", "nan",
     "1,5s", "1d", "9" * 400, "2025-08-21T12:40:59Z"],
)  # fmt: skip
def test_parse_duration_rejects_malformed_values(text: str) -> None:
    assert parse_duration(text) is None


def test_the_longest_reset_is_taken_and_unreadable_or_past_ones_ignored() -> None:
    headers = {
        "X-RateLimit-Reset-Requests": "20ms",
        "x-ratelimit-reset-tokens": "6m0s",
        "anthropic-ratelimit-requests-reset": "later",
        "anthropic-ratelimit-tokens-reset": "2020-01-01T00:00:00Z",
    }
    assert rate_limit_reset_seconds(headers) == pytest.approx(360.0)
    assert rate_limit_reset_seconds({"x-ratelimit-reset-tokens": "soon"}) is None
    assert rate_limit_reset_seconds({"x-ratelimit-reset-tokens": "0s"}) is None
    assert rate_limit_reset_seconds({"anthropic-ratelimit-tokens-reset": "2020-01-01"}) is None
    assert rate_limit_reset_seconds({"x-ratelimit-limit-tokens": "5000"}) is None
    assert rate_limit_reset_seconds(None) is None


def test_openai_usage_based_token_reset_is_read() -> None:
    headers = {"x-ratelimit-reset-requests": "20ms", "x-ratelimit-reset-tokens_usage_based": "6m0s"}
    assert rate_limit_reset_seconds(headers) == pytest.approx(360.0)
    assert rate_limit_reset_seconds({"X-RateLimit-Reset-Tokens_Usage_Based": "1.5s"}) == 1.5


@pytest.mark.parametrize(
    ("value", "status", "seconds"),
    [
        (lambda: str(int(time.time()) + 600), "rejected", 600.0),  # epoch seconds
        (lambda: f"{time.time() + 90.5:.3f}", None, 90.5),  # no status: read all the same
        (lambda: rfc3339_in(120), "rejected", 120.0),  # an RFC 3339 timestamp
        (lambda: str(int(time.time()) + 600), "allowed", None),  # not the limit that refused
        (lambda: str(int(time.time()) + 600), "allowed_warning", None),
        (lambda: str(int(time.time()) - 5), "rejected", None),  # already past
        (lambda: "30", "rejected", None),  # a duration is no epoch: long past
        (lambda: "soon", "rejected", None),
        (lambda: "9" * 400, "rejected", None),  # not finite
    ],
    ids=["epoch", "no-status", "rfc3339", "allowed", "warning", "past", "small", "text", "huge"],
)
def test_anthropic_unified_reset_is_epoch_seconds_or_a_timestamp(
    value: Callable[[], str], status: str | None, seconds: float | None
) -> None:
    headers = {"anthropic-ratelimit-unified-reset": value()}
    if status is not None:
        headers["anthropic-ratelimit-unified-status"] = status
    assert rate_limit_reset_seconds(headers) == pytest.approx(seconds, abs=1.5)


def test_the_unified_reset_competes_with_the_other_resets() -> None:
    headers = {
        "anthropic-ratelimit-tokens-reset": rfc3339_in(30),
        "anthropic-ratelimit-unified-reset": str(int(time.time()) + 300),
    }
    assert rate_limit_reset_seconds(headers) == pytest.approx(300, abs=1.5)
    headers["anthropic-ratelimit-unified-status"] = "allowed"
    assert rate_limit_reset_seconds(headers) == pytest.approx(30, abs=1.5)


OPENAI_RESETS = {"x-ratelimit-reset-requests": "20ms", "x-ratelimit-reset-tokens": "6m0s"}


@pytest.mark.parametrize(
    ("fault", "retry_after_s"),
    [
        (Fault.rate_limited(None, OPENAI_RESETS), 360.0),  # the longer of the two
        (Fault.rate_limited(2.5, OPENAI_RESETS), 2.5),  # Retry-After, when sent, wins
        (Fault.rate_limited(None, {"x-ratelimit-reset-tokens": "-5s"}), None),  # backoff
        (Fault.rate_limited(None, {"x-ratelimit-reset-tokens_usage_based": "1.5s"}), 1.5),
        (Fault("status", status=503, headers=tuple(OPENAI_RESETS.items())), None),  # not a 429
    ],
)
def test_openai_429_hint_from_reset_headers(fault: Fault, retry_after_s: float | None) -> None:
    with OpenAIServer(faults=[fault]) as server:
        spec = local_spec(server, name="m", provider="openai", model="gpt-4o")
        error = failure(OpenAIProvider(spec))
    assert error.retryable and error.retry_after_s == pytest.approx(retry_after_s)


def assert_reset_in(wait: float | None, seconds: float, since: float) -> None:
    """`wait` is what is left of `seconds` counted from `since` (time.monotonic()): starting the
    server and the SDK takes seconds on a loaded machine, and the wait shrinks meanwhile."""
    elapsed = time.monotonic() - since
    assert wait is not None and seconds - elapsed - 1.5 <= wait <= seconds + 1.5


def test_anthropic_429_hint_from_reset_timestamps() -> None:
    since = time.monotonic()
    resets = {
        "anthropic-ratelimit-requests-reset": rfc3339_in(30),
        "anthropic-ratelimit-tokens-reset": rfc3339_in(90),
        "anthropic-ratelimit-output-tokens-reset": "not a time",
    }
    with AnthropicServer(faults=[Fault.rate_limited(None, resets)]) as server:
        spec = local_spec(server, name="claude", provider="anthropic", model="claude-test")
        error = failure(AnthropicProvider(spec))
    assert error.status == 429
    assert_reset_in(error.retry_after_s, 90, since)


@pytest.mark.parametrize(
    "reset",
    [lambda: str(int(time.time()) + 120), lambda: rfc3339_in(120)],
    ids=["epoch", "rfc3339"],
)
def test_anthropic_429_hint_from_the_unified_reset(reset: Callable[[], str]) -> None:
    """Subscription-style accounts send only the unified headers: the 429 fell back to the
    backoff (a second or so), and was refused again until the window reopened."""
    since = time.monotonic()
    resets = {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": reset(),
    }
    with AnthropicServer(faults=[Fault.rate_limited(None, resets)]) as server:
        spec = local_spec(server, name="claude", provider="anthropic", model="claude-test")
        error = failure(AnthropicProvider(spec))
    assert error.status == 429
    assert_reset_in(error.retry_after_s, 120, since)


def test_anthropic_529_overload_keeps_its_backoff() -> None:
    """A 529 says the API is overloaded, not that this account's quota is spent: the quota's
    reset headers say nothing about when the overload ends, so they are not read (a
    Retry-After, when sent, still is)."""
    resets = {
        "anthropic-ratelimit-tokens-reset": rfc3339_in(90),
        "anthropic-ratelimit-unified-reset": str(int(time.time()) + 600),
    }
    overloaded = Fault("status", status=529, message="overloaded", headers=tuple(resets.items()))
    told = Fault("status", status=529, retry_after_s=3, headers=tuple(resets.items()))
    with AnthropicServer(faults=[overloaded, told]) as server:
        spec = local_spec(server, name="claude", provider="anthropic", model="claude-test")
        first, second = failure(AnthropicProvider(spec)), failure(AnthropicProvider(spec))
    assert (first.status, first.retryable, first.retry_after_s) == (529, True, None)
    assert (second.status, second.retry_after_s) == (529, 3)


def test_runner_waits_for_openai_reset_durations(tmp_path: Path) -> None:
    """Without Retry-After the 429 was retried after FAST's backoff (at most 0.05 s)."""
    store = prepared_store(tmp_path, poems=1)
    resets = {"x-ratelimit-reset-requests": "200ms", "x-ratelimit-reset-tokens": "20ms"}
    with OpenAIServer(faults=[Fault.rate_limited(None, resets)], api_key=TEST_KEY) as server:
        report = run_generation(store, [openai_spec(server.base_url)], options=FAST)
        first, second = server.generation_requests
    assert (report.models[0].ok, report.errors) == (1, 0)
    assert 0.2 <= second.received_at - first.received_at < 1.5
    outcomes = [(r["outcome"], r["http_status"]) for r in store.query("SELECT * FROM calls")]
    assert outcomes == [("retry", 429), ("ok", None)]


def test_runner_waits_for_anthropic_reset_timestamps(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=1)
    latest = rfc3339_in(0.4)
    resets = {
        "anthropic-ratelimit-requests-reset": rfc3339_in(0.1),
        "anthropic-ratelimit-input-tokens-reset": latest,
    }
    with AnthropicServer(faults=[Fault.rate_limited(None, resets)], api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url).model_copy(
            update={"provider": "anthropic", "model": "claude-test"}
        )
        report = run_generation(store, [spec], options=FAST)
        _, second = server.generation_requests
    assert (report.models[0].ok, report.errors) == (1, 0)
    reset_at = datetime.fromisoformat(latest).timestamp()
    assert reset_at - 0.01 <= second.received_at < reset_at + 1.5
    outcomes = [(r["outcome"], r["http_status"]) for r in store.query("SELECT * FROM calls")]
    assert outcomes == [("retry", 429), ("ok", None)]


def test_runner_waits_for_the_anthropic_unified_reset(tmp_path: Path) -> None:
    """Epoch seconds, as Anthropic sends them (whole seconds: the wait is 1 to 2 s here)."""
    store = prepared_store(tmp_path, poems=1)
    reset_at = math.floor(time.time()) + 2
    resets = {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": str(reset_at),
    }
    with AnthropicServer(faults=[Fault.rate_limited(None, resets)], api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url).model_copy(
            update={"provider": "anthropic", "model": "claude-test"}
        )
        report = run_generation(store, [spec], options=FAST)
        _, second = server.generation_requests
    assert (report.models[0].ok, report.errors) == (1, 0)
    assert reset_at - 0.01 <= second.received_at < reset_at + 1.5
