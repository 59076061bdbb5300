"""A `--batch` submission whose answer was lost, where the provider's batch list shows the tag
each submission carries (OpenAI's `metadata`): the next run finds the batch there and collects
it instead of stopping the model; none found, or several, stops it with a line that says so.
Gemini's batch jobs carry it in their `display_name`. The real SDKs against the local servers,
which create the batch and then lose its answer (`batch_faults`, or a 500 sent after the batch
was created)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import openai
import pytest
from test_batch_lost_answer import markers
from test_runner_batch_faults import BATCH, printed, spec_for, submissions
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.providers import openai_batches, openai_provider
from poemetric.store import RunStore
from poemetric.testing.http_base import HttpAnswer, LocalServer, RecordedRequest
from poemetric.testing.servers import Fault, GeminiServer, OpenAIServer

TAG_KEY = openai_provider.SUBMISSION_TAG_KEY


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class CreatesThenFails(OpenAIServer):
    """Creates the first batch submitted, then answers `status` (a gateway's 500 or 502 sent
    after the server behind it did the work)."""

    status = 500

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        answer: HttpAnswer = super().route(record, query, raw)
        create = record.method == "POST" and record.path.rstrip("/") == "/v1/batches"
        if create and len(self.batches) == 1:
            return self.error_answer(self.status, "upstream connect error")
        return answer


class CreatesThen502(CreatesThenFails):
    status = 502


def sdk(server: OpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=TEST_KEY, max_retries=0)


def create_batch(server: OpenAIServer, metadata: dict[str, str], input_file_id: str) -> str:
    """A batch created by someone else (another tool, a copied run directory)."""
    with sdk(server) as client:
        batch = client.batches.create(
            input_file_id=input_file_id,
            endpoint="/v1/chat/completions",
            completion_window="24h",
            metadata=metadata,
        )
    return batch.id


def wait_for_batches(server: OpenAIServer, n: int) -> None:
    """A slow answer's batch is created after the client gave up: wait until it exists."""
    deadline = time.monotonic() + 10
    while len(server.batches) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.batches) == n


def lose_first_answer(tmp_path: Path, server: LocalServer) -> tuple[RunStore, str]:
    """A first run whose submission's answer is lost: its store and the marker left (its
    `max_retries: 0` searches no list in that run: `test_batch_retry_search`)."""
    store = prepared_store(tmp_path / "run", poems=3)
    first = spec_for(server, "remote", timeout_s=1, max_retries=0)
    report = run_generation(store, [first], options=BATCH)
    assert report.incomplete and report.models[0].left_pending == 3
    (row,) = markers(store.run_dir)
    marker = str(row["batch_id"])
    assert marker.startswith("unconfirmed-") and json.loads(row["detail"])["tagged"] is True
    line = " ".join(printed(report).split())
    assert (
        f"the next run with --batch looks for it in the provider's batch list (it carries {marker})"
        in line
    )
    assert "--force" not in line
    return store, marker


