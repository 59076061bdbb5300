"""`--batch` when the batch API itself fails: submissions and status polls are retried like jobs,
and one that fails for good stops its model alone, jobs pending, with one line. The real SDKs
against the local servers, faults injected into the batch requests (`batch_faults`)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
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
from poemetric.runner.report import StageReport
from poemetric.testing.http_base import LocalServer
from poemetric.testing.servers import AnthropicServer, Fault, GeminiServer, OpenAIServer

BATCH = dataclasses.replace(FAST, batch=True, batch_poll_s=0.01, batch_poll_max_s=0.01)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def spec_for(server: LocalServer, name: str, **limits: int) -> ModelSpec:
    provider, model = {
        "openai": ("openai-compatible", "test-model"),
        "anthropic": ("anthropic", "claude-test"),
        "gemini": ("google", "gemini-test"),
    }[server.api]
    data = openai_spec(server.base_url, name=name, **limits).model_dump()
    return ModelSpec.model_validate({**data, "provider": provider, "model": model})


def submissions(server: LocalServer) -> list[str]:
    """Paths of the batch submissions the server received (answered or not)."""
    return [
        r.path
        for r in server.requests
        if r.method == "POST" and server.is_batch_control(r.method, r.path)
    ]


def printed(report: StageReport) -> str:
    console = Console(record=True, width=400)
    report.render(console)
    return console.export_text()


ServerType = Callable[..., LocalServer]


@pytest.mark.parametrize(
    "server_type",
    [OpenAIServer, AnthropicServer, GeminiServer],
    ids=["openai", "anthropic", "gemini"],
)
def test_transient_batch_failures_are_retried(tmp_path: Path, server_type: ServerType) -> None:
    """A 503 or 429 answering the submission, a 500 or a dropped connection answering a poll:
    each ended the whole command with a traceback."""
    faults = [
        Fault.server_error(503),  # submission: refused, retried
        Fault.rate_limited(0.05),  # submission: refused, retried after Retry-After
        None,  # submission accepted
        Fault.server_error(500),  # poll
        Fault.disconnect(),  # poll: connection dropped mid-answer
    ]
    store = prepared_store(tmp_path, poems=3)
    with server_type(api_key=TEST_KEY, batch_faults=faults, batch_polls_in_progress=1) as server:
        spec = spec_for(server, "batched")
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        assert (model.ok, model.errors, model.not_run) == (3, 0, None) and not report.incomplete
        assert len(submissions(server)) == 3 and len(server.batches) == 1  # bought once
        assert len(model.batch_ids) == 1
    rows = generation_rows(store, "batched")
    assert [r["status"] for r in rows] == ["ok"] * 3 and all(r["batch_id"] for r in rows)


@pytest.mark.parametrize(
    ("server_type", "faults", "line"),
    [
        (
            OpenAIServer,
            [Fault.server_error(503)] * 3,
            "bad: batch submission failed after 3 attempts: openai-compatible: HTTP 503: "
            "injected server error 503; 3 jobs left for the next run",
        ),
        (
            OpenAIServer,
            [Fault.client_error(400, "bad batch")],
            "bad: batch submission failed: openai-compatible: HTTP 400: bad batch; "
            "3 jobs left for the next run",
        ),
        (
            GeminiServer,
            [Fault.client_error(400, "bad field")],
            "bad: batch submission failed: google: HTTP 400: INVALID_ARGUMENT: bad field; "
            "3 jobs left for the next run",
        ),
    ],
    ids=["503-persists", "400", "gemini-400"],
)
def test_a_failing_submission_stops_its_model_alone(
    tmp_path: Path, server_type: ServerType, faults: list[Fault], line: str
) -> None:
    store = prepared_store(tmp_path, poems=3)
    with (
        server_type(api_key=TEST_KEY, batch_faults=faults) as bad_server,
        OpenAIServer(api_key=TEST_KEY) as good_server,
    ):
        bad = spec_for(bad_server, "bad", max_retries=2)
        good = spec_for(good_server, "good")
        report = run_generation(store, [bad, good], options=BATCH)
        by_name = {m.model: m for m in report.models}
        assert by_name["good"].ok == 3  # the other model went on
        stopped = by_name["bad"]
        assert (stopped.ok, stopped.errors, stopped.left_pending) == (0, 0, 3)
        assert stopped.auth_status is None and report.incomplete  # the command exits 1
        assert line in printed(report).splitlines()
        assert len(submissions(bad_server)) == len(faults)  # 3 attempts for a 5xx, 1 for a 400
        assert generation_rows(store, "bad") == []  # pending, not error rows

        again = run_generation(store, [bad, good], options=BATCH)
        by_name = {m.model: m for m in again.models}
        assert by_name["bad"].ok == 3 and by_name["good"].already_done == 3
        assert not again.incomplete
        assert len(bad_server.batches) == 1 and len(good_server.batches) == 1


def test_a_failing_status_poll_leaves_the_batch_for_the_next_run(tmp_path: Path) -> None:
    """The batch was submitted (paid for): the next run polls it again, never resubmits."""
    store = prepared_store(tmp_path, poems=3)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        assert (model.ok, model.left_pending, model.not_run) == (
            0,
            3,
            "batch status poll failed after 3 attempts: openai-compatible: HTTP 502: "
            "injected server error 502",
        )
        (batch,) = store.query("SELECT batch_id, status FROM batches")
        assert batch["status"] == "submitted" and generation_rows(store, "remote") == []

        again = run_generation(store, [spec], options=BATCH)
        assert again.models[0].ok == 3 and again.models[0].batch_ids == [batch["batch_id"]]
        assert len(submissions(server)) == 1 and len(server.batches) == 1
    rows = generation_rows(store, "remote")
    assert {r["batch_id"] for r in rows} == {batch["batch_id"]}


@pytest.mark.parametrize("fault", [Fault.disconnect(), Fault.truncated()])
def test_a_submission_whose_answer_was_lost_is_not_submitted_again(
    tmp_path: Path, fault: Fault
) -> None:
    """The provider may have created the batch before the answer was lost (no SDK sends an
    idempotency key): a retry could buy every job twice. The model stops and says so (with
    `max_retries: 0`, which searches no batch list in this run: `test_batch_retry_search`)."""
    store = prepared_store(tmp_path, poems=3)
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[fault]) as server:
        spec = spec_for(server, "remote", max_retries=0)
        report = run_generation(store, [spec], options=BATCH)
        assert len(submissions(server)) == 1 and len(server.batches) == 1
    (model,) = report.models
    assert model.left_pending == 3 and report.incomplete
    assert model.not_run is not None and model.not_run.startswith("batch submission failed: ")
    assert "may have accepted the batch all the same" in model.not_run


def test_never_sent_tells_a_refused_connection_from_a_timeout() -> None:
    """What decides whether a failed submission may be sent again: a refused connection sent
    nothing; after a timeout the server may have acted on the request."""
    import socket

    from provider_support import failure

    from poemetric.providers.openai_provider import OpenAICompatibleProvider
    from poemetric.providers.remote_errors import never_sent

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    refused = failure(OpenAICompatibleProvider(openai_spec(closed)))
    assert never_sent(refused)
    with OpenAIServer(faults=[Fault.slow(2.0)]) as server:
        late = failure(OpenAICompatibleProvider(openai_spec(server.base_url, timeout_s=0.3)))
    assert late.retryable and not never_sent(late)


def test_a_stop_during_a_submission_retry_wait_submits_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM while a refused submission waits for its retry (a 429's Retry-After): the stage
    stops at once, as the concurrent path does between attempts. The wait held the stop for the
    whole Retry-After, and the retry then submitted a new batch after the stop was asked for
    (one that a grace running out in the middle of would have bought without recording it)."""
    import os
    import signal
    import threading
    import time

    from poemetric.runner import stopping

    monkeypatch.setattr(stopping, "_state", stopping._State())
    monkeypatch.setenv(stopping.GRACE_ENV, "30")
    previous = signal.getsignal(signal.SIGTERM)
    store = prepared_store(tmp_path, poems=3)
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[Fault.rate_limited(3.0)]) as server:
        spec = spec_for(server, "remote")

        def stop_once_refused() -> None:
            deadline = time.monotonic() + 30
            while not submissions(server) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)  # the 429 answered: the retry is waiting its Retry-After
            os.kill(os.getpid(), signal.SIGTERM)

        stopper = threading.Thread(target=stop_once_refused)
        stopping.install()
        try:
            stopper.start()
            began = time.monotonic()
            with pytest.raises(KeyboardInterrupt):
                run_generation(store, [spec], options=BATCH)
            took = time.monotonic() - began
        finally:
            stopper.join()
            signal.signal(signal.SIGTERM, previous)
        assert len(submissions(server)) == 1 and server.batches == {}
    assert took < 2.5  # not the 3 s Retry-After (nor the 30 s grace)
    assert store.query("SELECT * FROM batches") == [] and generation_rows(store, "remote") == []


