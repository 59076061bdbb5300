"""Gemini over aiohttp: a connection never made is a request never sent.

Where aiohttp is installed (the `vllm` extra and `datasets` install it) google-genai's async
client speaks aiohttp, whose unknown host is an `aiohttp.ClientConnectorDNSError`. It was not
counted as "never sent", so a batch submission that failed that way was taken as possibly
created: its jobs were held back from every later run. Marked `aiohttp`: needs aiohttp, which
the dev extra installs (skipped without it, failed under CI).
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from provider_support import failure
from test_runner_batch_faults import BATCH, spec_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers.google_provider import GoogleProvider
from poemetric.providers.remote_errors import never_sent
from poemetric.testing.servers import GeminiServer

pytestmark = pytest.mark.aiohttp

UNKNOWN_HOST = "gemini-down.invalid"


@pytest.fixture(autouse=True)
def _unknown_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """`gemini-down.invalid` does not resolve, as an unknown host does (answered here rather
    than by the machine's resolver, which may be slow or absent); other names resolve as ever."""
    resolve = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == UNKNOWN_HOST:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_an_unknown_host_over_aiohttp_was_never_sent() -> None:
    import aiohttp
    from google.genai import _api_client

    assert _api_client.has_aiohttp  # the SDK speaks aiohttp: what this test is about
    with GeminiServer(api_key=TEST_KEY) as server:
        spec = spec_for(server, "gemini")
    down = spec.model_copy(update={"base_url": f"http://{UNKNOWN_HOST}"})
    error = failure(GoogleProvider(down))
    assert isinstance(error.__cause__, aiohttp.ClientConnectorDNSError)
    assert error.retryable and never_sent(error)


def test_a_batch_submission_to_an_unknown_host_holds_no_jobs_back(tmp_path: Path) -> None:
    """The failed submission leaves no "may have been accepted" record: the next run, the host
    known again, submits the jobs."""
    store = prepared_store(tmp_path, poems=3)
    with GeminiServer(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        spec = spec_for(server, "gemini", max_retries=0)
        down = spec.model_copy(update={"base_url": f"http://{UNKNOWN_HOST}"})
        report = run_generation(store, [down], options=BATCH)
        (model,) = report.models
        assert model.left_pending == 3 and model.not_run is not None
        assert "may have accepted" not in model.not_run

        again = run_generation(store, [spec], options=BATCH)
        assert again.models[0].ok == 3 and not again.incomplete
        assert len(server.batches) == 1
    assert [r["status"] for r in generation_rows(store, "gemini")] == ["ok"] * 3
