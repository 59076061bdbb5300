"""SIGKILL while a `--batch` submission is in flight: the provider may have accepted the batch
(and charges for it) although its id never reached the store. The resume must not submit those
jobs again (paying twice) but say what to do, or (OpenAI, whose batch list shows the tag each
submission carries) find the batch and collect it. Real processes through the real CLI, the local
OpenAI and Anthropic servers holding their answer to the submission."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from test_cluster_signals import start, wait_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store

from poemetric.store import RunStore
from poemetric.testing.http_base import HttpAnswer, LocalServer, RecordedRequest
from poemetric.testing.servers import AnthropicServer, OpenAIServer

MODEL_FILE = """\
name: m
provider: {provider}
model: {model}
base_url: {base_url}
api_key_env: {key_env}
pricing: {{input_per_mtok: 3.0, output_per_mtok: 15.0, batch_discount: 0.5}}
limits: {{max_concurrency: 2, timeout_s: 30, max_retries: 2}}
"""


def holding(base: type[LocalServer]) -> type[LocalServer]:
    """`base` that creates a submitted batch, then holds its answer while `hold` is set."""

    class Holding(base):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.hold = True
            self.created = threading.Event()
            self.release = threading.Event()

        def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
            answer: HttpAnswer = super().route(record, query, raw)
            if (
                self.hold
                and record.method == "POST"
                and self.is_batch_control(record.method, record.path)
            ):
                self.created.set()
                self.release.wait(30)
            return answer

    return Holding


def submissions(server: LocalServer) -> int:
    return sum(
        1
        for r in server.requests
        if r.method == "POST" and server.is_batch_control(r.method, r.path)
    )


def poemetric(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    """`python -m poemetric ARGS` in `tmp_path` with the test key and `env`: its exit code and
    its output (stdout and stderr) with whitespace runs made single spaces."""
    done = subprocess.run(
        [sys.executable, "-m", "poemetric", *args],
        env={**os.environ, TEST_KEY_ENV: TEST_KEY, "COLUMNS": "400", **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, " ".join((done.stdout + done.stderr).split())


@pytest.mark.parametrize("base", [OpenAIServer, AnthropicServer], ids=["openai", "anthropic"])
def test_a_batch_submission_killed_in_flight_is_not_submitted_again(
    tmp_path: Path, base: type[LocalServer]
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=3).close()
    provider, model = ("openai-compatible", "test-model")
    if base is AnthropicServer:
        provider, model = ("anthropic", "claude-test")
    with holding(base)(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        models = tmp_path / "models"
        models.mkdir()
        (models / "m.yaml").write_text(
            MODEL_FILE.format(
                provider=provider, model=model, base_url=server.base_url, key_env=TEST_KEY_ENV
            )
        )
        env = {"POEMETRIC_GENERATORS_DIR": str(models)}
        args = ["generate", "--run", str(run), "--models", "m", "--batch"]
        process = start(tmp_path, *args, env=env, log="first.log")
        wait_for(server.created.is_set, process)  # the batch exists; its id not yet received
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        server.hold = False
        server.release.set()
        assert submissions(server) == 1

        code, output = poemetric(tmp_path, env, *args)
        # Not submitted again: the first batch may be answered and charged for.
        assert submissions(server) == 1
        if base is OpenAIServer:  # its batch carries the row's id: found in the batch list
            assert code == 0, output
            assert "found batch batch_" in output and "nothing is submitted again" in output
            assert len(server.batches) == 1
            with RunStore(run) as store:
                (row,) = store.query("SELECT batch_id, status FROM batches")
                assert store.count("generations", "author = 'm' AND status = 'ok'") == 3
            assert row["batch_id"] in server.batches and row["status"] == "collected"
            return
        assert code == 1, output
        assert "killed while submitting 1 batch of 3 jobs" in output
        assert "may have accepted it and charges for it" in output
        with RunStore(run) as store:
            (row,) = store.query("SELECT batch_id, status FROM batches")
            assert store.count("generations", "author = 'm' AND status = 'ok'") == 0
        assert row["status"] == "submitting" and row["batch_id"].startswith("unconfirmed-")
        assert f"batches abandon {row['batch_id']} --run {run} --force" in output

        # Given up by hand (after a look at the provider's batch list): submitted again, once.
        abandon = subprocess.run(
            [sys.executable, "-m", "poemetric", "batches", "abandon", row["batch_id"],
             "--run", str(run), "--force"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert abandon.returncode == 0, abandon.stdout + abandon.stderr
        code, output = poemetric(tmp_path, env, *args)
        assert code == 0, output
        assert submissions(server) == 2
        with RunStore(run) as store:
            assert store.count("generations", "author = 'm' AND status = 'ok'") == 3