def batch_requests(server: LocalServer) -> int:
    """How many batch requests (submissions, status polls, downloads) the server received."""
    return sum(1 for r in server.requests if server.is_batch_control(r.method, r.path))


@pytest.mark.parametrize(
    "refused", [0, 1, 3], ids=["submission", "status-poll", "results-download"]
)
def test_a_stop_in_a_batch_retry_wait_is_resumed_without_a_loss_or_a_second_payment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: int
) -> None:
    """SIGTERM while the submission, a status poll or the results download waits for its retry
    (a 429's Retry-After) leaves the `batch-retry` row of the refused attempt and no other trace
    of it. The resume then buys each answer once: no second batch (a refused submission created
    none; a submitted one is polled again, a finished one downloaded), one `ok` row per job, the
    same rows and cost as a run never stopped, and the budget spent once."""
    import os
    import signal
    import threading
    import time

    from poemetric.runner import stopping

    monkeypatch.setattr(stopping, "_state", stopping._State())
    monkeypatch.setenv(stopping.GRACE_ENV, "30")
    previous = signal.getsignal(signal.SIGTERM)
    store = prepared_store(tmp_path / "stopped", poems=3)
    faults = [None] * refused + [Fault.rate_limited(3.0)]  # the others answer
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote")

        def stop_once_refused() -> None:
            deadline = time.monotonic() + 30
            while batch_requests(server) <= refused and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)  # the 429 answered: the retry is waiting its Retry-After
            os.kill(os.getpid(), signal.SIGTERM)

        stopper = threading.Thread(target=stop_once_refused)
        stopping.install()
        try:
            stopper.start()
            with pytest.raises(KeyboardInterrupt):
                run_generation(store, [spec], options=BATCH)
        finally:
            stopper.join()
            signal.signal(signal.SIGTERM, previous)
        assert batch_requests(server) == refused + 1  # nothing after the refused attempt
        calls = store.query("SELECT cache_key, outcome, http_status FROM calls ORDER BY call_id")
        assert [(c["outcome"], c["http_status"]) for c in calls][-1] == ("batch-retry", 429)
        assert generation_rows(store, "remote") == []

        monkeypatch.setattr(stopping, "_state", stopping._State())  # a new process
        capped = dataclasses.replace(BATCH, max_cost_usd=1.0)
        resumed = run_generation(store, [spec], options=capped)
        (model,) = resumed.models
        assert (model.ok, model.errors, model.left_pending) == (3, 0, 0) and not resumed.incomplete
        assert len(server.batches) == 1  # one batch bought, by the stopped run or the resume
        rows = generation_rows(store, "remote")
        calls = store.query("SELECT cache_key, outcome FROM calls ORDER BY call_id")
        paid = sorted(c["cache_key"] for c in calls if c["outcome"] == "ok")
        assert paid == sorted(r["cache_key"] for r in rows) and len(set(paid)) == 3
        (batch,) = store.query("SELECT batch_id, status FROM batches")
        assert batch["status"] == "collected"
        assert {r["batch_id"] for r in rows} == {batch["batch_id"]}
        spent = resumed.cost_usd

    whole = prepared_store(tmp_path / "whole", poems=3)
    with OpenAIServer(api_key=TEST_KEY) as server:
        once = run_generation(whole, [spec_for(server, "remote")], options=capped)
    assert spent == once.cost_usd and spent > 0
    ours = [(r["poem_id"], r["poem"], r["cost_usd"]) for r in rows]
    assert ours == [
        (r["poem_id"], r["poem"], r["cost_usd"]) for r in generation_rows(whole, "remote")
    ]


