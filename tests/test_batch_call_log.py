"""`--batch`'s own requests in the call log: a submission refused with 401 (any error) left no
row in the `calls` table, which logged jobs only, although docs/running.md says every call
attempt is logged there. Submissions (accepted, retried, refused), status polls that fail and
results downloads now have rows (the batch id, or `-`, as `cache_key`; what was asked in
`detail`), keys redacted as everywhere. The real CLI and SDKs against the local servers, faults
injected into the batch requests (`batch_faults`), the log read with `poemetric export calls`."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pytest
from test_runner_batch_faults import BATCH, spec_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.testing.http_base import LocalServer
from poemetric.testing.servers import AnthropicServer, Fault, GeminiServer, OpenAIServer


def exported_calls(run: Path) -> tuple[list[dict[str, str]], str]:
    """`poemetric export calls`: its rows, and the file as written."""
    result = CliRunner().invoke(app, ["export", "calls", "--run", str(run), "--to", str(run)])
    assert result.exit_code == 0, result.output
    text = (run / "calls.csv").read_text()
    return list(csv.DictReader(text.splitlines())), text


@pytest.mark.parametrize(
    ("server_type", "provider", "status"),
    [
        (OpenAIServer, "openai", "401"),
        (AnthropicServer, "anthropic", "401"),
        (GeminiServer, "google", "400"),
    ],
    ids=["openai", "anthropic", "gemini"],
)
def test_a_refused_batch_submission_is_in_the_call_log_without_the_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    user_model: Callable[..., Path],
    server_type: Callable[..., LocalServer],
    provider: str,
    status: str,
) -> None:
    wrong = "sk-wrong-fedcba9876543210"
    with server_type(api_key="sk-right-0123456789abcdef") as server:
        user_model(
            "generators",
            "my-model",
            f"name: my-model\nprovider: {provider}\nmodel: some-model\n"
            f"base_url: {server.base_url}\napi_key_env: MY_KEY\n",
        )
        monkeypatch.setenv("MY_KEY", wrong)
        run = tmp_path / "run"
        args = ["generate", "--run", str(run), "--models", "my-model", "--limit", "2", "--batch"]
        result = CliRunner().invoke(app, args, env={"COLUMNS": "120"})
    assert result.exit_code == 1, result.output
    assert (
        "authentication failed" in result.output and "2 jobs left for the next run" in result.output
    )
    rows, text = exported_calls(run)
    assert [(r["cache_key"], r["outcome"], r["http_status"]) for r in rows] == [
        ("-", "batch-error", status)
    ], text
    assert rows[0]["detail"].startswith("batch submission (2 requests): ")
    assert rows[0]["provider"] == provider and float(rows[0]["latency_s"]) > 0
    assert wrong not in text and "fedcba9876543210" not in text


def test_a_batch_that_fails_then_succeeds_is_logged_request_by_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retried submission, accepted submission, failed poll, results download, and one row per
    job as for direct calls; an error that quotes the key is logged without it."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = prepared_store(tmp_path, poems=3)
    faults = [
        Fault.client_error(429, f"slow down, key {TEST_KEY}"),  # submission: retried
        None,  # submission accepted
        Fault.server_error(500),  # poll: retried
    ]
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults, batch_polls_in_progress=1) as server:
        report = run_generation(store, [spec_for(server, "batched")], options=BATCH)
    assert report.models[0].ok == 3 and not report.incomplete
    (batch_id,) = report.models[0].batch_ids
    jobs = {r["cache_key"] for r in generation_rows(store, "batched")}
    store.close()
    rows, text = exported_calls(tmp_path)
    assert TEST_KEY not in text
    batch_rows = [
        (r["cache_key"], r["attempt"], r["outcome"], r["http_status"], r["detail"])
        for r in rows
        if r["cache_key"] not in jobs
    ]
    assert batch_rows == [
        ("-", "1", "batch-retry", "429", "batch submission (3 requests): openai-compatible: HTTP 429: "
         "slow down, key ***"),
        (batch_id, "2", "batch-ok", "", "batch submission (3 requests): accepted"),
        (batch_id, "1", "batch-retry", "500", "batch status poll: openai-compatible: HTTP 500: "
         "injected server error 500"),
        (batch_id, "1", "batch-ok", "", "batch results download: 3 results"),
    ], text  # fmt: skip
    assert sorted(r["outcome"] for r in rows if r["cache_key"] in jobs) == ["ok"] * 3
