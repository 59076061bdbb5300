"""An OpenAI-compatible batch API that refuses the `metadata` field carrying each submission's
tag (`FindsBatches`): the refusal (400 or 422 naming `metadata`) created no batch, so the same
batch is submitted again untagged, once, and the model's later submissions in the run go
untagged without another refused call; said once under the summary. A 400 for another reason,
a timeout or a 500 keep their old paths. The real `openai` SDK against the local server made
to refuse `metadata` (`refuse_batch_metadata`)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from provider_support import chat_request
from test_batch_lost_answer import markers
from test_runner_batch_faults import BATCH, printed, spec_for, submissions
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers.base import TagRefused
from poemetric.providers.openai_provider import OpenAICompatibleProvider
from poemetric.store import RunStore
from poemetric.testing.servers import Fault, OpenAIServer

#: How compatible servers word the refusal: OpenAI's own shape (an unknown parameter), a
#: FastAPI server with `extra="forbid"` (its 422 echoes the request under `input`), vLLM's.
REFUSALS = {
    "openai-unknown-parameter": (
        400,
        {
            "error": {
                "message": "Unrecognized request argument supplied: metadata",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        },
    ),
    "fastapi-extra-forbidden": (
        422,
        {
            "detail": [
                {
                    "type": "extra_forbidden",
                    "loc": ["body", "metadata"],
                    "msg": "Extra inputs are not permitted",
                    "input": {"poemetric_submission": "unconfirmed-0"},
                }
            ]
        },
    ),
    "vllm-bad-request": (
        400,
        {
            "object": "error",
            "message": "[{'type': 'extra_forbidden', 'loc': ('body', 'metadata'), "
            "'msg': 'Extra inputs are not permitted'}]",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
    ),
}
#: A 422 for another field, echoing the request's raw body (its `metadata` too) under `input`,
#: as pydantic does for a body validated from its JSON text.
OTHER_422 = (
    422,
    {
        "detail": [
            {
                "type": "missing",
                "loc": ["body", "completion_window"],
                "msg": "Field required",
                "input": '{"input_file_id": "file-1", "metadata": {"poemetric_submission": "x"}}',
            }
        ]
    },
)
UNTAGGED_WARNING = "its batch API refused the tag sent with each batch submission"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def batch_calls(store: RunStore) -> list[tuple[str, int | None]]:
    """The call log's rows of batch submissions: (outcome, HTTP status)."""
    with RunStore(store.run_dir) as reader:
        rows = reader.query(
            "SELECT outcome, http_status FROM calls WHERE detail LIKE 'batch submission%' "
            "ORDER BY rowid"
        )
    return [(r["outcome"], r["http_status"]) for r in rows]


@pytest.mark.parametrize("refusal", list(REFUSALS.values()), ids=list(REFUSALS))
def test_a_refused_tag_submits_untagged_once_and_later_batches_go_untagged(
    tmp_path: Path, refusal: tuple[int, Any]
) -> None:
    """Five jobs in three batches of at most two: one refused tagged create, then three
    untagged ones, all collected; the warning said once."""
    store = prepared_store(tmp_path / "run", poems=5)
    options = dataclasses.replace(BATCH, batch_max_items=2)
    with OpenAIServer(api_key=TEST_KEY, refuse_batch_metadata=refusal) as server:
        report = run_generation(store, [spec_for(server, "compat")], options=options)
        (model,) = report.models
        assert (model.ok, model.errors, model.not_run) == (5, 0, None) and not report.incomplete
        creates = [r for r in server.requests if r.path.rstrip("/") == "/v1/batches"]
        creates = [r for r in creates if r.method == "POST"]
        assert len(creates) == 4 == len(submissions(server))  # one refused, three accepted
        assert "metadata" in creates[0].body and all("metadata" not in r.body for r in creates[1:])
        assert len(server.batches) == 3 and server.batch_list_requests == 0
        assert all(batch["metadata"] is None for batch in server.batches.values())
        # The refused create's upload is deleted: each file left is a batch's input or output.
        used = {
            b[key] for b in server.batches.values() for key in ("input_file_id", "output_file_id")
        }
        assert len(server.files) == 6 and set(server.files) <= used
    assert batch_calls(store) == [("batch-error", refusal[0])] + [("batch-ok", None)] * 3
    rows = generation_rows(store, "compat")
    assert len(rows) == 5 and {r["status"] for r in rows} == {"ok"}
    assert {r["batch_id"] for r in markers(store.run_dir)} == set(model.batch_ids)
    (warning,) = model.warnings
    assert warning.startswith(UNTAGGED_WARNING) and f"HTTP {refusal[0]}" in warning
    line = " ".join(printed(report).split())
    assert line.count(UNTAGGED_WARNING) == 1
    assert "a lost answer to a submission" in line and "batches abandon ... --force" in line
    assert TEST_KEY not in line


