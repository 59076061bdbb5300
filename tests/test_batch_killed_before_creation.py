"""A `--batch` submission cut short before the request that creates its batch (SIGKILL while the
SDK is imported or the input file uploads) created no batch: the resume submits those jobs and
collects them. Its row in the store (`unconfirmed-...`, which stops the model until a user looks
in the provider's batch list and gives it up with `batches abandon --force`) is written right
before that request, never after it: a batch the provider may have created is never bought
twice. Real processes and SDKs against the local servers."""

from __future__ import annotations

import signal
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from test_batch_killed_submission import MODEL_FILE, poemetric, submissions
from test_cluster_signals import start, wait_for
from test_runner_batch_faults import BATCH, spec_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers import registry
from poemetric.providers.batch_api import announces_creation, announcing_creation
from poemetric.providers.openai_provider import OpenAICompatibleProvider
from poemetric.store import RunStore
from poemetric.testing.http_base import HttpAnswer, LocalServer, RecordedRequest
from poemetric.testing.servers import AnthropicServer, GeminiServer, OpenAIServer


class HeldUpload(OpenAIServer):
    """Holds the upload of a batch's input file (before any batch is created) until released."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.uploading = threading.Event()
        self.release = threading.Event()

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        if record.method == "POST" and record.path.rstrip("/").endswith("/files"):
            self.uploading.set()
            self.release.wait(30)
        answer: HttpAnswer = super().route(record, query, raw)
        return answer


def test_killed_while_uploading_the_batch_file_the_resume_submits_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=3).close()
    with HeldUpload(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        models = tmp_path / "models"
        models.mkdir()
        (models / "m.yaml").write_text(
            MODEL_FILE.format(
                provider="openai-compatible",
                model="test-model",
                base_url=server.base_url,
                key_env=TEST_KEY_ENV,
            )
        )
        env = {"POEMETRIC_GENERATORS_DIR": str(models)}
        args = ["generate", "--run", str(run), "--models", "m", "--batch"]
        process = start(tmp_path, *args, env=env, log="first.log")
        wait_for(server.uploading.is_set, process)  # no batch can exist yet
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        server.release.set()
        assert submissions(server) == 0
        with RunStore(run) as store:
            assert store.count("batches") == 0  # nothing that stops the model

        code, output = poemetric(tmp_path, env, *args)
        assert code == 0, output
        assert "killed while submitting" not in output
        assert submissions(server) == 1 and len(server.batches) == 1
        with RunStore(run) as store:
            assert store.count("generations", "author = 'm' AND status = 'ok'") == 3
            (row,) = store.query("SELECT batch_id, status FROM batches")
        assert row["batch_id"] in server.batches and row["status"] == "collected"


def checking(base: type[LocalServer], store_file: Path, seen: list[list[str]]) -> LocalServer:
    """`base` that notes, as each batch submission arrives, the rows the run store holds."""

    class Checking(base):  # type: ignore[misc,valid-type]
        def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
            if record.method == "POST" and self.is_batch_control(record.method, record.path):
                with sqlite3.connect(store_file) as conn:
                    rows = conn.execute("SELECT batch_id FROM batches").fetchall()
                seen.append([str(r[0]) for r in rows])
            answer: HttpAnswer = super().route(record, query, raw)
            return answer

    server: LocalServer = Checking(api_key=TEST_KEY, batch_polls_in_progress=0)
    return server


@pytest.mark.parametrize(
    "base", [OpenAIServer, AnthropicServer, GeminiServer], ids=["openai", "anthropic", "gemini"]
)
def test_the_row_is_stored_before_the_batch_is_created(
    tmp_path: Path, base: type[LocalServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = prepared_store(tmp_path, poems=3)
    seen: list[list[str]] = []
    with checking(base, store.path, seen) as server:
        report = run_generation(store, [spec_for(server, "remote")], options=BATCH)
    assert report.models[0].ok == 3, report.models[0]
    ((marker,),) = seen  # one submission, its row written before it arrived
    assert marker.startswith("unconfirmed-")
    (row,) = store.query("SELECT batch_id, status FROM batches")
    assert row["status"] == "collected" and not row["batch_id"].startswith("unconfirmed-")


class _SilentSubmission(OpenAICompatibleProvider):
    """A plugin built on the OpenAI adapter whose own submission creates the batch without
    saying `creating_batch()` first (it keeps the parent's `announces_creation = True`)."""

    async def _submit(self, *args: Any, **kwargs: Any) -> str:
        with announcing_creation(lambda: None):  # the runner's hook never hears of the creation
            batch_id: str = await super()._submit(*args, **kwargs)
        return batch_id


def test_a_subclass_redefining_its_submission_gets_its_row_before_submit_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taken at its parent's word, a subclass whose submission does not announce the creation
    left no row while its batch was created: a kill then lost the batch and bought it again."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    monkeypatch.setitem(registry._REGISTERED, "silent-submission", _SilentSubmission)
    assert announces_creation(OpenAICompatibleProvider.__new__(OpenAICompatibleProvider))
    assert not announces_creation(_SilentSubmission.__new__(_SilentSubmission))
    store = prepared_store(tmp_path, poems=3)
    seen: list[list[str]] = []
    with checking(OpenAIServer, store.path, seen) as server:
        spec = spec_for(server, "remote").model_copy(update={"provider": "silent-submission"})
        report = run_generation(store, [spec], options=BATCH)
    assert report.models[0].ok == 3, report.models[0]
    ((marker,),) = seen  # its row was written before the submission arrived
    assert marker.startswith("unconfirmed-")
