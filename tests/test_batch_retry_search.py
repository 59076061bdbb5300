"""A tagged `--batch` submission (OpenAI, Gemini) looked for in the provider's batch list within
the run that sent it (`batch_retry_search`): before a retry after a 503 (a gateway's, sent
after the batch was created) and after a lost answer (a 500, a dropped connection). The real
SDKs against the local servers; each server counts the batches it holds."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from test_batch_adopt import TAG_KEY, CreatesThenFails, assert_no_key, wait_for_batches
from test_batch_lost_answer import markers
from test_runner_batch_faults import BATCH, printed, spec_for, submissions
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.store import RunStore
from poemetric.testing.http_base import HttpAnswer, LocalServer, RecordedRequest
from poemetric.testing.servers import Fault, GeminiServer, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def _creates(server: LocalServer, record: RecordedRequest) -> bool:
    """Whether `record` asks `server` to create a batch."""
    if isinstance(server, GeminiServer):
        return record.method == "POST" and record.path.endswith(":batchGenerateContent")
    return record.method == "POST" and record.path.rstrip("/") == "/v1/batches"


class CreatesThen503(OpenAIServer):
    """Creates the first batch submitted, then answers 503 (a gateway that gave up waiting
    although the server behind it did the work)."""

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        answer: HttpAnswer = super().route(record, query, raw)
        if _creates(self, record) and len(self.batches) == 1 and answer.status == 200:
            return self.error_answer(503, "upstream request timeout")
        return answer


class GeminiCreatesThen503(GeminiServer):
    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        answer: HttpAnswer = super().route(record, query, raw)
        if _creates(self, record) and len(self.batches) == 1 and answer.status == 200:
            return self.error_answer(503, "upstream request timeout")
        return answer


class GeminiCreatesThenFails(GeminiServer):
    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        answer: HttpAnswer = super().route(record, query, raw)
        if _creates(self, record) and len(self.batches) == 1 and answer.status == 200:
            return self.error_answer(500, "upstream connect error")
        return answer


def _batch_rows(store: RunStore) -> list[dict[str, Any]]:
    return markers(store.run_dir)


def _assert_collected_once(store: RunStore, server: OpenAIServer | GeminiServer) -> str:
    """One batch at the provider, its row collected in place of the marker, each result once."""
    assert len(server.batches) == 1
    ((batch_id, _),) = server.batches.items()
    (row,) = _batch_rows(store)
    assert (row["batch_id"], row["status"]) == (batch_id, "collected")
    assert json.loads(row["detail"])["found_for"].startswith("unconfirmed-")
    rows = generation_rows(store, "remote")
    assert len(rows) == 3 and {r["status"] for r in rows} == {"ok"}
    assert len({(r["prompt_id"], r["sample_index"]) for r in rows}) == 3
    return batch_id


@pytest.mark.parametrize(
    "server_type", [CreatesThen503, GeminiCreatesThen503], ids=["openai", "gemini"]
)
def test_a_503_after_the_batch_was_created_is_not_retried_but_the_batch_taken(
    tmp_path: Path, server_type: type[OpenAIServer | GeminiServer]
) -> None:
    store = prepared_store(tmp_path / "run", poems=3)
    with server_type(api_key=TEST_KEY) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = report.models
        assert len(submissions(server)) == 1  # not retried: that would buy it twice
        batch_id = _assert_collected_once(store, server)
        assert model.ok == 3 and not report.incomplete and model.not_run is None
        assert server.batch_list_requests == 1
        line = " ".join(printed(report).split())
        marker = json.loads(_batch_rows(store)[0]["detail"])["found_for"]
        assert (
            f"found batch {batch_id} in the provider's batch list (1 batch searched): the "
            f"submission {marker} of 3 jobs, answered HTTP 503 although the provider had "
            "created it; it is polled and collected as usual, nothing is submitted again" in line
        )
        with RunStore(store.run_dir) as reader:
            calls = [
                (r["cache_key"], r["outcome"], r["http_status"])
                for r in reader.query(
                    "SELECT cache_key, outcome, http_status FROM calls "
                    "WHERE outcome LIKE 'batch-%' AND detail NOT LIKE 'batch status%' "
                    "AND detail NOT LIKE 'batch results%' ORDER BY rowid"
                )
            ]
        assert calls == [("-", "batch-retry", 503), (marker, "batch-ok", None)]
        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert again.models[0].ok == 0 and not again.incomplete
        assert len(submissions(server)) == 1 and len(server.batches) == 1
        assert_no_key(store, server, line)


def test_a_503_with_no_retry_left_is_looked_for_before_the_row_is_dropped(
    tmp_path: Path,
) -> None:
    """`max_retries: 0`: no retry follows the 503, but the next run would submit the jobs again
    (a 503 reads as a refusal): the batch the gateway's 503 hid is taken in this run."""
    store = prepared_store(tmp_path / "run", poems=3)
    with CreatesThen503(api_key=TEST_KEY) as server:
        report = run_generation(store, [spec_for(server, "remote", max_retries=0)], options=BATCH)
        assert server.batch_list_requests == 1 and len(submissions(server)) == 1
        _assert_collected_once(store, server)
        assert report.models[0].ok == 3 and not report.incomplete
        assert "answered HTTP 503 although the provider had created it" in printed(report)


