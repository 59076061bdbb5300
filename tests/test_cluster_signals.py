"""A scheduler's SIGTERM (SLURM's time limit, `scancel`, `kill`): real processes through the real
CLI, real signals, the local OpenAI server counting every request it answers."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_runner_leases import model_dir as leases_model_dir
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    prepared_store,
)

from poemetric.generation.stage import run_generation
from poemetric.roster import select_models
from poemetric.store import RunStore
from poemetric.testing.servers import ChatCall, OpenAIServer


class HeldAfter:
    """Answers the first `n` requests at once and holds later ones until `release` is set.
    The answer: `answer` (a text, or a responder of the call), else an echo of the prompt."""

    def __init__(self, n: int, answer: str | Callable[[ChatCall], str] | None = None) -> None:
        self.n = n
        self.answer = answer
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._seen = 0

    def __call__(self, call: ChatCall) -> str:
        with self._lock:
            self._seen += 1
            hold = self._seen > self.n
        if hold:
            self.release.wait(timeout=60)
        if callable(self.answer):
            return self.answer(call)
        return self.answer if self.answer is not None else f"Echo: {call.prompt}"


def model_dir(tmp_path: Path, base_url: str, name: str = "remote-test") -> Path:
    """test_runner_leases' model file (openai-compatible, 2 in flight) in `tmp_path/models`."""
    return leases_model_dir(tmp_path, "models", base_url, name)


def start(tmp_path: Path, *args: str, env: dict[str, str], log: str) -> subprocess.Popen[str]:
    """The command as a batch job runs it: no terminal, stdout and stderr to a log file."""
    handle = (tmp_path / log).open("w")
    environment = {**os.environ, TEST_KEY_ENV: TEST_KEY, **env}
    environment.pop("COLUMNS", None)
    return subprocess.Popen(
        [sys.executable, "-m", "poemetric", *args],
        env=environment,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=handle,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, as a job step is
    )


def wait_for(
    condition: Callable[[], bool], process: subprocess.Popen[str], timeout_s: float = 60
) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the command ended early with status {process.returncode}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("timed out")
        time.sleep(0.02)


def ok_rows(run: Path, table: str = "generations", author: str = "remote-test") -> int:
    with RunStore(run) as store:
        column = "author" if table == "generations" else "judge"
        return store.count(table, f"{column} = ? AND status = 'ok'", (author,))


def stopped(process: subprocess.Popen[str], log: Path) -> str:
    process.wait(timeout=60)
    return log.read_text()


