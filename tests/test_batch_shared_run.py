"""Processes sharing one run directory with `--batch`: the row another live process wrote before
its submission (`unconfirmed-...`) is no trace of a kill. Shard 1/2 run while shard 0/2 waits for
the provider's answer to its submission ran its own jobs; it stopped, exit status 1, telling the
user to cancel the other shard's live batch. A plan (`--dry-run`), and a run without --batch,
said that a killed submission's jobs would be collected, where the run stops the model. Real
processes through the real CLI and the real SDK, the local OpenAI server holding its answer."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

from test_batch_killed_submission import MODEL_FILE, poemetric, submissions
from test_cluster_signals import start, wait_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store

from poemetric.store import RunStore
from poemetric.testing.http_base import HttpAnswer, RecordedRequest
from poemetric.testing.servers import OpenAIServer


class HoldFirst(OpenAIServer):
    """Creates every batch, but holds its answer to the first submission until `release`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.created = threading.Event()
        self.release = threading.Event()

    def route(self, record: RecordedRequest, query: Any, raw: bytes) -> HttpAnswer:
        answer: HttpAnswer = super().route(record, query, raw)
        if (
            record.method == "POST"
            and self.is_batch_control(record.method, record.path)
            and not self.created.is_set()
        ):
            self.created.set()
            self.release.wait(60)
        return answer


def setup(tmp_path: Path, server: OpenAIServer, poems: int) -> tuple[Path, dict[str, str]]:
    run = tmp_path / "run"
    prepared_store(run, poems=poems).close()
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
    return run, {"POEMETRIC_GENERATORS_DIR": str(models)}


def ok(run: Path) -> int:
    with RunStore(run) as store:
        return store.count("generations", "author = 'm' AND status = 'ok'")


def test_a_shard_runs_while_another_waits_for_its_submission(tmp_path: Path) -> None:
    with HoldFirst(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        run, env = setup(tmp_path, server, poems=8)
        args = ["generate", "--run", str(run), "--models", "m", "--batch"]
        first = start(tmp_path, *args, "--shard", "0/2", env=env, log="first.log")
        try:
            wait_for(server.created.is_set, first)  # shard 0's batch exists, its id not stored
            with RunStore(run) as store:
                (marker,) = store.query("SELECT batch_id, request_keys FROM batches")
            assert marker["batch_id"].startswith("unconfirmed-")

            rc, output = poemetric(tmp_path, env, *args, "--shard", "1/2")
            assert rc == 0, output
            assert "killed" not in output and "cancel it" not in output
            assert submissions(server) == 2  # its own jobs, in a batch of its own
            mine = ok(run)
            assert 0 < mine < 8
        finally:
            server.release.set()
        assert first.wait(timeout=120) == 0, (tmp_path / "first.log").read_text()
        assert submissions(server) == 2 and ok(run) == 8


def test_plans_and_runs_without_batch_say_a_killed_submission_stops_the_model(
    tmp_path: Path,
) -> None:
    with HoldFirst(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        run, env = setup(tmp_path, server, poems=3)
        args = ["generate", "--run", str(run), "--models", "m"]
        first = start(tmp_path, *args, "--batch", env=env, log="first.log")
        try:
            wait_for(server.created.is_set, first)
            # Still submitting: a plan leaves its jobs to it and says neither kill nor abandon.
            rc, output = poemetric(tmp_path, env, *args, "--batch", "--dry-run")
            assert rc == 0, output
            assert (
                f"3 jobs are in a batch submission under way in another process (pid {first.pid}"
                in output
            )
            assert "killed" not in output and "abandon" not in output
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            server.release.set()
        with RunStore(run) as store:
            (row,) = store.query("SELECT batch_id FROM batches")
        abandon = f"batches abandon {row['batch_id']} --run {run} --force"

        search = (
            "a run with --batch first searches the provider's batch list for it (the batch "
            "carries the row's id) and collects it if it is there"
        )
        rc, plan = poemetric(tmp_path, env, *args, "--batch", "--dry-run")
        assert rc == 0, plan
        assert "not counted as planned calls: the run stops the model" in plan
        assert search in plan
        assert "killed while submitting 1 batch of 3 jobs" in plan and abandon in plan
        assert "the run polls it and collects them" not in plan
        assert server.batch_list_requests == 0  # a plan asks the provider nothing

        rc, plan = poemetric(tmp_path, env, *args, "--dry-run")
        assert "one with --batch stops the model" in plan and abandon in plan, plan
        assert search in plan and "with --batch to collect them" not in plan

        calls = len(server.requests)
        rc, output = poemetric(tmp_path, env, *args)
        assert "a run with --batch stops the model on it" in output and abandon in output, output
        assert "with --batch to collect them" not in output
        assert len(server.requests) == calls and ok(run) == 0  # nothing called, nothing paid

        rc, output = poemetric(tmp_path, env, *args, "--batch")  # as the plan said
        assert rc == 0 and "found batch batch_" in output, output  # OpenAI's list shows its tag
        assert submissions(server) == 1 and len(server.batches) == 1 and ok(run) == 3
