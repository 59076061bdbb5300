"""`poemetric batches list` on the row written before a `--batch` submission (`unconfirmed-...`):
it named no process and said nothing of whether it still ran, so a user could not tell a live
submission (leave it) from a killed one or one whose answer was lost (look in the provider's
batch list, then `batches abandon --force`). Real processes through the real CLI, the local
OpenAI server holding its answer to the submission."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

from test_batch_shared_run import HoldFirst, poemetric, setup
from test_cluster_signals import start, wait_for
from test_runner_support import TEST_KEY

from poemetric.runner.batch_intent import keep_submission
from poemetric.store import RunStore


def test_batches_list_says_who_holds_a_submission_and_whether_it_runs(tmp_path: Path) -> None:
    host = socket.gethostname()
    with HoldFirst(api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        run, env = setup(tmp_path, server, poems=3)
        args = ["generate", "--run", str(run), "--models", "m", "--batch"]
        first = start(tmp_path, *args, env=env, log="first.log")
        try:
            wait_for(server.created.is_set, first)
            with RunStore(run) as store:
                (row,) = store.query("SELECT batch_id FROM batches")
            marker = str(row["batch_id"])
            abandon = f"batches abandon {marker} --run {run} --force"

            rc, live = poemetric(tmp_path, env, "batches", "list", "--run", str(run))
            assert rc == 0, live
            assert f"submission under way: pid {first.pid} on {host}, started 20" in live, live
            assert "still running" in live and abandon not in live and "killed" not in live

            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            server.release.set()

        rc, killed = poemetric(tmp_path, env, "batches", "list", "--run", str(run))
        assert rc == 0, killed
        assert f"killed mid-submission: pid {first.pid} on {host}" in killed, killed
        assert "no longer running" in killed and abandon in killed
        assert "under way: pid" not in killed

        # Narrow (a log at 80 columns): the same note under the batch's id.
        rc, narrow = poemetric(tmp_path, {**env, "COLUMNS": "80"}, "batches", "list", "--run",
                               str(run))  # fmt: skip
        assert f"note: killed mid-submission: pid {first.pid} on {host}" in narrow, narrow

        with RunStore(run) as store:
            keep_submission(store, marker, "read timeout")
        rc, lost = poemetric(tmp_path, env, "batches", "list", "--run", str(run))
        assert f"answer lost: read timeout; submitted by pid {first.pid} on {host}" in lost, lost
        assert abandon in lost
