"""`--batch` keeps each batch within its provider's limits (`BatchCapable.max_batch_requests`,
`max_batch_bytes`): Gemini's inline batch create must stay under 20 MB in all, which 10,000
judge requests (about 2.9 kB each on the demo) went past. Real SDKs against the local servers,
with the limits scaled down."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from provider_support import chat_request, local_spec
from test_batch_killed_submission import MODEL_FILE
from test_runner_batch_faults import BATCH, spec_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers.anthropic_provider import AnthropicProvider
from poemetric.providers.base import ResponseSchema
from poemetric.providers.google_provider import GoogleProvider
from poemetric.providers.openai_provider import OpenAICompatibleProvider
from poemetric.testing.http_base import LocalServer
from poemetric.testing.servers import AnthropicServer, GeminiServer, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def _sent_sizes(server: LocalServer) -> list[int]:
    """The bytes of each batch's requests as the server received them: Gemini's whole create
    body, OpenAI's input file, Anthropic's items as compact JSON."""
    if isinstance(server, GeminiServer):
        return server.batch_create_bytes
    if isinstance(server, OpenAIServer):
        return [len(f.content) for f in server.files.values() if f.purpose == "batch"]
    return [
        len(json.dumps(r.body["requests"], separators=(",", ":")).encode())
        for r in server.requests
        if r.method == "POST" and r.path.endswith("/messages/batches")
    ]


@pytest.mark.parametrize(
    ("server_type", "adapter"),
    [
        (GeminiServer, GoogleProvider),
        (OpenAIServer, OpenAICompatibleProvider),
        (AnthropicServer, AnthropicProvider),
    ],
    ids=["gemini", "openai", "anthropic"],
)
def test_jobs_past_the_byte_limit_go_in_several_batches_each_within_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server_type: type[LocalServer], adapter: type
) -> None:
    # Six generation requests of about 380 bytes each: about 2.4 kB in one batch.
    monkeypatch.setattr(adapter, "max_batch_bytes", 1000)
    store = prepared_store(tmp_path, poems=6)
    with server_type(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        if isinstance(server, GeminiServer):
            server.max_request_bytes = 1200  # room for the create's envelope, as 19 MB of 20
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
    assert report.models[0].ok == 6, report.models[0].not_run
    sizes = _sent_sizes(server)
    assert len(sizes) >= 3 and max(sizes) <= (1200 if server.api == "gemini" else 1000), sizes
    rows = store.query("SELECT status FROM batches")
    assert len(rows) == len(sizes) and {row["status"] for row in rows} == {"collected"}


def test_a_request_past_the_byte_limit_goes_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GoogleProvider, "max_batch_bytes", 300)  # each request is larger
    store = prepared_store(tmp_path, poems=3)
    with GeminiServer(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
    assert report.models[0].ok == 3
    assert len(server.batch_create_bytes) == 3


def test_batch_max_items_and_the_provider_count_limit_both_bound_a_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GoogleProvider, "max_batch_requests", 2)
    store = prepared_store(tmp_path, poems=5)
    options = dataclasses.replace(BATCH, batch_max_items=3)
    with GeminiServer(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=options)
    assert report.models[0].ok == 5
    counts = [
        len(r.body["batch"]["inputConfig"]["requests"]["requests"])
        for r in server.requests
        if r.path.endswith(":batchGenerateContent")
    ]
    assert counts == [2, 2, 1]


def test_gemini_counts_no_fewer_bytes_than_its_sdk_sends() -> None:
    """Each request's estimate is at least what it adds to the batch create on the wire
    (non-ASCII text, a system message, a response schema, thinking settings)."""
    schema = ResponseSchema("score", {"type": "object", "properties": {"n": {"type": "integer"}}})
    items = [
        ("k1", chat_request(("system", "Sé breve — « un poème »"), ("user", "Ode à l'été ☀"))),
        ("k2", dataclasses.replace(chat_request(("user", "x" * 3000)), response_schema=schema)),
        ("k3", chat_request(("user", "ünïcödé " * 200), reasoning_budget_tokens=256)),
    ]
    with GeminiServer(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        spec = local_spec(
            server, name="g", provider="google", model="gemini-test", api_key_env=TEST_KEY_ENV
        )
        provider = GoogleProvider(spec)
        estimates = [provider.batch_item_bytes(key, request) for key, request in items]

        async def submit_alone_then_together() -> None:
            for item in items:
                await provider.submit_batch([item])
            await provider.submit_batch(items)
            await provider.aclose()

        asyncio.run(submit_alone_then_together())
    *alone, together = server.batch_create_bytes
    envelope = 200  # the create's own fields (display name, nesting): 19 MB leaves 1 MB
    assert all(size <= estimate + envelope for size, estimate in zip(alone, estimates, strict=True))
    assert together <= sum(estimates) + envelope, (together, estimates)
    assert sum(estimates) - together < 400  # and not much more


def test_batch_requests_sizes_the_batches_of_the_command(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """`batch_max_items` (10,000) could not be set from the command line: a batch refused whole
    (OpenAI's enqueued-token limit) could not be made smaller, nor OpenAI's 50,000 reached.
    `--batch-requests N` sets it; without `--batch` it is refused, not ignored."""
    from typer.testing import CliRunner

    from poemetric.cli import app
    from poemetric.store import RunStore

    run = tmp_path / "run"
    prepared_store(run, poems=5).close()
    with OpenAIServer(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        user_model("generators", "m", MODEL_FILE.format(
            provider="openai-compatible", model="test-model", base_url=server.base_url,
            key_env=TEST_KEY_ENV))  # fmt: skip
        command = ["generate", "--run", str(run), "--models", "m", "--no-progress"]
        alone = CliRunner().invoke(app, [*command, "--batch-requests", "2"])
        assert alone.exit_code == 2 and not server.requests, alone.output
        assert "--batch-requests sizes the batches of --batch: add --batch" in alone.output
        ran = CliRunner().invoke(app, [*command, "--batch", "--batch-requests", "2"])
        assert ran.exit_code == 0, ran.output
    with RunStore(run) as store:
        sizes = [len(json.loads(row["request_keys"])) for row in store.query(
            "SELECT request_keys FROM batches ORDER BY created_at")]  # fmt: skip
        assert store.count("generations", "author = 'm' AND status = 'ok'") == 5
    assert sizes == [2, 2, 1]


def test_gemini_builds_each_request_once_and_says_why_a_failed_batch_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each request was built twice, to size it and to send it (about 1 ms each: 10 s per
    10,000); a batch failed whole left its requests "returned no result" with no reason, and
    its row counted 0 of 0 requests while it ran."""
    built: list[str] = []
    build = GoogleProvider._inlined

    def counted_build(self: GoogleProvider, custom_id: str, request: object) -> object:
        built.append(custom_id)
        return build(self, custom_id, request)  # type: ignore[arg-type]

    monkeypatch.setattr(GoogleProvider, "_inlined", counted_build)
    monkeypatch.setattr(GoogleProvider, "max_batch_bytes", 1000)  # about 2 requests a batch
    store = prepared_store(tmp_path, poems=6)
    with GeminiServer(api_key=TEST_KEY, batch_polls_in_progress=1) as server:
        server.batch_failure = (8, "Batch quota exceeded.")
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
    batches = len(server.batch_create_bytes)
    assert batches >= 3 and report.models[0].ok == 0
    # each request built once, and the first of each later batch once more (sized as the one
    # that did not fit the batch before it)
    assert len(built) == 6 + batches - 1, built
    errors = store.query("SELECT error FROM generations WHERE author = 'remote'")
    assert len(errors) == 6
    assert all(
        "(the batch failed: RESOURCE_EXHAUSTED (code 8): Batch quota exceeded.)" in row["error"]
        for row in errors
    ), errors[0]
    details = [json.loads(row["detail"]) for row in store.query("SELECT detail FROM batches")]
    assert {d["error"] for d in details} == {"RESOURCE_EXHAUSTED (code 8): Batch quota exceeded."}
    assert all(d["total"] > 0 for d in details)
