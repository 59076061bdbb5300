"""Two processes on one run buy no answer twice; a dead holder never blocks a resume; Ctrl-C
says how to resume (real processes through the real CLI against the local OpenAI server)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    HoldAfter,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.generation.stage import run_generation
from poemetric.runner.leases import Leases
from poemetric.store import RunStore
from poemetric.store.db import utc_now
from poemetric.testing.servers import ChatCall, OpenAIServer

MODEL_FILE = """\
name: {name}
provider: openai-compatible
model: test-model
base_url: {base_url}
api_key_env: {key_env}
settings:
  seed: 7
limits:
  max_concurrency: 2
  timeout_s: 150
"""


def model_dir(tmp_path: Path, kind: str, base_url: str, name: str) -> Path:
    folder = tmp_path / kind
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(
        MODEL_FILE.format(name=name, base_url=base_url, key_env=TEST_KEY_ENV)
    )
    return folder


def cli(tmp_path: Path, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "poemetric", *args],
        env={**os.environ, TEST_KEY_ENV: TEST_KEY, "COLUMNS": "200", **env},
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("timed out")
        time.sleep(0.05)


def leased(run: Path) -> int:
    with RunStore(run) as store:
        return store.count("leases") if (run / "poemetric.sqlite").exists() else 0


class Gate:
    """A responder that holds every answer until the test opens the gate: the first process is
    then certainly still at work when the second one starts, however slow the machine."""

    def __init__(self, answer: str | None = None) -> None:
        self.open = threading.Event()
        self.answer = answer

    def __call__(self, call: ChatCall) -> str:
        self.open.wait(timeout=120)
        return self.answer if self.answer is not None else f"Echo: {call.prompt}"


def two_processes(
    tmp_path: Path, run: Path, gate: Gate, args: tuple[str, ...], env: dict[str, str]
) -> tuple[subprocess.Popen[str], str, str]:
    """Start a command, start the same command again once the first holds its jobs, let the
    second finish, then open the gate for the first; returns (first, its output, the second's)."""
    first = cli(tmp_path, *args, env=env)
    wait_for(lambda: leased(run) > 0)
    second = cli(tmp_path, *args, env=env)
    second_out, _ = second.communicate(timeout=120)
    gate.open.set()
    first_out, _ = first.communicate(timeout=120)
    assert first.returncode == 0, first_out
    assert second.returncode == 1, second_out
    assert "being run by another process" in second_out, second_out
    assert f"pid {first.pid}" in second_out
    return first, first_out, second_out


@pytest.mark.slow
def test_two_generate_processes_buy_no_answer_twice(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=12).close()
    gate = Gate()
    with OpenAIServer(gate, api_key=TEST_KEY) as server:
        folder = model_dir(tmp_path, "gen", server.base_url, "remote-test")
        args = ("generate", "--run", str(run), "--models", "remote-test", "--limit", "12",
                "--samples", "2", "--no-progress")  # fmt: skip
        two_processes(tmp_path, run, gate, args, {"POEMETRIC_GENERATORS_DIR": str(folder)})
    assert server.duplicate_successes() == [] and len(server.successful_generations) == 24
    with RunStore(run) as store:
        rows = store.query(
            "SELECT status, COUNT(*) AS n FROM generations WHERE author = 'remote-test' "
            "GROUP BY prompt_id, sample_index"
        )
        assert len(rows) == 24 and {(r["status"], r["n"]) for r in rows} == {("ok", 1)}
        assert store.count("leases") == 0 and store.count("holders") == 0  # released on exit


class HeldFirst:
    """A responder that holds the first `n` requests until the test sets `release` and answers
    every later one at once."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._seen = 0

    def __call__(self, call: ChatCall) -> str:
        with self._lock:
            self._seen += 1
            hold = self._seen <= self.n
        if hold:
            self.release.wait(timeout=120)
        return f"Echo: {call.prompt}"


@pytest.mark.slow
def test_a_run_copied_while_a_command_runs_is_resumed_at_once(tmp_path: Path) -> None:
    # The copy holds the running command's holder row and leases; that command works on the
    # original run, so its leases hold nothing in the copy (they kept the copy's jobs from it
    # until the command ended: "being run by another process on this run").
    run, copy = tmp_path / "run", tmp_path / "copy"
    prepared_store(run, poems=4).close()
    held = HeldFirst(2)  # the first command's two requests in flight (max_concurrency 2)
    try:
        with OpenAIServer(held, api_key=TEST_KEY) as server:
            env = {"POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, "gen", server.base_url, "remote-test"))}  # fmt: skip
            args = ("generate", "--models", "remote-test", "--limit", "4", "--no-progress")
            first = cli(tmp_path, *args, "--run", str(run), env=env)
            wait_for(lambda: leased(run) == 4 and len(server.generation_requests) == 2)
            shutil.copytree(run, copy)  # as `cp -r` copies it: with its -wal and -shm files
            assert leased(copy) == 4
            second = cli(tmp_path, *args, "--run", str(copy), env=env)
            second_out, _ = second.communicate(timeout=120)
            assert first.poll() is None  # still at work on the original run
            assert second.returncode == 0, second_out
            assert "another process" not in second_out
            held.release.set()
            first_out, _ = first.communicate(timeout=120)
            assert first.returncode == 0, first_out
    finally:
        held.release.set()
    for folder in (run, copy):
        with RunStore(folder) as store:
            assert store.count("generations", "author = 'remote-test' AND status = 'ok'") == 4
            assert store.count("leases") == 0 and store.count("holders") == 0


@pytest.mark.slow
def test_two_judge_processes_buy_no_answer_twice(tmp_path: Path) -> None:
    run = tmp_path / "run"
    use_scripted()
    with prepared_store(run, poems=8) as store:
        run_generation(store, [scripted_spec(name="machine")], options=FAST)
    gate = Gate(f"```json\n{VALID_JUDGE_ANSWER}\n```")
    with OpenAIServer(gate, api_key=TEST_KEY) as server:
        folder = model_dir(tmp_path, "judges", server.base_url, "judge-test")
        args = ("judge", "--run", str(run), "--judge", "judge-test", "--no-progress")
        two_processes(tmp_path, run, gate, args, {"POEMETRIC_JUDGES_DIR": str(folder)})
    assert server.duplicate_successes() == [] and len(server.successful_generations) == 16
    with RunStore(run) as store:
        assert store.count("judgments", "status = 'ok'") == 16 and store.count("judgments") == 16


def test_leases_of_dead_or_silent_holders_are_taken_over(tmp_path: Path) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=3)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    old = "2000-01-01T00:00:00.000+00:00"
    holders = [
        ("dead-here", dead.pid, socket.gethostname(), old),  # a killed process on this host
        ("silent-there", 1, "other-host", old),  # another machine, no heartbeat for years
        ("alive-there", 1, "other-host", utc_now()),  # another machine, beating now
    ]
    jobs = [r[0] for r in store.query("SELECT prompt_id FROM prompts ORDER BY prompt_id")]
    from poemetric.generation.stage import generation_jobs

    keys = [job.key for job in generation_jobs(store, scripted_spec())[0]]
    with store.transaction() as conn:
        for holder, pid, host, beat in holders:
            conn.execute(
                "INSERT INTO holders VALUES (?, ?, ?, NULL, 'poemetric generate', ?, ?)",
                (holder, pid, host, beat, beat),
            )
        for key, (holder, *_) in zip(keys, holders, strict=True):
            conn.execute(
                "INSERT INTO leases VALUES ('generations', ?, ?, ?)", (key, holder, utc_now())
            )
    report = run_generation(store, [scripted_spec()], options=FAST)
    model = report.models[0]
    assert (model.ok, model.held_elsewhere) == (2, 1) and len(provider.calls) == 2
    assert model.held_by is not None and "other-host" in model.held_by
    assert len(jobs) == 3
    remaining = [r["holder"] for r in store.query("SELECT holder FROM leases")]
    assert remaining == ["alive-there"]


def test_a_holder_releases_its_leases_when_it_ends(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=1)
    with Leases(store) as leases:
        claim = leases.claim("generations", ["a", "b"])
        assert claim.mine == {"a", "b"}
        with Leases(store) as other:
            assert other.claim("generations", ["b", "c"]).mine == {"c"}
    assert store.count("leases") == 0 and store.count("holders") == 0


@pytest.mark.slow
@pytest.mark.usefixtures("ctrl_c_from_a_terminal")
def test_ctrl_c_says_the_run_is_saved_and_how_to_resume(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=8).close()
    hold = HoldAfter(3)
    with OpenAIServer(hold, latency_s=0.3, api_key=TEST_KEY) as server:
        env = {
            "POEMETRIC_GENERATORS_DIR": str(
                model_dir(tmp_path, "gen", server.base_url, "remote-test")
            ),
            # No grace: the held requests are dropped at once, as when the grace runs out
            # (tests/test_ctrl_c.py lets them arrive).
            "POEMETRIC_STOP_GRACE": "0",
        }
        args = ("generate", "--run", str(run), "--models", "remote-test", "--limit", "8",
                "--samples", "3", "--no-progress")  # fmt: skip
        process = cli(tmp_path, *args, env=env)
        wait_for(lambda: len(server.successful_generations) >= 3)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
        hold.release.set()
        assert process.returncode == 130, output
        assert "Every answer received so far is saved" in output
        assert f"poemetric generate --run {run} --models remote-test" in output
        with RunStore(run) as store:
            assert store.count("holders") == 0  # released on the way out
        again = cli(tmp_path, *args, env=env)
        again_out, _ = again.communicate(timeout=120)
        assert again.returncode == 0, again_out
        bodies = [json.dumps(r.body, sort_keys=True) for r in server.successful_generations]
        # Only requests in flight at the interrupt may have been answered twice.
        assert len(bodies) - len(set(bodies)) <= 2
    with RunStore(run) as store:
        assert store.count("generations", "author = 'remote-test' AND status = 'ok'") == 24


def test_the_holder_named_under_the_summary_keeps_its_brackets() -> None:
    """The other process is named by its command line (`--run runs/[exp1]`): printed inside
    Rich markup unescaped, `[exp1]` was read as a style tag and dropped."""
    from rich.console import Console

    from poemetric.runner.report import ModelReport, StageReport
    from poemetric.runner.stage_problems import render_problems

    held_by = "pid 4242 on other-host: poemetric generate --run runs/[exp1]"
    model = ModelReport("markov", "markov", held_elsewhere=2, held_by=held_by)
    console = Console(record=True, width=300)
    render_problems(StageReport("generate", models=[model]), console)
    assert "were left to it (pid 4242 on other-host: poemetric generate --run runs/[exp1])" in (
        console.export_text()
    )
