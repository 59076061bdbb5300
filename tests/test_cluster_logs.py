"""A batch job's log (no terminal, stdout and stderr to a file) says how far the job is, and a
scheduler can tell a finished job from one that left work undone by its exit status."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

MODEL_FILE = """\
name: remote-test
provider: openai-compatible
model: test-model
base_url: {base_url}
api_key_env: {key_env}
pricing: {{input_per_mtok: 1.0, output_per_mtok: 2.0}}
limits:
  max_concurrency: 2
"""

#: "[14:02:31] remote-test: 2/6 (33%), 0:00:01 elapsed, about 0:00:02 left, 120 tok, $0.0002"
LINE = re.compile(
    r"^\[\d\d:\d\d:\d\d\] (?P<name>[\w -]+): (?P<done>[\d,]+)/(?P<total>[\d,]+) \(\d+%\), \d+:\d\d:\d\d elapsed"
)


def model_dir(user_model: Callable[..., Path], kind: str, base_url: str) -> Path:
    """The model `remote-test`, served at `base_url`, as a user's generator or judge file;
    returns its folder."""
    text = MODEL_FILE.format(base_url=base_url, key_env=TEST_KEY_ENV)
    return user_model(kind, "remote-test", text).parent


def logged(tmp_path: Path, *args: str, env: dict[str, str]) -> tuple[int, str]:
    """Run a command as a batch job does (no terminal, output to a log file) with progress
    lines every 0.2 s; returns its status and the log."""
    log = tmp_path / "job.log"
    environment = {
        **os.environ,
        TEST_KEY_ENV: TEST_KEY,
        "POEMETRIC_PROGRESS_EVERY": "0.2",
        "TERM": "dumb",
        "NO_COLOR": "1",
        **env,
    }
    environment.pop("COLUMNS", None)
    with log.open("w") as handle:
        done = subprocess.run(
            [sys.executable, "-m", "poemetric", *args],
            env=environment,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            timeout=120,
        )
    return done.returncode, log.read_text(encoding="utf-8")


def assert_plain(text: str) -> None:
    assert "\r" not in text and "\x1b" not in text  # no redraws, no colour or cursor codes


def test_a_generate_log_has_progress_lines_and_the_summary(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=3).close()
    with OpenAIServer(latency_s=0.4, api_key=TEST_KEY) as server:
        folder = model_dir(user_model, "generators", server.base_url)
        env = {"POEMETRIC_GENERATORS_DIR": str(folder)}
        status, text = logged(
            tmp_path, "generate", "--run", str(run), "--models", "remote-test", "--limit", "3",
            "--samples", "2", env=env,
        )  # fmt: skip
    assert status == 0, text
    assert_plain(text)
    lines = [m for m in map(LINE.match, text.splitlines()) if m]
    assert lines, text
    assert {m["name"] for m in lines} == {"remote-test"} and {m["total"] for m in lines} == {"6"}
    assert "tok, $" in text and "generate: summary" in text


def test_a_form_check_log_has_progress_lines(tmp_path: Path) -> None:
    poem = "\n".join(["Shall I compare thee to a summer's day?"] * 14)
    rows = "".join(f'{i},sonnet,"{poem}"\n' for i in range(1500))
    (tmp_path / "poems.csv").write_text("id,form,text\n" + rows)
    status, text = logged(
        tmp_path, "form", "check", "poems.csv", "-o", "checks.jsonl", "--jobs", "1", env={}
    )
    assert status == 0, text
    assert_plain(text)
    lines = [m for m in map(LINE.match, text.splitlines()) if m]
    assert lines and {m["name"] for m in lines} == {"form check"}, text
    assert {m["total"] for m in lines} == {"1,500"}
    assert "1500 rows, 0 could not be checked" in text


def test_a_form_run_log_has_progress_lines(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with prepared_store(run, poems=4) as store:
        human = store.query("SELECT prompt_id, poem_id, poem FROM generations")
        for i in range(1500):
            row = human[i % len(human)]
            store.save_generation(
                {"generation_id": f"copy-{i}", "prompt_id": row["prompt_id"],
                 "poem_id": row["poem_id"], "author": "copyist", "sample_index": i,
                 "status": "ok", "poem": row["poem"]}
            )  # fmt: skip
    env = {"POEMETRIC_PROGRESS_EVERY": "0.05"}  # the check takes well under a second
    status, text = logged(tmp_path, "form", "run", "--run", str(run), "--jobs", "1", env=env)
    assert status == 0, text
    assert_plain(text)
    lines = [m for m in map(LINE.match, text.splitlines()) if m]
    assert lines and {m["name"] for m in lines} == {"form check"}, text
    assert {m["total"] for m in lines} == {"1,504"}
    assert "checked 1504" in text


def test_a_run_stopped_at_the_budget_exits_with_status_1(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """Jobs skipped at --max-cost are left undone: a scheduler (`afterok`) or `&&` must not
    take the command for finished."""
    run = tmp_path / "run"
    prepared_store(run, poems=3).close()
    with OpenAIServer(api_key=TEST_KEY) as server:
        folder = model_dir(user_model, "generators", server.base_url)
        env = {TEST_KEY_ENV: TEST_KEY, "POEMETRIC_GENERATORS_DIR": str(folder)}
        args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "3"]
        result = CliRunner().invoke(app, [*args, "--max-cost", "0.0000001"], env=env)
        assert result.exit_code == 1, result.output
        assert "Stopped at the --max-cost budget" in result.output
        result = CliRunner().invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
    with RunStore(run) as store:
        assert store.count("generations", "author = 'remote-test' AND status = 'ok'") == 3


def test_a_demo_whose_judge_cannot_run_exits_with_status_1_and_says_why(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    # Nothing listens on port 9 (discard) of this machine: connection refused.
    judges = model_dir(user_model, "judges", "http://127.0.0.1:9/v1")
    result = CliRunner().invoke(
        app,
        ["demo", "--run", str(tmp_path / "demo"), "--limit", "1", "--judge", "remote-test",
         "--no-progress"],
        env={TEST_KEY_ENV: TEST_KEY, "POEMETRIC_JUDGES_DIR": str(judges)},
        terminal_width=200,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "report " in result.output  # the rest of the demo was still done
    assert "remote-test cannot run (2 jobs left pending)" in result.output
    assert "connection refused" in result.output