@pytest.mark.parametrize(
    ("refusal", "fault", "said"),
    [
        (None, Fault.client_error(400, "bad batch: metadata_x"), "HTTP 400: bad batch"),
        (OTHER_422, None, "HTTP 422"),
    ],
    ids=["400-other-reason", "422-echoing-metadata"],
)
def test_a_refusal_for_another_reason_fails_as_before(
    tmp_path: Path, refusal: tuple[int, Any] | None, fault: Fault | None, said: str
) -> None:
    """Not a refusal of `metadata` (its words, not the request's echo, decide): the model stops
    as before after the one refused create, nothing resubmitted untagged."""
    store = prepared_store(tmp_path / "run", poems=3)
    faults = [fault] if fault else None
    with OpenAIServer(
        api_key=TEST_KEY, refuse_batch_metadata=refusal, batch_faults=faults
    ) as server:
        report = run_generation(store, [spec_for(server, "compat")], options=BATCH)
        (model,) = report.models
        assert report.incomplete and model.left_pending == 3 and model.ok == 0
        assert (
            model.not_run is not None
            and f"batch submission failed: openai-compatible: {said}" in model.not_run
        )
        assert len(submissions(server)) == 1 and server.batches == {}
        assert model.warnings == [] and markers(store.run_dir) == []
    assert batch_calls(store) == [("batch-error", refusal[0] if refusal else 400)]


def test_a_500_is_not_a_refusal_the_lost_answer_keeps_its_tagged_row(tmp_path: Path) -> None:
    """A 500 answering the tagged create may come after the batch was created: not sent again
    untagged; its row stays tagged, for the batch list search, as before."""
    store = prepared_store(tmp_path / "run", poems=3)
    refusal = REFUSALS["openai-unknown-parameter"]
    faults = [Fault.server_error(500)]
    with OpenAIServer(
        api_key=TEST_KEY, refuse_batch_metadata=refusal, batch_faults=faults
    ) as server:
        spec = spec_for(server, "compat", max_retries=0)
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        assert report.incomplete and model.left_pending == 3 and model.warnings == []
        assert len(submissions(server)) == 1 and server.batches == {}
        (row,) = markers(store.run_dir)
        detail = json.loads(row["detail"])
        assert (
            row["status"] == "submitting"
            and detail["tagged"] is True
            and "HTTP 500" in detail["lost"]
        )


def test_a_lost_answer_to_the_untagged_submission_is_not_paid_twice(tmp_path: Path) -> None:
    """The untagged resubmission's answer lost (a timeout after the batch was created): its row
    is kept untagged, so no list search is made and the next run stops the model instead of
    submitting again."""
    store = prepared_store(tmp_path / "run", poems=3)
    refusal = REFUSALS["fastapi-extra-forbidden"]
    faults = [None, Fault.slow(3.0)]  # the refused tagged create, then the untagged one's
    with OpenAIServer(
        api_key=TEST_KEY, refuse_batch_metadata=refusal, batch_faults=faults
    ) as server:
        spec = spec_for(server, "compat", timeout_s=1)
        report = run_generation(store, [spec], options=BATCH)
        (model,) = report.models
        assert report.incomplete and model.left_pending == 3 and model.ok == 0
        assert len(submissions(server)) == 2 and server.batch_list_requests == 0
        (row,) = markers(store.run_dir)
        marker = row["batch_id"]
        assert row["status"] == "submitting" and "tagged" not in json.loads(row["detail"])
        assert model.not_run is not None and f"batches abandon {marker}" in model.not_run

        again = run_generation(store, [spec_for(server, "compat")], options=BATCH)
        assert again.incomplete and again.models[0].left_pending == 3
        assert len(submissions(server)) == 2  # the next run did not submit those jobs again
        assert len(server.batches) <= 1 and server.batch_list_requests == 0
        assert generation_rows(store, "compat") == []


def test_the_adapter_raises_tag_refused_and_submits_untagged(tmp_path: Path) -> None:
    """`submit_tagged_batch` against a server refusing `metadata`: `TagRefused` (no batch, not
    retryable, `not_sent`); `submit_batch` of the same items is accepted."""
    with OpenAIServer(
        api_key=TEST_KEY, refuse_batch_metadata=REFUSALS["vllm-bad-request"]
    ) as server:
        spec = spec_for(server, "compat")
        items = [("a", chat_request(("user", "hello")))]

        async def go() -> tuple[BaseException | None, str]:
            provider = OpenAICompatibleProvider(spec)
            try:
                try:
                    await provider.submit_tagged_batch(items, "unconfirmed-1")
                except TagRefused as error:
                    refused: BaseException | None = error
                else:
                    refused = None
                return refused, await provider.submit_batch(items)
            finally:
                await provider.aclose()

        refused, batch_id = asyncio.run(go())
    assert isinstance(refused, TagRefused)
    assert refused.status == 400 and refused.not_sent and not refused.retryable
    assert list(server.batches) == [batch_id]
    # the refused create's upload was deleted: the files left are the batch's input and output
    batch = server.batches[batch_id]
    assert set(server.files) == {batch["input_file_id"], batch["output_file_id"]}
