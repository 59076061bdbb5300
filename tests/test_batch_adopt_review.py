"""Finding a lost submission's batch (`batch_adopt`) where the batch list is not OpenAI's own
(oldest first, a cursor ignored), where another process adopts the batch while the submitting
one still waits for its answer, and what the adopted batch's row and the report keep. The real
SDKs against the local servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_batch_adopt import TAG_KEY, CreatesThenFails, create_batch, lose_first_answer
from test_batch_lost_answer import markers
from test_runner_batch_faults import BATCH, printed, spec_for, submissions
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows

from poemetric.generation.stage import run_generation
from poemetric.store import RunStore
from poemetric.testing.http_base import HttpAnswer, RecordedRequest


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class OldestFirst(CreatesThenFails):
    """A compatible batch API whose list is oldest first (not OpenAI's newest first)."""

    def list_batches(self, query: dict[str, list[str]]) -> HttpAnswer:
        answer = super().list_batches(query)
        page = json.loads(answer.body)
        listed = sorted(self.batches.values(), key=lambda b: (b["created_at"], b["id"]))
        page["data"] = [self._public(b, finished=b["status"] != "in_progress") for b in listed]
        page["has_more"] = False
        return HttpAnswer.json(200, page)


class CursorIgnored(CreatesThenFails):
    """A compatible batch API that answers every list request with the whole list, newest
    first, saying nothing of `has_more` and ignoring `after`; after 20 requests it answers an
    empty page (so that a client going round in circles ends)."""

    def list_batches(self, query: dict[str, list[str]]) -> HttpAnswer:
        newest = list(reversed(self.batches.values()))
        shown = [] if self.batch_list_requests > 20 else newest
        data = [self._public(b, finished=b["status"] != "in_progress") for b in shown]
        return HttpAnswer.json(200, {"object": "list", "data": data})


def test_a_batch_list_oldest_first_is_read_past_the_old_batches(tmp_path: Path) -> None:
    """An old batch first in the list does not end the search: the list is not newest first."""
    with OldestFirst(api_key=TEST_KEY) as server:
        store, _ = lose_first_answer(tmp_path, server)
        ((lost, batch),) = server.batches.items()
        old = create_batch(server, {"project": "other"}, batch["input_file_id"])
        server.batches[old]["created_at"] -= 3 * 3600  # long before the row: first in the list

        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = again.models
        assert model.ok == 3 and not again.incomplete, printed(again)
        assert len(submissions(server)) == 2  # the lost one and the other project's
        assert [(r["batch_id"], r["status"]) for r in markers(store.run_dir)] == [
            (lost, "collected")
        ]


def test_a_batch_list_that_ignores_its_cursor_is_read_once(tmp_path: Path) -> None:
    """A list answered whole at every page, without `has_more`, is not read again and again."""
    with CursorIgnored(api_key=TEST_KEY) as server:
        store, _ = lose_first_answer(tmp_path, server)
        (lost,) = server.batches

        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert again.models[0].ok == 3 and not again.incomplete, printed(again)
        assert server.batch_list_requests <= 2
        assert [r["batch_id"] for r in markers(store.run_dir)] == [lost]


def test_the_adopted_batch_keeps_the_row_it_was_found_for(tmp_path: Path) -> None:
    """The adopted batch's row names the submission row it replaced, after its polls too; the
    line that says so is a note, not a warning: nothing is left to do."""
    with CreatesThenFails(api_key=TEST_KEY) as server:
        store, marker = lose_first_answer(tmp_path, server)
        (lost,) = server.batches
        assert server.batches[lost]["metadata"] == {TAG_KEY: marker}

        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert again.models[0].ok == 3 and not again.incomplete
        (row,) = markers(store.run_dir)
        detail = json.loads(row["detail"])
        assert row["status"] == "collected" and detail["found_for"] == marker
        assert detail["requests"] == 3 and detail["state"] == "completed"
        text = printed(again)
        line = next(x for x in text.splitlines() if f"found batch {lost}" in x)
        assert "warning" not in line and line.startswith("remote: found batch")
        assert again.models[0].warnings == []


class AdoptedMeanwhile(CreatesThenFails):
    """Creates the first batch; before answering it (a 500), another run on the run directory
    adopts that batch: the submitting process looks dead to it (its host stopped renewing its
    heartbeat on a shared file system), so its leases and row are taken over."""

    store_dir: Path
    second: Any = None

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        create = record.method == "POST" and record.path.rstrip("/") == "/v1/batches"
        if create and not self.batches:
            super(CreatesThenFails, self).route(record, query, raw)  # the batch is created
            self._take_over()
            return self.error_answer(500, "upstream connect error")
        return super().route(record, query, raw)

    def _take_over(self) -> None:
        with RunStore(self.store_dir) as store, store.transaction() as conn:
            conn.execute(
                "UPDATE holders SET host = 'elsewhere', heartbeat_at = '2000-01-01T00:00:00+00:00'"
            )
            for batch_id, detail in conn.execute("SELECT batch_id, detail FROM batches").fetchall():
                data = json.loads(detail)
                data["holder"]["host"] = "elsewhere"
                conn.execute(
                    "UPDATE batches SET detail = ? WHERE batch_id = ?", (json.dumps(data), batch_id)
                )
        with RunStore(self.store_dir) as store:
            self.second = run_generation(store, [spec_for(self, "remote")], options=BATCH)


def test_a_batch_adopted_while_its_submitter_waits_is_collected_once(tmp_path: Path) -> None:
    """The submitting process then loses the answer: the row it would keep is gone (the batch's
    own row replaced it). It stops the model without a crash and without advising to give up a
    row that is no longer there; the batch is bought once, its results stored once."""
    from test_runner_support import prepared_store

    store = prepared_store(tmp_path / "run", poems=3)
    with AdoptedMeanwhile(api_key=TEST_KEY) as server:
        server.store_dir = Path(store.run_dir)
        first = run_generation(store, [spec_for(server, "remote", timeout_s=5)], options=BATCH)
        (lost,) = server.batches
        second = server.second
        assert second is not None and second.models[0].ok == 3, printed(second)
        assert f"found batch {lost}" in printed(second)

        (model,) = first.models
        assert model.not_run is not None, printed(first)
        assert "batches abandon" not in model.not_run
        assert "another run found that batch in the provider's batch list" in model.not_run
        assert len(submissions(server)) == 1 and len(server.batches) == 1
        assert [(r["batch_id"], r["status"]) for r in markers(store.run_dir)] == [
            (lost, "collected")
        ]
        rows = generation_rows(store, "remote")
        assert len(rows) == 3 and {r["status"] for r in rows} == {"ok"}

        third = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert third.models[0].ok == 0 and not third.incomplete
        assert len(submissions(server)) == 1 and len(generation_rows(store, "remote")) == 3