def test_a_key_refused_for_the_results_stops_the_model_and_leaves_the_batch(
    tmp_path: Path,
) -> None:
    """A 403 fetching a finished batch's results (a key allowed to poll batches but not to read
    their files) made one 'HTTP 403' error row per job; the key is refused as at submission or
    poll: the model stops naming its key variable, its jobs pending, the batch polled again."""
    store = prepared_store(tmp_path, poems=3)
    refused = Fault.client_error(403, "insufficient permissions: api.files.read")
    faults = [None, None, None, refused]  # submitted, polled twice; batch_results refused
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote")
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        assert (model.ok, model.errors, model.left_pending) == (0, 0, 3)
        assert model.auth_status == 403 and report.incomplete
        assert model.not_run == f"authentication failed (HTTP 403): check {TEST_KEY_ENV}"
        assert f"remote: {model.not_run}; 3 jobs left for the next run" in printed(report)
        assert generation_rows(store, "remote") == []  # pending, not error rows
        (batch,) = store.query("SELECT batch_id, status FROM batches")
        assert batch["status"] != "collected"

        again = run_generation(store, [spec], options=BATCH)
        assert again.models[0].ok == 3 and again.models[0].batch_ids == [batch["batch_id"]]
        assert not again.incomplete and len(server.batches) == 1  # collected, not bought again


