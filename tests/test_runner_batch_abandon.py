"""`--batch` when a finished batch's results cannot be downloaded: results gone for good (404,
410, a batch expired with nothing answered) abandon the batch and the next run submits its jobs
again; other failures keep it uncollected, downloaded again by every run, until `poemetric
batches abandon` gives it up. The real openai SDK against the local OpenAI server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_runner_batch_faults import BATCH, printed, spec_for, submissions
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.providers.base import BatchStatus, ProviderError
from poemetric.runner.batch_download import results_gone
from poemetric.runner.batch_unknown import shown_time
from poemetric.testing.exchange import HttpAnswer, ResponderError
from poemetric.testing.http_base import LocalServer
from poemetric.testing.openai_server import _StoredFile
from poemetric.testing.servers import AnthropicServer, Fault, GeminiServer, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class ExpiringServer(OpenAIServer):
    """Its batches' result files are gone while `results_gone` is set (404, as the API answers
    a file that expired or was deleted); with `expire`, batches end 'expired', nothing answered."""

    results_gone = False
    expire = False

    def _file(self, file_id: str) -> _StoredFile:
        stored = super()._file(file_id)
        if self.results_gone and stored.purpose == "batch_output":
            raise ResponderError(404, f"No such File object: {file_id}")
        return stored

    def retrieve_batch(self, batch_id: str) -> HttpAnswer:
        if self.expire and not self._polls_left[batch_id]:  # it ends now
            self.batches[batch_id]["_final"] = {"completed": 0, "failed": 0}
            self.batches[batch_id]["status"] = "expired"
        return super().retrieve_batch(batch_id)


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["batches", *args], env={"COLUMNS": "400"})


def batch_row(store: Any, batch_id: str) -> dict[str, Any]:
    (row,) = store.query("SELECT status, detail FROM batches WHERE batch_id = ?", (batch_id,))
    return {"status": row["status"], **json.loads(row["detail"])}


def test_results_gone_abandon_the_batch_and_the_next_run_submits_again(tmp_path: Path) -> None:
    """A 404 on the results file: the batch stayed uncollected forever, its jobs counted as in
    flight and never submitted again, each run failing the same download."""
    store = prepared_store(tmp_path, poems=3)
    with ExpiringServer(api_key=TEST_KEY) as server:
        server.results_gone = True
        spec = spec_for(server, "remote")
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        (batch_id,) = model.batch_ids
        assert (model.ok, model.errors, model.abandoned, model.download_failed) == (0, 3, 3, 0)
        assert model.abandoned_batches == [batch_id] and report.incomplete
        text = printed(report)
        assert (
            f"3 jobs are in batches whose results the provider can no longer serve ({batch_id})"
            ": these batches are abandoned, and the next run submits their jobs again, paying "
            "for them again." in text
        )
        assert "retried by the next run" not in text
        row = batch_row(store, batch_id)
        assert row["status"] == "abandoned" and "HTTP 404" in row["abandoned"]
        errors = {r["error"] for r in generation_rows(store, "remote")}
        output_file = server.batches[batch_id]["output_file_id"]
        assert errors == {
            f"batch {batch_id}: the provider no longer has its results (openai-compatible: HTTP "
            f"404: No such File object: {output_file}); batch abandoned: the next run submits "
            "this job again (paid again)"
        }
        assert len(submissions(server)) == 1

        server.results_gone = False
        again = run_generation(store, [spec], options=BATCH)
        (model,) = again.models
        assert (model.ok, model.errors) == (3, 0) and not again.incomplete
        (new_batch,) = model.batch_ids
        assert new_batch != batch_id and len(submissions(server)) == 2  # resubmitted once
        rows = generation_rows(store, "remote")
        assert [r["status"] for r in rows] == ["ok"] * 3
        assert {r["batch_id"] for r in rows} == {new_batch}

        third = run_generation(store, [spec], options=BATCH)
        assert third.models[0].already_done == 3 and len(submissions(server)) == 2
    assert batch_row(store, batch_id)["status"] == "abandoned"  # not polled again


def test_results_gone_abandon_the_batch_in_one_write(tmp_path: Path) -> None:
    """The batch row was written twice: its state and the download's error (the batch still
    in flight, to be downloaded again), then 'abandoned'; a run killed between the two left
    the first. One write now holds the final row: abandoned, with the state and the error."""
    store = prepared_store(tmp_path, poems=2)
    with store.transaction() as conn:  # every write of a batch row, as SQLite sees it
        conn.execute("CREATE TABLE batch_writes(n INTEGER PRIMARY KEY, status TEXT, detail TEXT)")
        conn.execute(
            "CREATE TRIGGER batch_written AFTER UPDATE ON batches BEGIN INSERT INTO "
            "batch_writes(status, detail) VALUES (NEW.status, NEW.detail); END"
        )
    with ExpiringServer(api_key=TEST_KEY) as server:
        server.results_gone = True
        (model,) = run_generation(store, [spec_for(server, "remote")], options=BATCH).models
    (batch_id,) = model.batch_ids
    writes = [
        (w["status"], json.loads(w["detail"]))
        for w in store.query("SELECT status, detail FROM batch_writes ORDER BY n")
    ]
    after_download = [w for w in writes if "collect_error" in w[1]]
    final = batch_row(store, batch_id)
    assert after_download == [writes[-1]] and {"status": writes[-1][0], **writes[-1][1]} == final
    assert (final["status"], final["state"], final["completed"]) == ("abandoned", "completed", 2)
    assert "HTTP 404" in final["collect_error"] and "HTTP 404" in final["abandoned"]
    assert [status for status, _ in writes[:-1]] == ["in_progress", "completed"]  # the polls


def test_an_expired_batch_with_nothing_answered_is_abandoned(tmp_path: Path) -> None:
    """An expired batch that answered nothing holds nothing paid for: a failing download of it
    gives it up (a 502 here, which for a completed batch keeps it uncollected)."""
    store = prepared_store(tmp_path, poems=2)
    faults = [None, None, None, *[Fault.server_error(502)] * 3]  # results: 3 attempts fail
    with ExpiringServer(api_key=TEST_KEY, batch_faults=faults) as server:
        server.expire = True
        spec = spec_for(server, "remote", max_retries=2)
        (model,) = run_generation(store, [spec], options=BATCH).models
        assert (model.errors, model.abandoned) == (2, 2)
        row = batch_row(store, model.batch_ids[0])
        assert (row["status"], row["state"]) == ("abandoned", "expired")
        assert row["abandoned"].startswith("it expired before any request was answered: ")
        server.expire = False
        (model,) = run_generation(store, [spec], options=BATCH).models
        assert model.ok == 2 and len(submissions(server)) == 2


def test_a_failing_download_stays_uncollected_until_abandoned_by_hand(tmp_path: Path) -> None:
    """A 502 on every run: the batch is downloaded again each time (never bought again), and
    the rows and the summary say so; `poemetric batches abandon` then lets the next run
    submit the jobs again. The rows said only `HTTP 502: ...` and the summary said "retried by
    the next run" (nothing is sent again); the only way out was editing the `batches` table."""
    store = prepared_store(tmp_path, poems=3)
    failing = [Fault.server_error(502)] * 3  # the results download: 3 attempts
    first = [None, None, None, *failing]  # submitted, polled twice, results
    later = [None, *failing]  # polled (completed), results
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[*first, *later, *later]) as server:
        spec = spec_for(server, "remote", max_retries=2)
        for _ in range(3):
            report = run_generation(store, [spec], options=BATCH)
            (model,) = report.models
            assert (model.ok, model.errors, model.download_failed, model.abandoned) == (0, 3, 3, 0)
            assert report.incomplete and len(submissions(server)) == 1
            (batch_id,) = model.batch_ids
            text = printed(report)
            assert (
                f"3 jobs are in finished batches whose results download failed ({batch_id}): "
                "they are stored as errors, and the next run downloads these batches again "
                "(nothing is sent or paid again). If the download keeps failing, `poemetric "
                "batches abandon BATCH_ID --run RUN` gives a batch up" in text
            )
            assert "retried by the next run" not in text
            assert "3 in batches to download again" in report.summary_line()
        assert {r["error"] for r in generation_rows(store, "remote")} == {
            f"batch {batch_id}: results download failed (openai-compatible: HTTP 502: injected "
            "server error 502); the next run downloads the batch again (nothing is sent again)"
        }
        row = batch_row(store, batch_id)
        assert row["status"] == "completed" and "502" in row["collect_error"]

        listed = cli("list", "--run", str(tmp_path))
        assert listed.exit_code == 0, listed.output
        assert batch_id in listed.stdout and "completed, not collected" in listed.stdout

        done = cli("abandon", batch_id, "--run", str(tmp_path))
        assert done.exit_code == 0, done.output
        assert done.stdout == (
            f"batch {batch_id} abandoned (generations, remote, last seen completed): the next "
            "run of that stage submits its 3 jobs again, and pays for them again.\n"
        )
        assert batch_row(store, batch_id)["status"] == "abandoned"

        again = run_generation(store, [spec], options=BATCH)
        (model,) = again.models
        assert (model.ok, model.errors) == (3, 0) and not again.incomplete
        assert len(submissions(server)) == 2 and model.batch_ids != [batch_id]
    assert [r["status"] for r in generation_rows(store, "remote")] == ["ok"] * 3

    collected = cli("abandon", model.batch_ids[0], "--run", str(tmp_path))
    assert collected.exit_code == 2
    assert "is collected: its results are stored" in collected.stderr
    unknown = cli("abandon", "batch_nope", "--run", str(tmp_path))
    assert unknown.exit_code == 2
    assert "has no batch 'batch_nope'; its open batches: none" in unknown.stderr