def test_a_503_without_a_batch_is_retried_after_the_list_shows_none(tmp_path: Path) -> None:
    """The server refused it (no batch created): the list holds none, and the retry goes on."""
    store = prepared_store(tmp_path / "run", poems=3)
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[Fault.server_error(503)]) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = report.models
        assert server.batch_list_requests == 1  # searched before the retry
        assert len(submissions(server)) == 2 and len(server.batches) == 1
        assert model.ok == 3 and not report.incomplete and model.not_run is None
        ((batch_id, batch),) = server.batches.items()
        (row,) = _batch_rows(store)
        assert (row["batch_id"], row["status"]) == (batch_id, "collected")
        assert "found_for" not in json.loads(row["detail"])  # the retry's answer, not a search
        assert batch["metadata"][TAG_KEY].startswith("unconfirmed-")
        assert "found batch" not in printed(report)
        assert len(generation_rows(store, "remote")) == 3


class SearchesBlocked(CreatesThen503):
    """As `CreatesThen503`, its batch list answering 500: the retry goes on as before."""

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        if record.method == "GET" and record.path.rstrip("/") == "/v1/batches":
            return self.error_answer(500, "list unavailable")
        return super().route(record, query, raw)


def test_a_list_that_cannot_be_read_lets_the_retry_go_as_before(tmp_path: Path) -> None:
    """The search cannot tell, so the submission is retried as it was before the search: two
    batches, which the next run would name (`test_batch_adopt`'s "several")."""
    store = prepared_store(tmp_path / "run", poems=3)
    with SearchesBlocked(api_key=TEST_KEY) as server:
        report = run_generation(store, [spec_for(server, "remote", max_retries=1)], options=BATCH)
        assert server.batch_list_requests == 2  # the search, retried once
        assert len(submissions(server)) == 2 and len(server.batches) == 2
        assert report.models[0].ok == 3


@pytest.mark.parametrize(
    ("server_type", "fault"),
    [
        (CreatesThenFails, None),  # a 500 after the batch was created
        (OpenAIServer, Fault.disconnect()),  # the connection dropped mid-answer
        (GeminiCreatesThenFails, None),
    ],
    ids=["openai-500", "openai-disconnect", "gemini-500"],
)
def test_a_lost_answer_is_found_in_the_same_run_and_the_model_goes_on(
    tmp_path: Path, server_type: type[OpenAIServer | GeminiServer], fault: Fault | None
) -> None:
    store = prepared_store(tmp_path / "run", poems=3)
    with server_type(api_key=TEST_KEY, batch_faults=[fault]) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = report.models
        wait_for_batches(server, 1)  # type: ignore[arg-type]
        assert len(submissions(server)) == 1  # never sent again
        batch_id = _assert_collected_once(store, server)
        assert model.ok == 3 and not report.incomplete and model.not_run is None
        assert model.left_pending == 0 and server.batch_list_requests == 1
        line = " ".join(printed(report).split())
        assert f"found batch {batch_id} in the provider's batch list (1 batch searched)" in line
        assert "whose answer was lost (" in line and "nothing is submitted again" in line
        assert_no_key(store, server, line)


def test_a_lost_answer_none_found_stops_the_model_as_before(tmp_path: Path) -> None:
    """A 500 before the batch was created: the list is searched three times, holds none, and
    nothing is submitted again; the row stays for the next run's search."""
    store = prepared_store(tmp_path / "run", poems=3)
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[Fault.server_error(500)]) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = report.models
        assert len(submissions(server)) == 1 and server.batches == {}
        assert server.batch_list_requests == 3
        assert report.incomplete and model.left_pending == 3 and model.ok == 0
        (row,) = _batch_rows(store)
        marker = str(row["batch_id"])
        assert marker.startswith("unconfirmed-") and "HTTP 500" in json.loads(row["detail"])["lost"]
        assert model.not_run is not None
        assert "the provider's batch list holds no batch of it after 3 searches in " in (
            model.not_run
        )
        assert "but a list may lag behind a batch just created" in model.not_run
        assert (
            f"the next run with --batch looks for it in the provider's batch list (it carries "
            f"{marker})" in model.not_run
        )


