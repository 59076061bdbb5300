"""The SDK is imported and its client built before the first timed call (`Provider.warm_up`):
on a loaded machine the import alone takes seconds, which ran out `limits.timeout_s` and logged
the first calls as timeouts (and retried them). Real SDKs against the local wire servers."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers import remote_common
from poemetric.providers.base import ModelSpec, ProviderError
from poemetric.providers.openai_provider import OpenAIProvider
from poemetric.providers.registry import create_provider
from poemetric.store import RunStore
from poemetric.testing.http_base import LocalServer
from poemetric.testing.servers import AnthropicServer, GeminiServer, OpenAIServer

#: The per-request timeout of these models (ample for a local answer on a loaded machine), and
#: a set-up that takes longer than it.
TIMEOUT_S = 3.0
SLOW_SETUP_S = TIMEOUT_S + 1.0

DIALECTS: dict[type[LocalServer], tuple[str, str]] = {
    OpenAIServer: ("openai-compatible", "test-model"),
    AnthropicServer: ("anthropic", "claude-test"),
    GeminiServer: ("google", "gemini-test"),
}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def _spec(server: LocalServer, dialect: type[LocalServer]) -> ModelSpec:
    provider, model = DIALECTS[dialect]
    spec = openai_spec(server.base_url, timeout_s=TIMEOUT_S, max_retries=2)
    return spec.model_copy(update={"provider": provider, "model": model})


def _slow_import(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SDK import takes `SLOW_SETUP_S` (the SDKs are already imported by this process);
    returns the modules imported so."""
    imported: list[str] = []
    real = remote_common.import_sdk

    def slow(spec: ModelSpec, module: str, package: str) -> Any:
        time.sleep(SLOW_SETUP_S)
        imported.append(module)
        return real(spec, module, package)

    monkeypatch.setattr(remote_common, "import_sdk", slow)
    return imported


def _calls(store: RunStore) -> list[tuple[str, Any, Any]]:
    return [
        (r["outcome"], r["http_status"], r["detail"])
        for r in store.query("SELECT * FROM calls ORDER BY call_id")
    ]


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_a_slow_sdk_import_does_not_time_out_the_first_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dialect: type[LocalServer]
) -> None:
    imported = _slow_import(monkeypatch)
    store = prepared_store(tmp_path, poems=2)
    with dialect(api_key=TEST_KEY) as server:
        spec = _spec(server, dialect)
        report = run_generation(store, [spec], options=FAST)
        assert (report.models[0].ok, report.errors) == (2, 0)
        assert len(server.generation_requests) == 2  # none sent again after a timeout
    assert _calls(store) == [("ok", None, None)] * 2  # no "no response within 3 s (timeout)"
    assert report.models[0].transient_retries == 0
    sdk = {"openai-compatible": "openai", "anthropic": "anthropic", "google": "google.genai"}
    assert imported == [sdk[spec.provider]]  # once for the model's run, not once per call


def test_a_slow_client_construction_does_not_time_out_the_first_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = OpenAIProvider.create_client

    def slow(self: OpenAIProvider, api_key: str) -> Any:
        time.sleep(SLOW_SETUP_S)
        return real(self, api_key)

    monkeypatch.setattr(OpenAIProvider, "create_client", slow)
    store = prepared_store(tmp_path, poems=1)
    with OpenAIServer(api_key=TEST_KEY) as server:
        report = run_generation(store, [_spec(server, OpenAIServer)], options=FAST)
        assert (report.models[0].ok, report.errors) == (1, 0)
        assert len(server.generation_requests) == 1
    assert _calls(store) == [("ok", None, None)]


def test_a_request_slower_than_the_timeout_is_still_logged_as_a_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm-up takes nothing from the timeout of the request itself."""
    _slow_import(monkeypatch)
    store = prepared_store(tmp_path, poems=1)
    with OpenAIServer(api_key=TEST_KEY, latency_s=TIMEOUT_S + 1.5) as server:
        spec = openai_spec(server.base_url, timeout_s=TIMEOUT_S, max_retries=0)
        report = run_generation(store, [spec], options=FAST)
        assert (report.models[0].ok, report.errors) == (0, 1)
    [(outcome, status, error)] = _calls(store)
    assert (outcome, status) == ("error", None)
    assert error == f"no response within {TIMEOUT_S:g} s (timeout)"


def test_a_failed_sdk_import_is_stored_with_each_job_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm-up leaves a failure to the calls, which store it with their jobs (no warning
    of an adapter's bug, no crash)."""

    def broken(spec: ModelSpec, module: str, package: str) -> Any:
        raise ProviderError(f"{module} cannot be imported (broken)", retryable=False)

    monkeypatch.setattr(remote_common, "import_sdk", broken)
    store = prepared_store(tmp_path, poems=2)
    with OpenAIServer(api_key=TEST_KEY) as server:
        report = run_generation(store, [_spec(server, OpenAIServer)], options=FAST)
        assert (report.models[0].ok, report.errors) == (0, 2)
        assert server.generation_requests == []
    assert _calls(store) == [("error", None, "openai cannot be imported (broken)")] * 2
    assert report.models[0].warnings == []


def test_the_sdk_import_leaves_the_event_loop_free(monkeypatch: pytest.MonkeyPatch) -> None:
    """The other models' calls go on while one model's SDK is imported (in a worker thread):
    a loop blocked for the import would run out their timeouts in turn."""
    _slow_import(monkeypatch)
    provider = create_provider(openai_spec("http://127.0.0.1:9", timeout_s=TIMEOUT_S))

    async def longest_stall_during_warm_up() -> float:
        ticks = [time.monotonic()]

        async def ticker() -> None:
            while True:
                await asyncio.sleep(0.05)
                ticks.append(time.monotonic())

        tick = asyncio.create_task(ticker())
        try:
            await provider.warm_up()
        finally:
            tick.cancel()
            ticks.append(time.monotonic())
            await provider.aclose()
        return max(later - earlier for earlier, later in itertools.pairwise(ticks))

    assert asyncio.run(longest_stall_during_warm_up()) < SLOW_SETUP_S / 2
