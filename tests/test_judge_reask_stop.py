"""A stop (SIGTERM) between a judge's unusable first answer and its re-ask: real processes
through the real CLI, a real signal, the local OpenAI server counting every request it answers.
Stopped + resumed must equal one uninterrupted run, in paid calls, in results and in counts."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from test_cluster_signals import stopped, wait_for
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.roster import select_models
from poemetric.testing.servers import ChatCall, OpenAIServer

JUDGE_FILE = """\
name: remote-test
provider: openai-compatible
model: test-model
base_url: {base_url}
api_key_env: {key_env}
pricing: {{input_per_mtok: 2.0, output_per_mtok: 8.0}}
limits: {{max_concurrency: 2}}
"""

#: Columns that say when or how often a row was written, or what the server called its answer.
BOOKKEEPING = {"created_at", "latency_s", "request_id", "raw_response", "attempts"}


class FirstTurnsHeld:
    """First turns: held until `release` is set, then a refusal (unusable); re-asks: a valid
    answer at once."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def __call__(self, call: ChatCall) -> str:
        if len(call.messages) > 1:
            return VALID_JUDGE_ANSWER
        self.release.wait(timeout=60)
        return "I'm sorry, I cannot evaluate this poem."


def judged_run(path: Path) -> Path:
    store = prepared_store(path, poems=2)
    run_generation(store, select_models("markov"), options=FAST)
    store.close()
    return path


def judge_dir(tmp_path: Path, base_url: str) -> Path:
    folder = tmp_path / "judges"
    folder.mkdir()
    (folder / "remote-test.yaml").write_text(
        JUDGE_FILE.format(base_url=base_url, key_env=TEST_KEY_ENV)
    )
    return folder


def start(tmp_path: Path, run: Path, env: dict[str, str], log: str) -> subprocess.Popen[str]:
    """`poemetric judge` of 2 jobs (the human and the markov poem of one prompt), 2 in flight,
    on a wide terminal (every summary column shown)."""
    args = ["judge", "--run", str(run), "--judge", "remote-test", "--limit", "1"]
    return subprocess.Popen(
        [sys.executable, "-m", "poemetric", *args],
        env={**os.environ, TEST_KEY_ENV: TEST_KEY, "COLUMNS": "200", **env},
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=(tmp_path / log).open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def summary(output: str, title: str) -> dict[str, str]:
    """The model row of the summary table titled `title`, by column header."""
    lines = output[output.index(title) :].splitlines()
    header = next(line for line in lines if line.startswith("┃"))
    row = next(line for line in lines if line.startswith("│"))
    return dict(
        zip(
            [cell.strip() for cell in header.split("┃")[1:-1]],
            [cell.strip() for cell in row.split("│")[1:-1]],
            strict=True,
        )
    )


def judgments(run: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(run / "poemetric.sqlite") as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM judgments ORDER BY judgment_id").fetchall()
    return [{k: v for k, v in dict(row).items() if k not in BOOKKEEPING} for row in rows]


def stop_with_first_turns_held(
    tmp_path: Path, run: Path, env: dict[str, str], server: OpenAIServer, release: threading.Event
) -> tuple[subprocess.Popen[str], str]:
    """`start` the judge on `run`, SIGTERM it while both first turns are held, then let the
    answers arrive during the stop (`release`): the process and its output once it ended."""
    process = start(tmp_path, run, env, "stopped.log")
    wait_for(lambda: len(server.generation_requests) == 2, process)  # both first turns held
    os.killpg(process.pid, signal.SIGTERM)
    log = tmp_path / "stopped.log"
    wait_for(lambda: "SIGTERM: no new request starts" in log.read_text(), process)
    release.set()
    return process, stopped(process, log)


def test_a_stop_before_the_reask_resumes_as_an_uninterrupted_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    interrupted_run = judged_run(tmp_path / "interrupted")
    straight_run = judged_run(tmp_path / "straight")
    responder = FirstTurnsHeld()
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        env = {"POEMETRIC_JUDGES_DIR": str(judge_dir(tmp_path, server.base_url))}
        # Both refusals arrive during the stop: they are stored, their re-asks are not sent.
        process, output = stop_with_first_turns_held(
            tmp_path, interrupted_run, env, server, responder.release
        )
        assert process.returncode == 143, output
        assert len(server.successful_generations) == 2
        cut = summary(output, "judge: summary (interrupted)")
        assert (cut["ok"], cut["re-asked"], cut["errors"]) == ("0", "0", "0"), output
        assert "remote-test: 2 unusable answers not re-asked yet" in output
        # Left as error rows holding the first answer (cached), to be re-asked by the next run.
        left = judgments(interrupted_run)
        assert [(r["status"], r["reasks"], r["refusal"]) for r in left] == [("error", 0, 1)] * 2

        resume = start(tmp_path, interrupted_run, env, "resumed.log")
        resumed_output = stopped(resume, tmp_path / "resumed.log")
        assert resume.returncode == 0, resumed_output
        resumed = summary(resumed_output, "judge: summary")
        # The first answers come from the cache; only the two re-asks are paid.
        assert (resumed["from cache"], resumed["ok"], resumed["re-asked"]) == ("2", "2", "2")
        paid_interrupted = len(server.successful_generations)
        assert server.duplicate_successes() == []

        server.clear_log()
        straight = start(tmp_path, straight_run, env, "straight.log")
        straight_output = stopped(straight, tmp_path / "straight.log")
        assert straight.returncode == 0, straight_output
        paid_straight = len(server.successful_generations)
    assert paid_interrupted == paid_straight == 4  # 2 first turns + 2 re-asks, each paid once
    whole = summary(straight_output, "judge: summary")
    assert (whole["ok"], whole["re-asked"]) == ("2", "2")
    for column in ("ok", "re-asked", "errors"):
        assert int(cut[column]) + int(resumed[column]) == int(whole[column]), column
    tokens = [
        [int(n.replace(",", "")) for n in s["tokens in/out"].split("/")]
        for s in (cut, resumed, whole)
    ]
    assert [a + b for a, b in zip(tokens[0], tokens[1], strict=True)] == tokens[2]
    assert float(cut["cost $"]) + float(resumed["cost $"]) == pytest.approx(
        float(whole["cost $"]), abs=1e-4
    )
    rows = judgments(interrupted_run)
    assert [(r["status"], r["reasks"]) for r in rows] == [("ok", 1), ("ok", 1)]
    assert rows == judgments(straight_run)  # scores, turns, tokens, cost, cache keys