def test_abandoning_a_batch_not_known_to_have_ended_needs_force(tmp_path: Path) -> None:
    """A batch whose status polls fail may still be answered (and charged) by the provider."""
    store = prepared_store(tmp_path, poems=2)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        (model,) = run_generation(store, [spec], options=BATCH).models
        (batch_id,) = model.batch_ids
        refused = cli("abandon", batch_id, "--run", str(tmp_path))
        assert refused.exit_code == 2 and "was last seen submitted" in refused.stderr
        assert "with --force" in refused.stderr
        assert batch_row(store, batch_id)["status"] == "submitted"
        forced = cli("abandon", batch_id, "--run", str(tmp_path), "--force")
        assert forced.exit_code == 0, forced.output
        (model,) = run_generation(store, [spec], options=BATCH).models
        assert model.ok == 2 and len(submissions(server)) == 2


@pytest.mark.parametrize(
    "server_type",
    [OpenAIServer, AnthropicServer, GeminiServer],
    ids=["openai", "anthropic", "gemini"],
)
def test_a_batch_the_provider_does_not_know_says_how_to_give_it_up(
    tmp_path: Path, server_type: Callable[..., LocalServer]
) -> None:
    """A status poll answered 404 (the batch deleted, or submitted with another project's key:
    the same answer) stopped the model on every run with only the provider's error, the way
    out (`batches abandon --force`) nowhere said, and `batches list` still said 'submitted'.
    It is polled once per run, not retried, never abandoned by itself; its row says 'not found
    (404)' since the first such poll, `batches list` says what to do, and the line gives the
    command, which the next run then follows."""
    store = prepared_store(tmp_path, poems=2)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with server_type(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        (batch_id,) = run_generation(store, [spec], options=BATCH).models[0].batch_ids
        server.batches.clear()  # as another key (or a deletion) sees it
        command = f"poemetric batches abandon {batch_id} --run {tmp_path} --force"
        since = ""
        for _ in range(2):  # the same on every run, one request each
            before = len(server.requests)
            report = run_generation(store, [spec], options=BATCH)
            (model,) = report.models
            sent = [(r.method, r.path) for r in server.requests[before:]]
            assert len(sent) == 1 and sent[0][0] == "GET" and batch_id in sent[0][1]
            assert (model.ok, model.errors, model.left_pending) == (0, 0, 2)
            assert report.incomplete and model.batch_ids == [batch_id]
            (line,) = [x for x in printed(report).splitlines() if x.startswith("remote: ")]
            assert line.startswith("remote: batch status poll failed: ") and " 404: " in line
            known = f", on every poll since {shown_time(since)}" if since else ""
            assert line.endswith(
                f"; the provider knows no batch {batch_id} for this API key{known} (deleted, or "
                "submitted with another key or project: the same answer), so every run stops "
                "here. If the key changed, put the one that submitted it back in "
                f"{TEST_KEY_ENV}; else cancel the batch in the provider's batch list if it is "
                f"still there, then give it up with `{command}` (the next run submits its jobs "
                "again, paying again); 2 jobs left for the next run"
            )
            assert TEST_KEY not in line
            row = batch_row(store, batch_id)  # not given up by itself, but not 'submitted'
            assert row["status"] == "not found (404)" and row["state"] == "submitted"
            assert row["not_found_since"] == (since or row["not_found_since"])
            assert " 404: " in row["poll_error"] and TEST_KEY not in json.dumps(row)
            since = row["not_found_since"]

        listed = cli("list", "--run", str(tmp_path))
        assert listed.exit_code == 0, listed.output
        assert "│ not found (404) │" in listed.stdout and "│ submitted" not in listed.stdout
        assert f"not found on every poll since {shown_time(since)}" in listed.stdout
        assert listed.stdout.endswith(
            f"'not found': the provider knows no such batch for this API key ({batch_id}): "
            "deleted, or submitted with another key or project (the same answer). Waiting does "
            "not help: each run polls it once more (free), goes on if it is found, else stops "
            "that model. If the key changed, put back the one that submitted it; else cancel "
            "the batch in the provider's batch list if it is still there, then give it up (the "
            f"next run submits its jobs again, paying again):\n  {command}\n"
        )

        given_up = CliRunner().invoke(app, command.split()[1:], env={"COLUMNS": "400"})
        assert given_up.exit_code == 0, given_up.output
        again = run_generation(store, [spec], options=BATCH)
        assert again.models[0].ok == 2 and not again.incomplete
        assert len(submissions(server)) == 2


@pytest.mark.parametrize(
    "server_type",
    [OpenAIServer, AnthropicServer, GeminiServer],
    ids=["openai", "anthropic", "gemini"],
)
def test_a_not_found_answer_that_quotes_the_key_is_stored_without_it(
    tmp_path: Path, server_type: type[LocalServer]
) -> None:
    """The batch row keeps the provider's 404 message (`poll_error`) and the line quotes it: a
    provider that echoes the key in it must not put the key in the run. (The test above checks
    for the key too, but its server's message never holds one.)"""

    class Echoing(server_type):  # type: ignore[valid-type,misc]
        def _batch(self, batch_id: str) -> dict[str, Any]:
            try:
                return dict(super()._batch(batch_id))
            except ResponderError as error:
                raise ResponderError(404, f"{error.message} for key {TEST_KEY}") from None

    store = prepared_store(tmp_path, poems=2)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with Echoing(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        (batch_id,) = run_generation(store, [spec], options=BATCH).models[0].batch_ids
        server.batches.clear()
        report = run_generation(store, [spec], options=BATCH)
    row = batch_row(store, batch_id)
    assert row["status"] == "not found (404)" and "for key ***" in row["poll_error"]
    assert TEST_KEY not in json.dumps(row) and TEST_KEY not in printed(report)
    assert "for key ***" in printed(report)


@pytest.mark.parametrize(
    ("status", "state", "completed", "gone"),
    [
        (404, "completed", 3, True),
        (410, "completed", 3, True),
        (502, "expired", 0, True),
        (502, "expired", 2, False),  # answers were paid for: downloaded again, not bought again
        (502, "completed", 3, False),
        (400, "completed", 3, False),
    ],
)
def test_which_download_failures_mean_the_results_are_gone(
    status: int, state: Any, completed: int, gone: bool
) -> None:
    error = ProviderError("x", retryable=False, status=status)
    verdict = results_gone(error, BatchStatus("b", state, 3, completed, 0))
    assert (verdict is not None) == gone


def test_a_batch_not_found_is_polled_again_and_found_when_the_key_is_back(tmp_path: Path) -> None:
    """A batch marked 'not found (404)' stays in flight: the next run polls it once more (no
    submission, nothing paid again) and, the key that submitted it back, collects it."""
    store = prepared_store(tmp_path, poems=2)
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[None, Fault.server_error(400)]) as server:
        spec = spec_for(server, "remote")
        (batch_id,) = run_generation(store, [spec], options=BATCH).models[0].batch_ids
        kept = dict(server.batches)
        server.batches.clear()  # another key in use
        run_generation(store, [spec], options=BATCH)
        assert batch_row(store, batch_id)["status"] == "not found (404)"
        server.batches.update(kept)  # the key that submitted it is back
        again = run_generation(store, [spec], options=BATCH)
        (model,) = again.models
        assert (model.ok, model.batch_ids) == (2, [batch_id]) and not again.incomplete
        assert len(submissions(server)) == 1
    row = batch_row(store, batch_id)
    assert row["status"] == "collected" and "not_found_since" not in row