def test_results_that_cannot_be_downloaded_are_error_rows_and_the_batch_is_collected_later(
    tmp_path: Path,
) -> None:
    """A finished batch whose results fail to download for good (a 5xx after the retries): one
    error row per job and a `collect_error`, the batch left uncollected so that the next run
    downloads it instead of buying it again. The error rows were written without their call-log
    entries (every other path that stores a job's outcome logs it)."""
    store = prepared_store(tmp_path, poems=3)
    faults = [None, None, None, *[Fault.server_error(502)] * 3]  # results: 3 attempts fail
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        assert (model.ok, model.errors, model.left_pending, model.not_run) == (0, 3, 0, None)
        assert report.incomplete and "HTTP 502" in (model.first_error or "")
        assert "3 jobs are in finished batches whose results download failed" in printed(report)
        rows = generation_rows(store, "remote")
        assert [r["status"] for r in rows] == ["error"] * 3
        (batch,) = store.query("SELECT batch_id, status, detail FROM batches")
        assert (
            batch["status"] != "collected" and "502" in json.loads(batch["detail"])["collect_error"]
        )
        logged = store.query(
            "SELECT cache_key, outcome, http_status, detail FROM calls ORDER BY call_id"
        )
        jobs = [(c["cache_key"], c["outcome"], c["http_status"]) for c in logged[4:]]
        assert sorted(jobs) == sorted((r["cache_key"], "error", 502) for r in rows)
        # the batch's own requests: submission, then the download's 3 attempts
        assert [(c["cache_key"], c["outcome"], c["http_status"]) for c in logged[:4]] == [
            (batch["batch_id"], "batch-ok", None),
            *[(batch["batch_id"], "batch-retry", 502)] * 2,
            (batch["batch_id"], "batch-error", 502),
        ]
        assert logged[3]["detail"].startswith("batch results download: ")

        again = run_generation(store, [spec], options=BATCH)
        assert again.models[0].ok == 3 and again.models[0].batch_ids == [batch["batch_id"]]
        assert not again.incomplete and len(server.batches) == 1  # collected, not bought again
    assert [r["status"] for r in generation_rows(store, "remote")] == ["ok"] * 3
    (batch,) = store.query("SELECT status, detail FROM batches")
    assert batch["status"] == "collected" and "collect_error" not in json.loads(batch["detail"])
