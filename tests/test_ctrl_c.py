"""Ctrl-C during `generate`, `judge` and `--batch`: the first one lets the answers in flight
arrive and be stored, a second stops at once. Real processes through the real CLI, real SIGINT
to the process group (as a terminal sends it), the local OpenAI server counting every request."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_cluster_signals import (
    HeldAfter,
    model_dir,
    ok_rows,
    start,
    stop_with_answers_in_flight_then_resume,
    stopped,
    wait_for,
)
from test_judge_reask_stop import judge_dir, judged_run
from test_runner_support import TEST_KEY, prepared_store

from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

pytestmark = pytest.mark.usefixtures("ctrl_c_from_a_terminal")

WAITING = "Ctrl-C: no new request starts; waiting up to"
AGAIN = "(Ctrl-C again to stop now)"


def log_says(tmp_path: Path, text: str, log: str = "job.log") -> bool:
    return text in (tmp_path / log).read_text()


def ctrl_c(process: subprocess.Popen[str]) -> None:
    os.killpg(process.pid, signal.SIGINT)  # a terminal sends it to the whole foreground group


@pytest.mark.parametrize("stage", ["generate", "judge"])
def test_the_first_ctrl_c_lets_answers_in_flight_arrive_and_the_resume_pays_for_none_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    status, output, args = stop_with_answers_in_flight_then_resume(
        tmp_path, monkeypatch, stage, ctrl_c, WAITING
    )
    assert status == 130, output
    assert f"{WAITING} 20 s for the 2 in flight to be answered and stored {AGAIN}" in output
    assert "Interrupted." in output and "Interrupted by" not in output
    assert "nothing is lost" in output and "dropped" not in output  # both answers stored
    assert f"Resume with:\n  poemetric {' '.join(args)}" in output


def test_a_second_ctrl_c_stops_at_once_without_waiting_for_the_answers(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    responder = HeldAfter(2)
    try:
        with OpenAIServer(responder, api_key=TEST_KEY) as server:
            env = {
                "POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url)),
                "POEMETRIC_STOP_GRACE": "120",  # only the second Ctrl-C can end it in time
            }
            args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "4"]
            process = start(tmp_path, *args, env=env, log="job.log")
            wait_for(lambda: ok_rows(run) == 2 and len(server.generation_requests) == 4, process)
            ctrl_c(process)
            wait_for(lambda: log_says(tmp_path, WAITING), process)
            began = time.monotonic()
            ctrl_c(process)
            output = stopped(process, tmp_path / "job.log")
            assert time.monotonic() - began < 30
            assert process.returncode == 130, output
            assert "waiting up to 120 s for the 2 in flight" in output
            assert "Interrupted." in output and "Traceback" not in output
            # Their answers are lost, paid or not: the message must not say nothing is.
            assert "nothing is lost" not in output
            assert (
                "2 requests still in flight were dropped (a second Ctrl-C stopped it at once): "
                "the provider may charge for them, and the resume asks them again."
            ) in output
            with RunStore(run) as store:  # the two abandoned requests are pending, not failed
                assert store.count("generations", "author = 'remote-test'") == 2
                assert store.count("calls", "outcome != 'ok'") == 0
                assert store.count("leases") == 0 and store.count("holders") == 0
    finally:
        responder.release.set()


def test_ctrl_c_during_a_batch_submission_stores_its_id_and_the_resume_polls_it(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=3).close()
    responder = HeldAfter(0)  # the server holds the submission (it answers each item)
    with OpenAIServer(responder, api_key=TEST_KEY, batch_polls_in_progress=0) as server:
        env = {"POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url))}
        args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "3", "--batch"]

        def submissions() -> int:
            return sum(1 for r in server.requests if r.method == "POST" and r.path == "/v1/batches")

        process = start(tmp_path, *args, env=env, log="job.log")
        wait_for(lambda: submissions() == 1, process)
        ctrl_c(process)
        wait_for(lambda: log_says(tmp_path, WAITING), process)
        responder.release.set()
        output = stopped(process, tmp_path / "job.log")
        assert process.returncode == 130, output
        assert "for the 1 in flight" in output
        with RunStore(run) as store:  # the batch the provider accepted is known to the run
            assert store.count("batches") == 1
        again = start(tmp_path, *args, env=env, log="again.log")
        output = stopped(again, tmp_path / "again.log")
        assert again.returncode == 0, output
        assert submissions() == 1  # the resumed run polled the stored batch, paid nothing again
    assert ok_rows(run) == 3


def test_a_third_ctrl_c_interrupts_a_stage_too_busy_to_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first two Ctrl-C only ask the event loop to stop; when it does not get to it (busy
    in code that does not return to it), the third interrupts that code, as a second Ctrl-C
    did before the first one let calls finish."""
    import asyncio

    from poemetric.runner import stopping

    monkeypatch.setattr(stopping, "_state", stopping._State())
    previous = signal.getsignal(signal.SIGTERM)
    stopping.install()
    reached: list[str] = []

    async def stage() -> None:
        assert stopping.starting_call()
        for _ in range(3):  # the loop never runs in between: this task holds it
            os.kill(os.getpid(), signal.SIGINT)
        reached.append("after the third Ctrl-C")
        await asyncio.sleep(0)

    try:
        with pytest.raises(KeyboardInterrupt):
            stopping.run(stage())
        assert reached == [] and stopping.received() == signal.SIGINT
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_ctrl_c_while_a_batch_waits_at_the_provider_says_it_is_open(tmp_path: Path) -> None:
    """The message after Ctrl-C said nothing of the batch left open at the provider (which
    answers it and charges for it): only the resume command's `--batch` hinted at it."""
    run = tmp_path / "run"
    prepared_store(run, poems=3).close()
    with OpenAIServer(api_key=TEST_KEY, batch_polls_in_progress=1000) as server:
        env = {"POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url))}
        args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "3", "--batch"]

        def polls() -> int:
            return sum(1 for r in server.requests if r.method == "GET" and "/batches/" in r.path)

        process = start(tmp_path, *args, env=env, log="job.log")
        wait_for(lambda: polls() >= 1, process)  # then it sleeps 30 s before the next poll
        ctrl_c(process)
        output = stopped(process, tmp_path / "job.log")
    assert process.returncode == 130, output
    with RunStore(run) as store:
        (batch_id,) = [row["batch_id"] for row in store.query("SELECT batch_id FROM batches")]
    text = " ".join(output.split())
    assert (
        "1 batch (3 jobs) is still open at the provider, which answers it and charges for it "
        "meanwhile: resuming with --batch collects it (nothing is submitted again). Resume with: "
        f"poemetric {' '.join(args)} To stop for good instead, cancel it in the provider's batch "
        f"list, then give it up: `poemetric batches list --run {run}` lists it, `poemetric "
        f"batches abandon {batch_id} --run {run} --force` gives it up" in text
    ), output