def stop_with_answers_in_flight_then_resume(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stage: str,
    stop: Callable[[subprocess.Popen[str]], None],
    waiting: str,
) -> tuple[int, str, list[str]]:
    """`generate` or `judge` of 6 or 12 jobs, stopped by `stop` (a signal to the command) while
    two answers are stored and two more are held at the server; checks that the command waits
    for those two (`waiting` in its log), that every answer the server gave is stored and none
    recorded as failed, and that the resume pays for none of them again. Returns the stopped
    command's exit status, its output and its arguments."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = tmp_path / "run"
    store = prepared_store(run, poems=6)
    if stage == "judge":
        run_generation(store, select_models("markov"), options=FAST)
    store.close()
    table, folder_variable = (
        ("generations", "POEMETRIC_GENERATORS_DIR")
        if stage == "generate"
        else ("judgments", "POEMETRIC_JUDGES_DIR")
    )
    responder = HeldAfter(2, VALID_JUDGE_ANSWER if stage == "judge" else None)
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        env = {folder_variable: str(model_dir(tmp_path, server.base_url))}
        if stage == "generate":
            args = ["generate", "--run", str(run), "--models", "remote-test"]
        else:
            args = ["judge", "--run", str(run), "--judge", "remote-test"]
        args += ["--limit", "3", "--samples", "2"]
        # 3 prompts x 2 samples; a judge scores the human and the markov poem of each
        jobs = 6 if stage == "generate" else 12
        process = start(tmp_path, *args, env=env, log="job.log")
        # Two answers stored, two more requests held at the server (max_concurrency 2).
        wait_for(lambda: ok_rows(run, table) == 2 and len(server.generation_requests) == 4, process)
        stop(process)
        wait_for(lambda: waiting in (tmp_path / "job.log").read_text(), process)
        time.sleep(0.3)
        assert process.poll() is None  # waiting for the two answers in flight
        responder.release.set()
        output = stopped(process, tmp_path / "job.log")
        # Every answer the server gave was stored; nothing was recorded as failed.
        assert ok_rows(run, table) == len(server.successful_generations) == 4
        with RunStore(run) as store:
            assert store.count("calls", "outcome != 'ok'") == 0
            assert store.count("leases") == 0 and store.count("holders") == 0

        again = start(tmp_path, *args, env=env, log="again.log")
        resumed = stopped(again, tmp_path / "again.log")
        assert again.returncode == 0, resumed
        # The resume asked only for the jobs never sent: none of the four answered is repeated.
        assert len(server.generation_requests) == jobs
    assert len(server.successful_generations) == jobs and server.duplicate_successes() == []
    assert ok_rows(run, table) == jobs
    return process.returncode, output, args


@pytest.mark.parametrize("stage", ["generate", "judge"])
def test_sigterm_lets_answers_in_flight_arrive_and_the_resume_pays_for_none_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    def sigterm(process: subprocess.Popen[str]) -> None:
        os.killpg(process.pid, signal.SIGTERM)  # as SLURM signals every process of the step

    status, output, args = stop_with_answers_in_flight_then_resume(
        tmp_path, monkeypatch, stage, sigterm, "SIGTERM: no new request starts"
    )
    assert status == 143, output
    assert "Interrupted by SIGTERM" in output and "Resume with:" in output
    assert f"poemetric {' '.join(args)}" in output
    # The summary of what the stopped run did (and spent), before the resume hint: the 4
    # answers stored, 2 before the signal and 2 in flight.
    summary = output.find(f"{stage}: summary (interrupted)")
    assert 0 <= summary < output.index("Interrupted by SIGTERM"), output
    row = next(line for line in output[summary:].splitlines() if "remote-test" in line)
    jobs = "6" if stage == "generate" else "12"
    # model, jobs, to call, ok (done before, from cache: 0, left out at 80 columns)
    assert [cell.strip() for cell in row.split("│")][1:5] == ["remote-test", jobs, jobs, "4"]


def test_sigterm_stops_after_the_grace_even_when_answers_do_not_come(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    responder = HeldAfter(2)
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        env = {
            "POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url)),
            "POEMETRIC_STOP_GRACE": "0.3",
        }
        args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "4"]
        process = start(tmp_path, *args, env=env, log="job.log")
        wait_for(lambda: ok_rows(run) == 2 and len(server.generation_requests) == 4, process)
        process.send_signal(signal.SIGTERM)
        began = time.monotonic()
        output = stopped(process, tmp_path / "job.log")
        assert time.monotonic() - began < 10
        assert process.returncode == 143, output
        assert "waiting up to 0.3 s for the 2 in flight" in output
        assert "nothing is lost" not in output
        assert (
            "2 requests still in flight were dropped (the 0.3 s grace ran out; "
            "POEMETRIC_STOP_GRACE sets a longer one)"
        ) in output
        responder.release.set()
        with RunStore(run) as store:  # the two abandoned requests are pending, not failed
            assert store.count("generations", "author = 'remote-test'") == 2
            assert store.count("calls", "outcome != 'ok'") == 0 and store.count("leases") == 0


def test_sigterm_while_a_batch_is_waiting_stops_at_once_and_the_resume_polls_it(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=3).close()
    with OpenAIServer(api_key=TEST_KEY, batch_polls_in_progress=1) as server:
        env = {"POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url))}
        args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "3", "--batch"]

        def polls() -> int:
            return sum(1 for r in server.requests if r.method == "GET" and "/batches/" in r.path)

        process = start(tmp_path, *args, env=env, log="job.log")
        wait_for(lambda: polls() >= 1, process)  # then it sleeps 30 s before the next poll
        time.sleep(0.2)
        os.killpg(process.pid, signal.SIGTERM)
        output = stopped(process, tmp_path / "job.log")
        assert process.returncode == 143, output
        again = start(tmp_path, *args, env=env, log="again.log")
        output = stopped(again, tmp_path / "again.log")
        assert again.returncode == 0, output
        submissions = [r for r in server.requests if r.method == "POST" and "/batches" in r.path]
    assert len(submissions) == 1  # the resumed run polled the stored batch, paid nothing again
    assert ok_rows(run) == 3


def _processes_with(marker: str) -> list[int]:
    """Pids of live processes whose environment holds `marker` (the command's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
def test_sigterm_stops_a_form_check_with_workers_and_leaves_no_file_or_process(
    tmp_path: Path,
) -> None:
    poem = "\n".join(["Shall I compare thee to a summer's day?"] * 14)
    rows = "".join(f'{i},sonnet,"{poem}"\n' for i in range(4000))
    (tmp_path / "poems.csv").write_text("id,form,text\n" + rows)
    marker = f"POEMETRIC_TEST_MARKER={os.getpid()}-{time.monotonic_ns()}"
    name, _, value = marker.partition("=")
    args = ["form", "check", "poems.csv", "-o", "checks.jsonl", "--jobs", "2"]
    process = start(tmp_path, *args, env={name: value}, log="job.log")
    partial: list[Any] = []

    def writing() -> bool:
        partial[:] = [p for p in tmp_path.glob(".checks.jsonl.*") if p.stat().st_size > 0]
        return bool(partial)

    try:
        wait_for(writing, process)
        os.killpg(process.pid, signal.SIGTERM)
        output = stopped(process, tmp_path / "job.log")
        assert process.returncode == 143, output
        assert "Interrupted by SIGTERM" in output and "Traceback" not in output
        assert (
            list(tmp_path.glob(".checks.jsonl.*")) == []
            and not (tmp_path / "checks.jsonl").exists()
        )
        deadline = time.monotonic() + 5
        while _processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_with(marker) == []
    finally:
        for pid in _processes_with(marker):
            os.kill(pid, signal.SIGKILL)


def test_sigterm_stops_the_demo_with_the_command_that_resumes_it(tmp_path: Path) -> None:
    responder = HeldAfter(1, VALID_JUDGE_ANSWER)
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        env = {"POEMETRIC_JUDGES_DIR": str(model_dir(tmp_path, server.base_url))}
        args = ["demo", "--run", "demo", "--limit", "2", "--judge", "remote-test"]
        process = start(tmp_path, *args, env=env, log="job.log")
        wait_for(lambda: len(server.generation_requests) == 3, process)  # 1 answered, 2 held
        process.send_signal(signal.SIGTERM)
        wait_for(lambda: "SIGTERM: no new request starts" in (tmp_path / "job.log").read_text(),
                 process)  # fmt: skip
        responder.release.set()
        output = stopped(process, tmp_path / "job.log")
    assert process.returncode == 143, output
    assert "Interrupted by SIGTERM" in output and f"poemetric {' '.join(args)}" in output
    assert ok_rows(tmp_path / "demo", "judgments") == 3  # the two in flight were stored


def test_a_stage_whose_last_calls_end_within_the_grace_still_stops_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stage's main task may end on its own once its last answer is stored (every job not
    started returns at once): the command must stop all the same, not report the stage finished
    (status 0 with jobs undone) or go on to the next one."""
    import asyncio

    from poemetric.runner import stopping

    monkeypatch.setattr(stopping, "_state", stopping._State())
    previous = signal.getsignal(signal.SIGTERM)
    stopping.install()

    async def stage() -> str:
        assert stopping.starting_call()  # one request in flight
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)  # the stop begins: no new request starts
        assert not stopping.starting_call()
        stopping.call_done()  # its answer is stored; nothing else was started
        return "stage returned"

    try:
        with pytest.raises(KeyboardInterrupt):
            stopping.run(stage())
        assert stopping.received() == signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_sigusr1_stops_as_sigterm_does(tmp_path: Path) -> None:
    """SLURM's warning before a time limit (`--signal=B:USR1@60`, `scancel --signal=USR1`) and a
    hang-up ended Python at once (their default action): the answers in flight were lost though
    paid for, the job leases kept, the log ended mid-run. They stop a command as SIGTERM does."""
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    responder = HeldAfter(2)
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        env = {"POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url))}
        args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "4"]
        process = start(tmp_path, *args, env=env, log="job.log")
        wait_for(lambda: ok_rows(run) == 2 and len(server.generation_requests) == 4, process)
        process.send_signal(signal.SIGUSR1)
        wait_for(lambda: "SIGUSR1: no new request starts" in (tmp_path / "job.log").read_text(),
                 process)  # fmt: skip
        responder.release.set()
        output = stopped(process, tmp_path / "job.log")
    assert process.returncode == 128 + signal.SIGUSR1, output
    assert "Interrupted by SIGUSR1" in output and "nothing is lost" in output
    assert ok_rows(run) == 4  # the two in flight were stored
    with RunStore(run) as store:
        assert store.count("leases") == 0


def test_a_hang_up_that_nohup_ignores_stays_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    from poemetric.runner import stopping

    monkeypatch.setattr(stopping, "_state", stopping._State())
    signals = (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)
    previous = {signum: signal.getsignal(signum) for signum in signals}
    try:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as `nohup` starts a command
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        stopping.install()
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGUSR1) is signal.getsignal(signal.SIGTERM)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs util-linux's setsid")
def test_a_terminal_that_hangs_up_stops_the_command_as_sigterm_does(tmp_path: Path) -> None:
    """An ssh session closed under a running command: SIGHUP, and every write to its terminal
    fails with EIO. The command died at once (SIGHUP's default action); stopping as on SIGTERM,
    it then ended in an EIO traceback, status 1. Now the stop ends as any stop does."""
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    responder = HeldAfter(2)
    terminal, command_side = os.openpty()
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        environment = {
            **os.environ,
            TEST_KEY_ENV: TEST_KEY,
            "POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url)),
        }
        args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "4"]
        # setsid -c: a session of its own whose controlling terminal is this one, as ssh gives
        process = subprocess.Popen(
            ["setsid", "-c", sys.executable, "-m", "poemetric", *args, "--no-progress"],
            env=environment, cwd=tmp_path, stdin=command_side, stdout=command_side,
            stderr=command_side, text=True,
        )  # fmt: skip
        os.close(command_side)

        def answered() -> bool:
            while select.select([terminal], [], [], 0)[0]:  # read it: no write of it blocks
                try:
                    os.read(terminal, 65536)
                except OSError:
                    break
            return ok_rows(run) == 2 and len(server.generation_requests) == 4

        wait_for(answered, process)
        os.close(terminal)  # the session ends: the terminal hangs up
        responder.release.set()
        process.wait(timeout=60)
    assert process.returncode == 128 + signal.SIGHUP
    assert ok_rows(run) == 4  # the two in flight were stored
    with RunStore(run) as store:
        assert store.count("leases") == 0


def test_the_same_sigterm_delivered_twice_is_one_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scheduler's SIGTERM reaches every process of the job, make among them, and make
    passes the one it gets on to poemetric: the two arrived together and the second was taken
    for "a second SIGTERM stopped it at once", dropping the answers in flight (paid for)."""
    import asyncio

    from poemetric.runner import stopping

    monkeypatch.setattr(stopping, "_state", stopping._State())
    previous = signal.getsignal(signal.SIGTERM)
    stopping.install()
    stored: list[str] = []

    async def stage() -> None:
        assert stopping.starting_call()  # one request in flight
        os.kill(os.getpid(), signal.SIGTERM)  # the scheduler's
        os.kill(os.getpid(), signal.SIGTERM)  # make's
        await asyncio.sleep(0.05)  # a second stop would cancel the stage here
        assert not stopping.abandoned()  # still waiting for the answer in flight
        stored.append("the answer")
        stopping.call_done()

    try:
        with pytest.raises(KeyboardInterrupt):
            stopping.run(stage())
        assert stored == ["the answer"]
        assert "second" not in stopping.dropped_requests()[1]
    finally:
        signal.signal(signal.SIGTERM, previous)