def listed(store: RunStore) -> str:
    """`poemetric batches list` of the run, its whitespace runs made single spaces."""
    result = CliRunner().invoke(
        app, ["batches", "list", "--run", str(store.run_dir)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


SEARCHED_FIRST = "the next run with --batch looks for it there first"


def assert_no_key(store: RunStore, server: OpenAIServer | GeminiServer, *texts: str) -> None:
    """The API key is in no batch's metadata (or name), no file of the run, no printed line."""
    for batch in server.batches.values():
        assert TEST_KEY not in json.dumps(batch.get("metadata"))
    for path in Path(store.run_dir).rglob("*"):
        if path.is_file():
            assert TEST_KEY.encode() not in path.read_bytes(), path
    for text in texts:
        assert TEST_KEY not in text


@pytest.mark.parametrize(
    ("server_type", "fault"),
    [
        (OpenAIServer, Fault.slow(3.0)),  # the client's timeout
        (OpenAIServer, Fault.disconnect()),  # the connection dropped mid-answer
        (OpenAIServer, Fault.truncated()),  # a 200 cut in half
        (OpenAIServer, Fault.invalid_json()),  # a proxy's HTML page
        (CreatesThenFails, None),  # a 500 after the batch was created
        (CreatesThen502, None),
    ],
    ids=["timeout", "disconnect", "truncated", "invalid-json", "500", "502"],
)
def test_a_lost_answer_is_found_in_the_batch_list_and_collected_once(
    tmp_path: Path, server_type: type[OpenAIServer], fault: Fault | None
) -> None:
    with server_type(api_key=TEST_KEY, batch_faults=[fault]) as server:
        store, marker = lose_first_answer(tmp_path, server)
        assert len(submissions(server)) == 1
        wait_for_batches(server, 1)
        ((batch_id, batch),) = server.batches.items()
        assert batch["metadata"] == {TAG_KEY: marker}

        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = again.models
        assert len(submissions(server)) == 1 and len(server.batches) == 1  # nothing bought twice
        assert model.ok == 3 and not again.incomplete and model.not_run is None
        assert server.batch_list_requests == 1
        line = " ".join(printed(again).split())
        assert (
            f"found batch {batch_id} in the provider's batch list (1 batch searched): the "
            f"submission {marker} of 3 jobs" in line
        )
        (row,) = markers(store.run_dir)  # the marker replaced by the batch's own row
        assert row["batch_id"] == batch_id and row["status"] == "collected"
        rows = generation_rows(store, "remote")
        assert len(rows) == 3 and {r["status"] for r in rows} == {"ok"}
        assert len({(r["prompt_id"], r["sample_index"]) for r in rows}) == 3  # each once

        third = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert third.models[0].ok == 0 and not third.incomplete
        assert len(submissions(server)) == 1 and server.batch_list_requests == 1
        assert len(generation_rows(store, "remote")) == 3
        with RunStore(store.run_dir) as reader:
            searches = reader.query(
                "SELECT cache_key, outcome, detail FROM calls WHERE detail LIKE 'batch list%'"
            )
        assert [(r["cache_key"], r["outcome"]) for r in searches] == [(marker, "batch-ok")]
        assert_no_key(store, server, line, printed(third))


def test_none_found_stops_the_model_and_says_how_many_were_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 500 before the batch was created: the list holds none of it. Still not submitted
    again (a list may lag behind): the row is given up by hand, as before. The list is read
    page by page, down to the batches created before the row was written."""
    monkeypatch.setattr(openai_batches, "LIST_PAGE", 1)
    with OpenAIServer(api_key=TEST_KEY, batch_faults=[Fault.server_error(500)]) as server:
        store, marker = lose_first_answer(tmp_path, server)
        assert server.batches == {}
        upload = next(iter(server.files))
        old = create_batch(server, {TAG_KEY: marker + "0"}, upload)
        server.batches[old]["created_at"] -= 3 * 3600  # before the row: not read
        create_batch(server, {"project": "other"}, upload)
        create_batch(server, {TAG_KEY: "unconfirmed-000000000000"}, upload)

        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = again.models
        assert again.incomplete and model.left_pending == 3 and model.ok == 0
        assert len(submissions(server)) == 4 and len(server.batches) == 3  # none by this run
        assert server.batch_list_requests == 3  # two pages of one, then the old batch's
        assert model.not_run is not None
        assert "lost the provider's answer to its submission of 1 batch of 3 jobs" in model.not_run
        assert (
            "the provider's batch list (2 batches searched) holds no batch of that submission, "
            "but a list may lag behind a batch just created" in model.not_run
        )
        assert f"batches abandon {marker} --run {store.run_dir} --force" in model.not_run
        assert [r["batch_id"] for r in markers(store.run_dir)] == [marker]
        text = listed(store)
        assert f"The batch of {marker} carries that id in the provider's batch list" in text
        assert SEARCHED_FIRST in text and f"batches abandon {marker}" in text
        assert_no_key(store, server, model.not_run)


def test_several_found_stop_the_model_naming_them(tmp_path: Path) -> None:
    """Two batches carry the row's id (sent twice, by a retry): each is paid for and only one
    can be collected, so none is taken; once one is cancelled, the other is."""
    with CreatesThenFails(api_key=TEST_KEY) as server:
        store, marker = lose_first_answer(tmp_path, server)
        ((first, batch),) = server.batches.items()
        second = create_batch(server, {TAG_KEY: marker}, batch["input_file_id"])

        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = again.models
        assert again.incomplete and model.left_pending == 3 and model.ok == 0
        assert len(server.batches) == 2 and generation_rows(store, "remote") == []
        assert model.not_run is not None
        assert (
            f"the provider's batch list (2 batches searched) holds 2 batches of the submission "
            f"{marker} ({second}, {first})" in model.not_run
        )
        assert "Cancel all but one of them in the provider's batch list" in model.not_run
        assert [r["batch_id"] for r in markers(store.run_dir)] == [marker]

        with sdk(server) as client:
            client.batches.cancel(second)
        third = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        assert third.models[0].ok == 3 and not third.incomplete
        assert [r["batch_id"] for r in markers(store.run_dir)] == [first]
        assert len(server.batches) == 2


def test_a_row_without_a_tag_is_not_searched_for(tmp_path: Path) -> None:
    """A row written before its batch carried a tag (an earlier poemetric): a list without it
    proves nothing, so the list is not read and the model stops as before."""
    with CreatesThenFails(api_key=TEST_KEY) as server:
        store, marker = lose_first_answer(tmp_path, server)
        with store.transaction() as conn:
            (row,) = conn.execute("SELECT detail FROM batches").fetchall()
            detail = {k: v for k, v in json.loads(row[0]).items() if k != "tagged"}
            conn.execute("UPDATE batches SET detail = ?", (json.dumps(detail),))
        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = again.models
        assert server.batch_list_requests == 0 and model.ok == 0 and model.left_pending == 3
        assert model.not_run is not None and "batches searched" not in model.not_run
        assert SEARCHED_FIRST not in listed(store)
        assert f"batches abandon {marker} --run {store.run_dir} --force" in model.not_run


@pytest.mark.parametrize(
    "fault", [Fault.disconnect(), Fault.slow(3.0)], ids=["disconnect", "timeout"]
)
def test_a_gemini_batch_is_found_by_its_display_name(tmp_path: Path, fault: Fault) -> None:
    with GeminiServer(api_key=TEST_KEY, batch_faults=[fault]) as server:
        store, marker = lose_first_answer(tmp_path, server)
        deadline = time.monotonic() + 10
        while not server.batches and time.monotonic() < deadline:
            time.sleep(0.05)
        ((name, batch),) = server.batches.items()
        assert batch["metadata"]["displayName"] == f"poemetric-remote-{marker}"

        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = again.models
        assert model.ok == 3 and not again.incomplete, printed(again)
        assert len(submissions(server)) == 1 and len(server.batches) == 1
        assert server.batch_list_requests == 1
        line = " ".join(printed(again).split())
        assert f"found batch {name} in the provider's batch list (1 batch searched)" in line
        assert [(r["batch_id"], r["status"]) for r in markers(store.run_dir)] == [
            (name, "collected")
        ]
        assert len(generation_rows(store, "remote")) == 3
        assert_no_key(store, server, line)


def test_no_gemini_batch_found_says_so(tmp_path: Path) -> None:
    """A 500 before the batch job was created: none in the list; the model stops as before."""
    with GeminiServer(api_key=TEST_KEY, batch_faults=[Fault.server_error(500)]) as server:
        store, marker = lose_first_answer(tmp_path, server)
        again = run_generation(store, [spec_for(server, "remote")], options=BATCH)
        (model,) = again.models
        assert model.ok == 0 and model.left_pending == 3 and server.batches == {}
        assert model.not_run is not None
        assert "the provider's batch list (0 batches searched) holds no batch" in model.not_run
        assert f"batches abandon {marker} --run {store.run_dir} --force" in model.not_run


class ListFails(CreatesThenFails):
    """As `CreatesThenFails`, and its batch list answers 500, always."""

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        if record.method == "GET" and record.path.rstrip("/") == "/v1/batches":
            return self.error_answer(500, "list unavailable")
        return super().route(record, query, raw)


def test_a_batch_list_that_cannot_be_read_stops_the_model_as_before(tmp_path: Path) -> None:
    """The list call is retried like any batch request, then the model stops as it did before
    the search existed, the line saying why it found nothing."""
    with ListFails(api_key=TEST_KEY) as server:
        store, marker = lose_first_answer(tmp_path, server)
        again = run_generation(store, [spec_for(server, "remote", max_retries=2)], options=BATCH)
        (model,) = again.models
        assert model.ok == 0 and model.left_pending == 3 and len(submissions(server)) == 1
        assert server.batch_list_requests == 3
        assert model.not_run is not None
        assert "the provider's batch list could not be searched for it (" in model.not_run
        assert "HTTP 500" in model.not_run
        assert f"batches abandon {marker} --run {store.run_dir} --force" in model.not_run
        with RunStore(store.run_dir) as reader:
            outcomes = [
                r["outcome"]
                for r in reader.query(
                    "SELECT outcome FROM calls WHERE cache_key = ? ORDER BY rowid", (marker,)
                )
            ]
        assert outcomes == ["batch-retry", "batch-retry", "batch-error"]
