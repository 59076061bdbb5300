"""A `--batch` submission whose answer was lost (a read timeout, a dropped connection, an
unreadable answer, a 500 or 502): the provider may have accepted the batch and charges for it.
Its `unconfirmed-...` row stays, so the next run does not submit those jobs again (paying twice)
but stops the model with the `batches abandon` command, as after a kill (Anthropic; OpenAI's
batch list is searched instead: `test_batch_adopt`). A failure that surely
created no batch (a 400, a 503, a refused connection, OpenAI's file upload) removes the row and
the next run submits. The real SDKs against the local servers, faults on the batch-create
endpoint (`batch_faults`)."""

from __future__ import annotations

import dataclasses
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_runner_batch_faults import BATCH, printed, spec_for, submissions
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.testing.http_base import HttpAnswer, LocalServer, RecordedRequest
from poemetric.testing.servers import AnthropicServer, Fault, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


SERVERS = pytest.mark.parametrize(
    "server_type", [OpenAIServer, AnthropicServer], ids=["openai", "anthropic"]
)


def markers(run_dir: Any) -> list[dict[str, Any]]:
    from poemetric.store import RunStore

    with RunStore(run_dir) as store:
        return [dict(r) for r in store.query("SELECT batch_id, status, detail FROM batches")]


@pytest.mark.parametrize("server_type", [AnthropicServer], ids=["anthropic"])
@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (Fault.slow(3.0), "Timeout"),  # the client gave up waiting: APITimeoutError
        (Fault.disconnect(), "Error"),  # the connection dropped mid-answer
        (Fault.truncated(), "malformed or truncated"),  # a 200 cut in half
        (Fault.invalid_json(), "malformed or truncated"),  # a proxy's HTML page
        (Fault.server_error(500), "HTTP 500"),
        (Fault.server_error(502), "HTTP 502"),
    ],
    ids=["timeout", "disconnect", "truncated", "invalid-json", "500", "502"],
)
def test_a_lost_answer_keeps_the_marker_and_the_next_run_does_not_pay_twice(
    tmp_path: Path, server_type: type[LocalServer], fault: Fault, said: str
) -> None:
    """Anthropic's batches carry no tag the next run could find them by: it stops the model
    until the row is given up by hand (OpenAI's are found: `test_batch_adopt`)."""
    store = prepared_store(tmp_path / "run", poems=3)
    run_dir = store.run_dir
    with server_type(api_key=TEST_KEY, batch_faults=[fault]) as server:
        spec = spec_for(server, "remote", timeout_s=1)
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        assert len(submissions(server)) == 1  # not retried: a retry could buy a second batch
        assert model.left_pending == 3 and report.incomplete
        (row,) = markers(run_dir)
        marker = row["batch_id"]
        assert marker.startswith("unconfirmed-") and row["status"] == "submitting"
        assert said in json.loads(row["detail"])["lost"]
        line = " ".join(printed(report).split())
        assert "may have accepted the batch all the same" in line
        assert f"batches abandon {marker} --run {run_dir} --force" in line

        again = run_generation(store, [spec], options=BATCH)
        (model,) = again.models
        assert len(submissions(server)) == 1  # the next run did not submit those jobs again
        assert again.incomplete and model.left_pending == 3 and model.ok == 0
        assert model.not_run is not None
        assert "lost the provider's answer to its submission of 1 batch of 3 jobs" in model.not_run
        assert said in model.not_run and "may have accepted it and charges for it" in model.not_run
        assert f"batches abandon {marker} --run {run_dir} --force" in model.not_run
        assert generation_rows(store, "remote") == []

        abandon = subprocess.run(
            [sys.executable, "-m", "poemetric", "batches", "abandon", marker,
             "--run", str(run_dir), "--force"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert abandon.returncode == 0, abandon.stdout + abandon.stderr
        third = run_generation(store, [spec], options=BATCH)
        assert third.models[0].ok == 3 and not third.incomplete
        assert len(submissions(server)) == 2


@SERVERS
@pytest.mark.parametrize(
    "fault",
    [Fault.client_error(400, "bad batch"), Fault.client_error(422), Fault.server_error(503)],
    ids=["400", "422", "503"],
)
def test_a_refused_submission_leaves_no_marker(
    tmp_path: Path, server_type: type[LocalServer], fault: Fault
) -> None:
    """Refused before acceptance: no batch exists, the next run submits (the 503 after the
    retries)."""
    store = prepared_store(tmp_path / "run", poems=3)
    tries = 3 if fault.status >= 500 else 1  # a 4xx is not retried
    with server_type(api_key=TEST_KEY, batch_faults=[fault] * tries) as server:
        spec = spec_for(server, "remote", max_retries=2)
        report = run_generation(store, [spec], options=BATCH)
        assert report.incomplete and report.models[0].left_pending == 3
        assert "may have accepted" not in printed(report)
        assert markers(store.run_dir) == []
        assert len(submissions(server)) == tries and server.batches == {}
        again = run_generation(store, [spec], options=BATCH)
        assert again.models[0].ok == 3 and not again.incomplete
        assert len(server.batches) == 1


def test_a_refused_connection_leaves_no_marker(tmp_path: Path) -> None:
    """Nothing listens there: nothing was sent, so no batch exists and none is kept."""
    store = prepared_store(tmp_path / "run", poems=3)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    with OpenAIServer(api_key=TEST_KEY) as server:
        spec = spec_for(server, "remote")
    report = run_generation(store, [spec.model_copy(update={"base_url": closed})], options=BATCH)
    assert report.incomplete and report.models[0].left_pending == 3
    assert markers(store.run_dir) == []
    with OpenAIServer(api_key=TEST_KEY) as server:
        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert again.models[0].ok == 3 and len(server.batches) == 1


class DroppedUpload(OpenAIServer):
    """Drops the connection answering the first batch-file upload (after storing the file)."""

    dropped = 0

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        answer: HttpAnswer = super().route(record, query, raw)
        upload = record.method == "POST" and record.path.rstrip("/").endswith("/files")
        if upload and not self.dropped:
            self.dropped += 1
            return dataclasses.replace(answer, disconnect=True)
        return answer


def test_a_lost_file_upload_is_retried_without_a_marker(tmp_path: Path) -> None:
    """OpenAI: the upload before the batch is created buys nothing, so its lost answer is
    retried like a refusal; only `batches.create` can buy a batch."""
    store = prepared_store(tmp_path / "run", poems=3)
    with DroppedUpload(api_key=TEST_KEY) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert server.dropped == 1
        assert report.models[0].ok == 3 and not report.incomplete
        assert len(submissions(server)) == 1 and len(server.batches) == 1
    assert [r["status"] for r in markers(store.run_dir)] == ["collected"]


def test_a_submission_cut_in_this_process_is_not_left_to_this_process(tmp_path: Path) -> None:
    """A submission cut by a cancel (a second Ctrl-C, the stop grace's `task.cancel()`) leaves
    its row without a `lost` note and with this process as its holder. The next
    `run_generation` of the same process (a notebook, a script) read it as a submission under
    way in another process, left the jobs to it and said to run again once that process ends:
    blocked, with wrong advice, for as long as the process lived."""
    store = prepared_store(tmp_path / "run", poems=3)
    # Anthropic: an OpenAI batch would be found in its batch list (`test_batch_adopt`).
    with AnthropicServer(api_key=TEST_KEY, batch_faults=[Fault.slow(3.0)]) as server:
        spec = spec_for(server, "remote", timeout_s=1)
        run_generation(store, [spec], options=BATCH)
        (row,) = markers(store.run_dir)
        detail = json.loads(row["detail"])
        del detail["lost"]  # as a cancel leaves it
        with store.transaction() as conn:
            conn.execute(
                "UPDATE batches SET detail = ? WHERE batch_id = ?",
                (json.dumps(detail), row["batch_id"]),
            )
        again = run_generation(store, [spec], options=BATCH)
        (model,) = again.models
        assert len(submissions(server)) == 1
        assert not model.held_elsewhere and model.left_pending == 3
        line = " ".join(printed(again).split())
        assert "another process" not in line
        assert f"batches abandon {row['batch_id']} --run {store.run_dir} --force" in line
