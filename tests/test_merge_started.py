"""`merge` of a store where a judge was only started (refused, or stopped before its first
answer) made the merge exit 1 as "incomplete ... or still running there", though nothing of the
judge was stored anywhere and the merged run was as complete as its stores. Such a judge is
named now ("not run: ..."), with what to do, and the merge exits 0; a judge stopped partway (part
of its judgments stored), a shard of it missing, or a store at work on the judge stage as it is
merged, still make it exit 1, each named with the store concerned."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from test_cluster_signals import HeldAfter
from test_runner_leases import cli, model_dir, wait_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import STAGE as GENERATE
from poemetric.judge.recognise import STAGE as RECOGNISE
from poemetric.judge.rows import JudgmentRows
from poemetric.judge.stage import STAGE as JUDGE
from poemetric.probes.chat_lines import STAGE as PROBE_LINES
from poemetric.runner.leases import Leases, process_start
from poemetric.store import RunStore, utc_now
from poemetric.store.merge_started import STAGE_RESULTS
from poemetric.store.models import recorded_models
from poemetric.style.stage import STAGE as STYLE_MATCH
from poemetric.testing.servers import Fault, OpenAIServer

UserModel = Callable[[str, str, str], Path]


WRONG_KEY = "sk-wrong-fedcba9876543210"


def _cli(*args: str | Path, key: bool | str = True) -> Result:
    """`key`: TEST_KEY (True), unset (False), or this wrong key (the server answers 401)."""
    value = key if isinstance(key, str) else TEST_KEY if key else None
    env = {TEST_KEY_ENV: value, "COLUMNS": "400"}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def _lines(result: Result, start: str) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith(start)]


def _judge_file(user_model: UserModel, server: OpenAIServer) -> None:
    """`tj`, a judge served by `server`, its key read from TEST_KEY_ENV."""
    user_model(
        "judges",
        "tj",
        f"name: tj\nprovider: openai-compatible\nmodel: m\nbase_url: {server.base_url}\n"
        f"api_key_env: {TEST_KEY_ENV}\npricing: {{input_per_mtok: 1.0, output_per_mtok: 2.0}}\n",
    )


def _generated(run: Path) -> Path:
    result = _cli("generate", "--no-progress", "--run", run, "--models", "markov", "--limit", "4")
    assert result.exit_code == 0, result.output
    return run


def _judge(run: Path, *extra: str, key: bool | str = True) -> Result:
    return _cli("judge", "--run", run, "--judge", "tj", "--no-progress", *extra, key=key)


def test_a_judge_only_started_is_named_and_the_merge_is_complete(
    tmp_path: Path, user_model: UserModel
) -> None:
    run = _generated(tmp_path / "run")
    dest = tmp_path / "all"
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server:
        _judge_file(user_model, server)
        # A dry run records nothing: the merge has nothing to say of tj.
        assert _judge(run, "--dry-run").exit_code == 0
        with RunStore(run) as store:
            assert JUDGE not in recorded_models(store)
        result = _cli("merge", run, "--into", dest)
        assert result.exit_code == 0 and "tj" not in result.output, result.output

        # Refused before anything (no key): records nothing either, so nothing to say of tj.
        refused = _judge(run, key=False)
        assert refused.exit_code == 1 and "nothing was run" in refused.output, refused.output
        with RunStore(run) as store:
            assert JUDGE not in recorded_models(store)
        result = _cli("merge", run, "--into", dest)
        assert result.exit_code == 0 and "tj" not in result.output, result.output

        # Its key refused at its first call (401): recorded as started, nothing stored.
        refused = _judge(run, key=WRONG_KEY)
        assert refused.exit_code == 1 and "HTTP 401" in refused.output, refused.output
        result = _cli("merge", run, "--into", dest)
        assert result.exit_code == 0, result.output
        assert not _lines(result, "incomplete"), result.output
        [line] = _lines(result, "not run")
        assert f"judge of model tj was started in {run} but stored nothing there" in line, line
        assert f"{dest} holds nothing of it and is complete without it" in line, line
        assert f"poemetric judge --run {dest} --judge tj" in line, line

        # As it would be merged while a judge is at work there: its job leases are held, under
        # the table its rows go to, as the runner leases them.
        with RunStore(run) as store, Leases(store) as leases:
            assert leases.claim(JudgmentRows.table, ["a-judgment"]).mine == {"a-judgment"}
            result = _cli("merge", run, "--into", dest)
        assert result.exit_code == 1 and not _lines(result, "not run"), result.output
        [line] = _lines(result, "incomplete")
        assert f"a process was at work on the judge stage in {run} as it was merged" in line
        assert "let it finish there" in line, line

        # Judged through: nothing to say.
        assert _judge(run).exit_code == 0
        result = _cli("merge", run, "--into", dest)
    assert result.exit_code == 0, result.output
    assert not _lines(result, "incomplete") and not _lines(result, "not run"), result.output


def test_a_judge_stopped_partway_is_incomplete(tmp_path: Path, user_model: UserModel) -> None:
    """The key refused (401) after the first answer: the judgments in flight are stored, the
    rest not, so the merged run holds part of tj's judgments and the merge is incomplete,
    naming where tj stopped."""
    run = _generated(tmp_path / "run")
    faults = [None, *[Fault.client_error(401, "key revoked")] * 3]
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, faults=faults) as server:
        _judge_file(user_model, server)
        assert _judge(run).exit_code == 1
    with RunStore(run) as store:
        assert 0 < store.count("judgments", "judge = 'tj'") < store.count("generations")
    result = _cli("merge", run, "--into", tmp_path / "all")
    assert result.exit_code == 1 and not _lines(result, "not run"), result.output
    [line] = _lines(result, "incomplete")
    assert "judge of model tj was run on the whole stage (no --shard K/N)" in line, line
    assert f"it stopped partway in {run} (part of its results are stored there)" in line, line


def test_a_judge_shard_only_started_is_still_missing(tmp_path: Path, user_model: UserModel) -> None:
    """Shard 0/2 judged, shard 1/2's key refused in its copy of the run: half of tj's judgments are
    in the merged run, so shard 1/2 is named missing, with the store where tj only started."""
    run = _generated(tmp_path / "run")
    part0, part1 = tmp_path / "part0", tmp_path / "part1"
    shutil.copytree(run, part0)
    shutil.copytree(run, part1)
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server:
        _judge_file(user_model, server)
        assert _judge(part0, "--shard", "0/2").exit_code == 0
        assert _judge(part1, "--shard", "1/2", key=WRONG_KEY).exit_code == 1
    dest = tmp_path / "all"
    result = _cli("merge", part0, part1, "--into", dest)
    assert result.exit_code == 1 and not _lines(result, "not run"), result.output
    [line] = _lines(result, "incomplete")
    assert "judge of model tj ran with --shard K/2, but shard 1/2 is in none" in line, line
    assert f"it was started in {part1} but stored nothing there" in line, line


def test_the_stages_whose_results_are_looked_up_are_the_stages() -> None:
    """`STAGE_RESULTS` names stages as the store's `models` record does (each stage's STAGE)."""
    assert set(STAGE_RESULTS) == {GENERATE, JUDGE, RECOGNISE, STYLE_MATCH, PROBE_LINES}


@pytest.mark.slow
def test_a_judge_at_work_that_stored_nothing_yet_leaves_the_merge_incomplete(
    tmp_path: Path,
) -> None:
    # A real `judge` process holds its jobs (leased under the table its rows go to) while the
    # server holds its first answers: the merge said it was only started, "complete without
    # it" (exit 0), and to judge the merged run, paying again for what the process buys.
    run = _generated(tmp_path / "run")
    held = HeldAfter(0, VALID_JUDGE_ANSWER)
    try:
        with OpenAIServer(held, api_key=TEST_KEY) as server:
            folder = model_dir(tmp_path, "judges", server.base_url, "tj")
            args = ("judge", "--run", str(run), "--judge", "tj", "--no-progress")
            judge = cli(tmp_path, *args, env={"POEMETRIC_JUDGES_DIR": str(folder)})
            wait_for(lambda: len(server.generation_requests) == 2)  # max_concurrency 2
            result = _cli("merge", run, "--into", tmp_path / "all")
            assert judge.poll() is None  # still at work
            held.release.set()
            judged, _ = judge.communicate(timeout=120)
            assert judge.returncode == 0, judged
    finally:
        held.release.set()
    assert result.exit_code == 1, result.output
    assert not _lines(result, "not run"), result.output
    [line] = _lines(result, "incomplete")
    assert f"a process was at work on the judge stage in {run} as it was merged" in line, line


@pytest.mark.parametrize("holder", ["killed", "at work on another run"])
def test_leases_of_a_holder_not_at_work_on_the_store_do_not_make_it_at_work(
    tmp_path: Path, user_model: UserModel, holder: str
) -> None:
    """A judge stopped partway in a store that still holds job leases of a process not at work
    on it: killed there (its holder row left behind), or alive on this host without the store
    open (it ran on the run this store was copied from). The merge said a process was at work
    there ("let it finish there") instead of where the judge stopped, as the runner's own
    leases already tell (`leases.holder_at_work`)."""
    run = _generated(tmp_path / "run")
    faults = [None, *[Fault.client_error(401, "key revoked")] * 3]
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, faults=faults) as server:
        _judge_file(user_model, server)
        assert _judge(run).exit_code == 1
    command = [
        sys.executable,
        "-c",
        "pass" if holder == "killed" else "import time; time.sleep(60)",
    ]
    process = subprocess.Popen(command)
    try:
        if holder == "killed":
            process.wait()
        with RunStore(run) as store, store.transaction() as conn:
            now = utc_now()
            conn.execute(
                "INSERT INTO holders VALUES ('h', ?, ?, ?, 'poemetric judge', ?, ?)",
                (process.pid, socket.gethostname(), process_start(process.pid), now, now),
            )
            conn.execute(
                "INSERT INTO leases VALUES (?, 'a-judgment', 'h', ?)", (JudgmentRows.table, now)
            )
        result = _cli("merge", run, "--into", tmp_path / "all")
    finally:
        process.kill()
        process.wait()
    assert result.exit_code == 1 and not _lines(result, "not run"), result.output
    [line] = _lines(result, "incomplete")
    assert f"it stopped partway in {run} (part of its results are stored there)" in line, line
    assert "at work" not in line and "let it finish" not in line, line
