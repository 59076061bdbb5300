"""The runner with the real SDKs (`openai`, `anthropic`, `google-genai`) against the local
wire-protocol servers."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    generation_rows,
    openai_spec,
    prepared_store,
)

from poemetric.generation.stage import run_generation
from poemetric.providers.base import ModelSpec
from poemetric.runner import RunnerOptions
from poemetric.store import RunStore
from poemetric.testing.exchange import ChatCall, HttpAnswer, Reply
from poemetric.testing.http_base import LocalServer
from poemetric.testing.servers import (
    AnthropicServer,
    Fault,
    FaultPlan,
    GeminiServer,
    OpenAIServer,
)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_transient_faults_all_end_ok(tmp_path: Path) -> None:
    faults = [
        Fault.rate_limited(0.3),
        Fault.server_error(500),
        Fault.server_error(503),
        Fault.slow(2.5),
        Fault.truncated(),
        Fault.disconnect(),
        Fault.invalid_json(),
    ]
    store = prepared_store(tmp_path, poems=6)
    with OpenAIServer(faults=faults, api_key=TEST_KEY) as server:
        # The client timeout must trip on the slow fault only: 2 s leaves a loaded CI machine
        # ample time for the instant answers (1 s gave a spurious eighth retry at load 9).
        spec = openai_spec(server.base_url, timeout_s=2.0, max_concurrency=2)
        report = run_generation(store, [spec], options=FAST)
        assert report.models[0].ok == 6 and report.errors == 0
        rows = generation_rows(store, spec.name)
        assert len(rows) == 6 and {r["status"] for r in rows} == {"ok"}
        assert all(r["response_text"].startswith("Echo: Write a poem") for r in rows)
        # Every injected fault was retried; the 429's Retry-After was honoured.
        outcomes = store.query("SELECT outcome, http_status, detail FROM calls")
        assert sum(r["outcome"] == "retry" for r in outcomes) == len(faults)
        assert {r["http_status"] for r in outcomes} >= {429, 500, 503}
        assert any("timeout" in (r["detail"] or "") for r in outcomes)
        # No secret anywhere in the store.
        dump = "\n".join(store.conn.iterdump())
        assert TEST_KEY not in dump
        # Apart from the answer the client gave up on (slow), no prompt was answered twice.
        answered = [r for r in server.successful_generations if r.fault != "slow"]
        assert len(answered) == 6


def test_rate_limit_retry_after_is_honoured(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=1)
    with OpenAIServer(faults=[Fault.rate_limited(0.5)], api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url)
        run_generation(store, [spec], options=FAST)
        first, second = server.generation_requests
        assert second.received_at - first.received_at >= 0.5


def test_permanent_error_kept_and_retried_next_run(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=3)
    with OpenAIServer(faults=[Fault.client_error(400, "bad field")], api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=1)
        report = run_generation(store, [spec], options=FAST)
        assert (report.models[0].ok, report.errors) == (2, 1)
        assert len(server.generation_requests) == 3  # a 400 is not retried
        failed = [r for r in generation_rows(store, spec.name) if r["status"] == "error"]
        # The status once: it was "HTTP 400: openai-compatible: HTTP 400: Error code: 400 - ...".
        assert [r["error"] for r in failed] == ["openai-compatible: HTTP 400: bad field"]

        again = run_generation(store, [spec], options=FAST)
        assert (again.models[0].already_done, again.models[0].called) == (2, 1)
        rows = generation_rows(store, spec.name)
        assert {r["status"] for r in rows} == {"ok"} and len(rows) == 3
        assert len(server.generation_requests) == 4 and server.duplicate_successes() == []


CONTEXT_ERRORS = {
    "openai": "This model's maximum context length is 4096 tokens. However, you requested 4200 "
    "tokens (104 in the messages, 4096 in the completion).",
    "anthropic": "prompt is too long: 210000 tokens > 200000 maximum",
    # Gemini API (AI Studio and Vertex AI) and Vertex AI's other wordings.
    "google": "The input token count (1200293) exceeds the maximum number of tokens allowed "
    "(1048576).",
    "google-vertex": "Unable to submit request because the input token count is 1251952 but "
    "model only supports up to 1048576. Reduce the input token count and try again.",
}


@pytest.mark.parametrize("protocol", sorted(CONTEXT_ERRORS))
def test_a_context_overflow_400_says_what_to_change(tmp_path: Path, protocol: str) -> None:
    """A 400 for a prompt plus max_tokens beyond the context was stored with the server's
    message only: the row and the first-error line now say what to lower or raise."""
    server_class = {"openai": OpenAIServer, "anthropic": AnthropicServer}.get(
        protocol, GeminiServer
    )
    store = prepared_store(tmp_path, poems=1)
    fault = Fault.client_error(400, CONTEXT_ERRORS[protocol])
    with server_class(faults=[fault], api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url)
        if protocol == "anthropic":
            spec = spec.model_copy(update={"provider": "anthropic", "model": "claude-test"})
        elif server_class is GeminiServer:  # the real google-genai SDK: 400 INVALID_ARGUMENT
            spec = gemini_spec(server.base_url)
        report = run_generation(store, [spec], options=FAST)
        assert report.errors == 1 and len(server.generation_requests) == 1  # not retried
        (row,) = generation_rows(store, spec.name)
    assert row["status"] == "error" and CONTEXT_ERRORS[protocol] in row["error"]
    if protocol == "openai":  # the prompt plus max_tokens: lowering max_tokens helps
        assert "settings.max_tokens" in row["error"] and "--max-model-len" in row["error"]
    else:  # Anthropic and Gemini count the prompt alone: lowering max_tokens would not help
        assert "prompt alone exceeds" in row["error"] and "longer context" in row["error"]
        assert "lower `settings.max_tokens`" not in row["error"]
    assert report.models[0].first_error == row["error"]


def test_retries_exhausted_leave_an_error_row(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=1)
    with OpenAIServer(faults=[Fault.server_error(503)] * 3, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_retries=2)
        report = run_generation(store, [spec], options=FAST)
        assert report.errors == 1 and len(server.generation_requests) == 3
        (row,) = generation_rows(store, spec.name)
        assert row["status"] == "error" and "503" in row["error"]


@pytest.mark.parametrize("batch", [False, True])
def test_anthropic_protocol_with_overload_and_batches(tmp_path: Path, batch: bool) -> None:
    from poemetric.testing.servers import AnthropicServer

    store = prepared_store(tmp_path, poems=3)
    faults = [Fault.overloaded(), Fault.rate_limited(0.1)]
    with AnthropicServer(faults=faults, api_key=TEST_KEY, batch_polls_in_progress=1) as server:
        spec = ModelSpec.model_validate(
            {
                **openai_spec(server.base_url, name="claude").model_dump(),
                "provider": "anthropic",
                "model": "claude-test",
            }
        )
        options = dataclasses.replace(FAST, batch=batch, batch_poll_s=0.01)
        report = run_generation(store, [spec], options=options)
        model = report.models[0]
        assert model.ok == 3 and report.errors == 0
        assert model.mode == ("batch-api" if batch else "async")
        rows = generation_rows(store, "claude")
        assert {r["status"] for r in rows} == {"ok"} and all(r["poem"] for r in rows)
        assert all((r["batch_id"] is not None) == batch for r in rows)


def test_a_key_echoed_in_a_response_is_stored_nowhere(tmp_path: Path) -> None:
    """The result row (raw response, text) is redacted like the cache entry."""
    store = prepared_store(tmp_path, poems=2)
    with OpenAIServer(
        lambda call: f"A poem\nwith the key {TEST_KEY}\n", api_key=TEST_KEY
    ) as server:
        spec = openai_spec(server.base_url)
        report = run_generation(store, [spec], options=FAST)
        assert report.models[0].ok == 2
    rows = generation_rows(store, spec.name)
    assert all("***" in r["response_text"] and "***" in r["poem"] for r in rows)
    assert TEST_KEY not in "\n".join(store.conn.iterdump())


@pytest.mark.parametrize("batch", [False, True], ids=["async", "batch"])
def test_a_refused_key_stops_the_model_and_leaves_its_jobs_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: bool
) -> None:
    """A wrong key made one 'HTTP 401: openai-compatible: HTTP 401: ...' error row per job, each
    a request; now the first 401 stops the model and its jobs wait for a run with the right key."""
    wrong = "sk-wrong-key-9876543210"
    monkeypatch.setenv(TEST_KEY_ENV, wrong)
    store = prepared_store(tmp_path, poems=4)
    options = dataclasses.replace(FAST, batch=batch, batch_poll_s=0.01)
    with OpenAIServer(api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=1)
        report = run_generation(store, [spec], options=options)
        assert len(server.requests) == 1  # the first refusal; nothing sent after it
        (model,) = report.models
        assert (model.errors, model.called, model.left_pending) == (0, 0, 4)
        assert model.auth_status == 401 and report.incomplete
        assert model.not_run == f"authentication failed (HTTP 401): check {TEST_KEY_ENV}"
        assert generation_rows(store, spec.name) == []  # pending, not errors
        assert wrong not in "\n".join(store.conn.iterdump())

        rerun_with_the_right_key(store, spec, options, server, monkeypatch)


def rerun_with_the_right_key(
    store: RunStore,
    spec: ModelSpec,
    options: RunnerOptions,
    server: LocalServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a refused key: the rerun with the right one pays each of the 4 jobs exactly once."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    again = run_generation(store, [spec], options=options)
    assert again.models[0].ok == 4 and not again.incomplete
    rows = generation_rows(store, spec.name)
    assert len(rows) == 4 and {r["status"] for r in rows} == {"ok"}
    assert server.duplicate_successes() == []


def gemini_spec(base_url: str) -> ModelSpec:
    return ModelSpec.model_validate(
        {
            **openai_spec(base_url, name="gemini", max_concurrency=1).model_dump(),
            "provider": "google",
            "model": "gemini-test",
        }
    )


@pytest.mark.parametrize("batch", [False, True], ids=["async", "batch"])
def test_a_key_gemini_refuses_with_400_stops_the_model_and_leaves_its_jobs_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: bool
) -> None:
    """Gemini answers a wrong key with 400 INVALID_ARGUMENT (reason API_KEY_INVALID), not 401:
    it made one 'google: HTTP 400: INVALID_ARGUMENT: API key not valid...' error row per job."""
    monkeypatch.setenv(TEST_KEY_ENV, "AIza-wrong-key-9876543210")
    store = prepared_store(tmp_path, poems=4)
    options = dataclasses.replace(FAST, batch=batch, batch_poll_s=0.01)
    with GeminiServer(api_key=TEST_KEY) as server:
        spec = gemini_spec(server.base_url)
        report = run_generation(store, [spec], options=options)
        assert [r.status for r in server.requests] == [400]  # nothing sent after the refusal
        (model,) = report.models
        assert (model.errors, model.called, model.left_pending) == (0, 0, 4)
        assert model.auth_status == 400 and report.incomplete
        assert model.not_run == f"authentication failed (HTTP 400): check {TEST_KEY_ENV}"
        assert generation_rows(store, spec.name) == []  # pending, not errors

        rerun_with_the_right_key(store, spec, options, server, monkeypatch)


def test_an_ordinary_gemini_400_stays_an_error_row(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=3)
    with GeminiServer(faults=[Fault.client_error(400, "bad field")], api_key=TEST_KEY) as server:
        spec = gemini_spec(server.base_url)
        report = run_generation(store, [spec], options=FAST)
        (model,) = report.models
        assert (model.ok, model.errors, model.auth_status) == (2, 1, None)
        assert not model.not_run and len(server.generation_requests) == 3
        failed = [r for r in generation_rows(store, spec.name) if r["status"] == "error"]
        assert [r["error"] for r in failed] == ["google: HTTP 400: INVALID_ARGUMENT: bad field"]


@pytest.mark.parametrize("dialect", [OpenAIServer, AnthropicServer, GeminiServer])
def test_a_429_with_an_unreadable_retry_after_is_retried(
    tmp_path: Path, dialect: type[LocalServer]
) -> None:
    """A proxy's `Retry-After: soon` is no hint, not a failure: the 429 is retried (it ended
    as a non-retryable 'ValueError: Invalid date value' error row)."""

    class Server(dialect):  # type: ignore[valid-type,misc]
        def error_answer(
            self,
            status: int,
            message: str,
            headers: dict[str, str] | None = None,
            *,
            code: str | None = None,
        ) -> HttpAnswer:
            answer = super().error_answer(status, message, headers, code=code)
            answer.headers.clear()
            answer.headers["Retry-After"] = "soon"
            return answer

    provider, model = {
        OpenAIServer: ("openai-compatible", "test-model"),
        AnthropicServer: ("anthropic", "claude-test"),
        GeminiServer: ("google", "gemini-test"),
    }[dialect]
    store = prepared_store(tmp_path, poems=1)
    with Server(faults=[Fault.rate_limited(0.1)], api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url).model_copy(
            update={"provider": provider, "model": model}
        )
        report = run_generation(store, [spec], options=FAST)
        assert (report.models[0].ok, report.errors) == (1, 0)
        assert len(server.generation_requests) == 2
    outcomes = [(r["outcome"], r["http_status"]) for r in store.query("SELECT * FROM calls")]
    assert outcomes == [("retry", 429), ("ok", None)]


@pytest.mark.parametrize("batch", [False, True], ids=["async", "batch"])
def test_a_used_up_quota_stops_the_model_and_leaves_its_jobs_pending(
    tmp_path: Path, batch: bool
) -> None:
    """OpenAI's 429 `insufficient_quota` (no credits left, a spending limit reached) was taken
    for a rate limit: each job sent again up to 100 times, then stored as an error. Now the first
    one stops the model, its jobs wait for a run after the billing is fixed, and it says why."""
    store = prepared_store(tmp_path, poems=4)
    options = dataclasses.replace(FAST, batch=batch, batch_poll_s=0.01)
    quota = FaultPlan(random_faults=[(Fault.quota_exceeded(), 1.0)])
    with OpenAIServer(faults=quota, batch_faults=quota, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=1)
        report = run_generation(store, [spec], options=options)
        sent = [r for r in server.requests if r.method == "POST"]
        assert len(sent) == (2 if batch else 1)  # batch: the file upload, then the refused create
        (model,) = report.models
        assert (model.errors, model.left_pending) == (0, 4) and report.incomplete
        assert model.not_run is not None and "add credits or raise the limit" in model.not_run
        assert generation_rows(store, spec.name) == []  # pending, not errors
        if not batch:  # the refused call is in the call log, as every answered call is
            logged = [(r["outcome"], r["http_status"]) for r in store.query("SELECT * FROM calls")]
            assert logged == [("error", 429)]


@pytest.mark.parametrize("batch", [False, True], ids=["async", "batch"])
def test_a_used_up_gemini_daily_quota_stops_the_model(tmp_path: Path, batch: bool) -> None:
    """Gemini's free tier, its requests per day used up (429 RESOURCE_EXHAUSTED, a QuotaFailure
    naming a per-day quota): each job was sent again after the answer's retryDelay, up to 100
    times, though nothing changes before midnight Pacific time. The first one stops the model."""
    store = prepared_store(tmp_path, poems=4)
    options = dataclasses.replace(FAST, batch=batch, batch_poll_s=0.01)
    daily = Fault.quota_failure("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "20", 0.01)
    quota = FaultPlan(random_faults=[(daily, 1.0)])
    with GeminiServer(faults=quota, batch_faults=quota, api_key=TEST_KEY) as server:
        data = openai_spec(server.base_url, max_concurrency=1).model_dump()
        spec = ModelSpec.model_validate({**data, "provider": "google", "model": "gemini-test"})
        report = run_generation(store, [spec], options=options)
        assert len([r for r in server.requests if r.method == "POST"]) == 1
    (model,) = report.models
    assert (model.errors, model.left_pending) == (0, 4) and report.incomplete
    assert model.not_run is not None and "reset at midnight Pacific time" in model.not_run
    assert generation_rows(store, spec.name) == []  # pending, not errors


def test_answers_without_token_counts_are_stored(tmp_path: Path) -> None:
    """A compatible server whose `usage` has no `completion_tokens` ended the whole stage with
    "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'", storing nothing."""

    class Server(OpenAIServer):
        def render_completion(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
            return {**super().render_completion(call, reply), "usage": {"prompt_tokens": 3}}

    store = prepared_store(tmp_path, poems=2)
    with Server(api_key=TEST_KEY) as server:
        report = run_generation(store, [openai_spec(server.base_url)], options=FAST)
    assert report.models[0].ok == 2
    assert [row["status"] for row in generation_rows(store, "remote")] == ["ok", "ok"]


@pytest.mark.parametrize("batch", [False, True], ids=["async", "batch"])
def test_anthropic_answers_without_token_counts_are_stored(tmp_path: Path, batch: bool) -> None:
    """An Anthropic-compatible server whose `usage` has no `output_tokens`: each answer, paid
    for, was an error row ("returned a Completion whose usage.output_tokens is None") that every
    later run bought again."""

    class Server(AnthropicServer):
        def render_message(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
            return {**super().render_message(call, reply), "usage": {"input_tokens": 3}}

    store = prepared_store(tmp_path, poems=2)
    with Server(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        spec = ModelSpec.model_validate(
            {
                **openai_spec(server.base_url, name="claude").model_dump(),
                "provider": "anthropic",
                "model": "claude-test",
            }
        )
        options = dataclasses.replace(FAST, batch=batch, batch_poll_s=0.01)
        report = run_generation(store, [spec], options=options)
    assert report.models[0].ok == 2 and report.errors == 0
    assert [row["status"] for row in generation_rows(store, "claude")] == ["ok", "ok"]