def test_max_retries_bounds_the_searches_and_zero_searches_none(tmp_path: Path) -> None:
    """`limits.max_retries` bounds the searches after a lost answer; 0 asks for no retry: the
    lost answer is left to the next run's search, the model stopped as before."""
    for retries, expected in ((1, 1), (0, 0)):
        store = prepared_store(tmp_path / f"run{retries}", poems=3)
        with OpenAIServer(api_key=TEST_KEY, batch_faults=[Fault.server_error(500)]) as server:
            spec = spec_for(server, "remote", max_retries=retries)
            report = run_generation(store, [spec], options=BATCH)
            assert server.batch_list_requests == expected
            (model,) = report.models
            assert model.left_pending == 3 and model.not_run is not None
            assert ("holds no batch of it after" in model.not_run) is bool(expected)
            assert len(submissions(server)) == 1


def test_a_stop_ends_the_wait_between_searches_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM after the first search (waits of 1, 4 and 16 s): the second wait ends at once,
    nothing is searched or submitted again, and the row stays for the next run."""
    import os
    import signal
    import threading
    import time

    from poemetric.runner import stopping

    monkeypatch.setattr(stopping, "_state", stopping._State())
    monkeypatch.setenv(stopping.GRACE_ENV, "30")
    previous = signal.getsignal(signal.SIGTERM)
    store = prepared_store(tmp_path, poems=3)
    options = dataclasses.replace(BATCH, retry_base_s=0.25, retry_cap_s=30.0)
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[Fault.server_error(500)]) as server:
        spec = spec_for(server, "remote")

        def stop_once_searched() -> None:
            deadline = time.monotonic() + 30
            while not server.batch_list_requests and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)  # the list answered: the next search is waiting
            os.kill(os.getpid(), signal.SIGTERM)

        stopper = threading.Thread(target=stop_once_searched)
        stopping.install()
        try:
            stopper.start()
            began = time.monotonic()
            with pytest.raises(KeyboardInterrupt):
                run_generation(store, [spec], options=options)
            took = time.monotonic() - began
        finally:
            stopper.join()
            signal.signal(signal.SIGTERM, previous)
        assert server.batch_list_requests == 1 and len(submissions(server)) == 1
    assert took < 3.5  # not the 4 s and 16 s waits (nor the 30 s grace)
    (row,) = _batch_rows(store)
    assert str(row["batch_id"]).startswith("unconfirmed-") and row["status"] == "submitting"
    assert "HTTP 500" in json.loads(row["detail"])["lost"]


class Always503ListLags(OpenAIServer):
    """Creates every batch submitted and answers 503; its first list answer shows none of them
    (a list lagging behind a batch just created)."""

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        listing = record.method == "GET" and record.path.rstrip("/") == "/v1/batches"
        if listing and self.batch_list_requests == 1:
            return HttpAnswer.json(200, {"object": "list", "data": [], "has_more": False})
        answer: HttpAnswer = super().route(record, query, raw)
        if _creates(self, record) and answer.status == 200:
            return self.error_answer(503, "upstream request timeout")
        return answer


def test_several_found_before_a_retry_stop_the_model_naming_them(tmp_path: Path) -> None:
    """The list lagged at the first search, so the retry bought a second batch; the second
    search sees both: neither is taken, no third is bought, and the line names them."""
    store = prepared_store(tmp_path / "run", poems=3)
    with Always503ListLags(api_key=TEST_KEY) as server:
        report = run_generation(store, [spec_for(server, "remote", max_retries=3)], options=BATCH)
        (model,) = report.models
        assert len(submissions(server)) == 2 and len(server.batches) == 2
        assert server.batch_list_requests == 2
        assert report.incomplete and model.ok == 0 and model.left_pending == 3
        (row,) = _batch_rows(store)
        marker = str(row["batch_id"])
        assert marker.startswith("unconfirmed-") and "HTTP 503" in json.loads(row["detail"])["lost"]
        first, second = server.batches
        assert model.not_run is not None
        assert (
            f"holds 2 batches of the submission {marker} ({second}, {first}), which this run "
            "meant to send once" in model.not_run
        )
        assert "Cancel all but one of them in the provider's batch list" in model.not_run