def test_ctrl_c_in_judge_batch_counts_its_own_batches_and_names_generate_for_the_others(
    tmp_path: Path,
) -> None:
    """After Ctrl-C in `judge --batch`, "Interrupted" counted every batch open in the run,
    `generate`'s included, and said that resuming the judge with --batch collects them: it
    collects the judge's only. The generate batch is named with the command that collects it."""
    run = judged_run(tmp_path / "run")  # 2 prompts, their markov poems generated
    with OpenAIServer(api_key=TEST_KEY, batch_polls_in_progress=1000) as server:

        def polls() -> int:
            return sum(1 for r in server.requests if r.method == "GET" and "/batches/" in r.path)

        env = {
            "POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url)),
            "POEMETRIC_JUDGES_DIR": str(judge_dir(tmp_path, server.base_url)),
        }
        generate = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "1"]
        generate.append("--batch")
        process = start(tmp_path, *generate, env=env, log="generate.log")
        wait_for(lambda: polls() >= 1, process)
        ctrl_c(process)
        assert stopped(process, tmp_path / "generate.log") and process.returncode == 130
        judge = ["judge", "--run", str(run), "--judge", "remote-test", "--limit", "1", "--batch"]
        process = start(tmp_path, *judge, env=env, log="judge.log")
        wait_for(lambda: polls() >= 2, process)
        ctrl_c(process)
        output = stopped(process, tmp_path / "judge.log")
    assert process.returncode == 130, output
    text = " ".join(output.split())
    assert (
        "1 batch (2 jobs) is still open at the provider, which answers it and charges for it "
        "meanwhile: resuming with --batch collects it (nothing is submitted again). 1 other batch "
        "(1 job), of the generations stage, is open at the provider too: resuming this command "
        f"does not collect it; `poemetric generate --run {run} --models remote-test --batch` "
        "does, with the other options it was run with. Resume with:" in text
    ), output


def test_a_cut_submission_is_not_said_to_be_collected_by_the_resume() -> None:
    """A Ctrl-C during a batch submission: its `unconfirmed-...` row was counted as an open batch
    that "resuming with --batch collects (nothing is submitted again)", while the resume stops
    the model (the provider may have accepted a batch nobody can name)."""
    from poemetric.cli.interrupt import _open_batches_line
    from poemetric.runner.batch_table import BatchRow

    def row(batch_id: str, jobs: int) -> BatchRow:
        return BatchRow(batch_id, "openai", "m", "generations", "submitting", jobs, {}, "")

    cut = _open_batches_line([row("unconfirmed-0a1b2c", 3)])
    assert "collects" not in cut and "3 jobs" in cut and "stops the model" in cut
    both = _open_batches_line([row("batch_1", 2), row("unconfirmed-0a1b2c", 3)])
    assert "1 batch (2 jobs) is still open" in both and "submission (3 jobs) was cut" in both
