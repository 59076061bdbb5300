"""`merge` of `--shard K/N` stores says when a shard is missing (a failed or never-run task)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result
from test_runner_support import TEST_KEY, TEST_KEY_ENV
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store.db import DB_NAME
from poemetric.store.models import recorded_models
from poemetric.store.shards import MODEL_SHARDS_META_KEY, MissingShards, missing_shards
from poemetric.testing.servers import Fault, OpenAIServer


def _generate(run: Path, *extra: str) -> None:
    models = [] if "--models" in extra else ["--models", "markov"]
    args = ["generate", "--no-progress", "--run", str(run), *models, "--limit", "4"]
    result = CliRunner().invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output


def _merge(dest: Path, *sources: Path) -> Result:
    return CliRunner().invoke(
        app, ["merge", *map(str, sources), "--into", str(dest)], env={"COLUMNS": "400"}
    )


def test_a_missing_shard_is_named_and_the_exit_status_is_1(tmp_path: Path) -> None:
    parts = [tmp_path / f"part{k}" for k in range(3)]
    for k in (0, 1):
        _generate(parts[k], "--shard", f"{k}/3")
    dest = tmp_path / "all"
    result = _merge(dest, parts[0], parts[1])
    assert result.exit_code == 1, result.output
    line = next(line for line in result.output.splitlines() if "incomplete" in line)
    assert "generate" in line and "shard 2/3 is in none" in line and str(dest) in line
    assert "0/3" not in line and "1/3" not in line
    with RunStore(dest) as store:  # the merge was written all the same
        assert store.count("generations", "author = 'markov'") > 0

    # The late shard, merged into the destination afterwards, completes the run.
    _generate(parts[2], "--shard", "2/3")
    result = _merge(dest, parts[2])
    assert result.exit_code == 0, result.output
    assert "incomplete" not in result.output
    with RunStore(dest) as store:
        assert store.count("generations", "author = 'markov'") == 4


def test_all_shards_and_unsharded_runs_merge_with_status_0(tmp_path: Path) -> None:
    parts = [tmp_path / f"part{k}" for k in range(3)]
    for k, part in enumerate(parts):
        _generate(part, "--shard", f"{k}/3")
        _generate(part, "--shard", f"{k}/3")  # a resume records nothing new
    result = _merge(tmp_path / "all", *parts)
    assert result.exit_code == 0, result.output
    assert "incomplete" not in result.output

    whole = [tmp_path / "a", tmp_path / "b"]
    for run in whole:
        _generate(run)
    result = _merge(tmp_path / "both", *whole)
    assert result.exit_code == 0 and "incomplete" not in result.output, result.output


def test_shards_sharing_one_store_are_all_recorded(tmp_path: Path) -> None:
    run = tmp_path / "shared"
    for k in range(2):
        _generate(run, "--shard", f"{k}/2")
    result = _merge(tmp_path / "all", run)
    assert result.exit_code == 0, result.output
    _generate(tmp_path / "half", "--shard", "0/2")
    result = _merge(tmp_path / "half-merged", tmp_path / "half")
    assert result.exit_code == 1 and "shard 1/2" in result.output, result.output


@pytest.fixture
def markov_b(user_model: Callable[[str, str, str], Path]) -> None:
    """A second offline model, `markov-b`, beside the packaged `markov`."""
    user_model(
        "generators",
        "markov-b",
        "name: markov-b\nprovider: markov\nmodel: markov\ndisplay_name: Markov B\n",
    )


def _incomplete(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("incomplete")]


def _as_written_before_model_shards(run: Path) -> None:
    """What POEMetric wrote before shards were recorded per model: `shards` and `models`, no
    `model_shards`."""
    with sqlite3.connect(run / DB_NAME) as conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (MODEL_SHARDS_META_KEY,))
    conn.close()


@pytest.mark.usefixtures("markov_b")
def test_a_shard_missing_for_one_model_is_named(tmp_path: Path) -> None:
    """Array tasks with other `--models` under one N: task 1/2 ran `markov` but never
    `markov-b`. The check was per stage (shards 0/2 and 1/2 both ran `generate`), so the merge
    exited 0 and the merged run silently lacked half of markov-b's poems."""
    part0, part1 = tmp_path / "part0", tmp_path / "part1"
    _generate(part0, "--models", "markov,markov-b", "--shard", "0/2")
    _generate(part1, "--shard", "1/2")
    dest = tmp_path / "all"
    result = _merge(dest, part0, part1)
    assert result.exit_code == 1, result.output
    [line] = _incomplete(result)
    assert "generate of model markov-b ran with --shard K/2" in line, line
    assert "shard 1/2 is in none" in line and str(dest) in line and "0/2" not in line

    late = tmp_path / "part1-markov-b"
    _generate(late, "--models", "markov-b", "--shard", "1/2")
    result = _merge(dest, late)
    assert result.exit_code == 0 and not _incomplete(result), result.output
    with RunStore(dest) as store:
        assert store.count("generations", "author = 'markov-b'") == 4
        assert store.count("generations", "author = 'markov'") == 4


@pytest.mark.usefixtures("markov_b")
def test_shards_recorded_without_models_count_for_every_model_of_their_stage(
    tmp_path: Path,
) -> None:
    """A store written before shards were recorded per model still merges: its shards count
    for every model of the stage (the models its `models` entry names are checked with them)."""
    old, new = tmp_path / "old-part0", tmp_path / "new-part1"
    _generate(old, "--models", "markov,markov-b", "--shard", "0/2")
    _as_written_before_model_shards(old)
    _generate(new, "--shard", "1/2")  # markov only
    dest = tmp_path / "all"
    result = _merge(dest, old, new)
    assert result.exit_code == 1, result.output
    [line] = _incomplete(result)
    assert "generate of model markov-b" in line and "shard 1/2 is in none" in line, line

    # The old store's shard 0/2 is kept in the destination as any model's.
    late = tmp_path / "new-part1-markov-b"
    _generate(late, "--models", "markov-b", "--shard", "1/2")
    result = _merge(dest, late)
    assert result.exit_code == 0 and not _incomplete(result), result.output
    with RunStore(dest) as store:
        recorded = store.get_meta(MODEL_SHARDS_META_KEY)
    assert recorded == {"generate": {"*": ["0/2"], "markov": ["1/2"], "markov-b": ["1/2"]}}

    # Old stores alone: each model of the stage is checked with the stage's shards.
    result = _merge(tmp_path / "old-only", old)
    assert result.exit_code == 1, result.output
    assert [("markov-b" in line, "shard 1/2" in line) for line in _incomplete(result)] == [
        (False, True),
        (True, True),
    ]


@pytest.mark.usefixtures("markov_b")
def test_a_store_shared_with_an_older_version_keeps_its_shards_as_any_models(
    tmp_path: Path,
) -> None:
    """An older POEMetric ran shard 0/2 of both models in a store, this one then shard 0/2 of
    `markov` alone: the older shard is not taken for markov's only (that would leave markov-b
    without shard 0/2)."""
    shared, other = tmp_path / "shared", tmp_path / "other"
    _generate(shared, "--models", "markov,markov-b", "--shard", "0/2")
    _as_written_before_model_shards(shared)
    _generate(shared, "--shard", "0/2")
    with RunStore(shared) as store:
        assert store.get_meta(MODEL_SHARDS_META_KEY) == {
            "generate": {"*": ["0/2"], "markov": ["0/2"]}
        }
    _generate(other, "--models", "markov,markov-b", "--shard", "1/2")
    result = _merge(tmp_path / "all", shared, other)
    assert result.exit_code == 0 and not _incomplete(result), result.output


def test_a_stage_whose_shards_name_no_known_model_is_checked_as_one() -> None:
    record = {"generate": {"*": ["0/3", "2/3"]}, "judge": {"*": ["0/2", "0/1"]}}
    assert missing_shards(record, {}) == [MissingShards("generate", None, 3, (1,))]
    assert missing_shards(record, {"generate": ["a"]}) == [MissingShards("generate", "a", 3, (1,))]


@pytest.mark.usefixtures("markov_b")
def test_shards_that_ran_other_models_keep_their_model_records(tmp_path: Path) -> None:
    """One model per array task: the merge kept the `models` record of the first store only, so
    the report and the figures named the other shards' models from today's files (or not at
    all, for a file since removed)."""
    first, second = tmp_path / "a", tmp_path / "b"
    _generate(first)
    args = ["generate", "--no-progress", "--run", str(second), "--models", "markov-b"]
    assert CliRunner().invoke(app, [*args, "--limit", "4"]).exit_code == 0
    dest = tmp_path / "all"
    assert _merge(dest, first, second).exit_code == 0
    with RunStore(dest) as store:
        recorded = recorded_models(store)["generate"]
    assert sorted(recorded) == ["markov", "markov-b"]
    assert recorded["markov-b"]["display_name"] == "Markov B"


@pytest.fixture
def remote(user_model: Callable[[str, str, str], Path]) -> Iterator[OpenAIServer]:
    """`remote`, a model served by a local OpenAI-compatible server, its key read from
    TEST_KEY_ENV: refused before any call (preflight) where that variable is unset."""
    with OpenAIServer(api_key=TEST_KEY) as server:
        user_model(
            "generators",
            "remote",
            f"name: remote\nprovider: openai-compatible\nmodel: m\nbase_url: {server.base_url}\n"
            f"api_key_env: {TEST_KEY_ENV}\npricing: {{input_per_mtok: 1.0, output_per_mtok: 2.0}}\n",
        )
        yield server


def _task(run: Path, shard: str, *extra: str, key: bool = True) -> Result:
    """One array task: `markov` and `remote`, `remote`'s key set or not."""
    args = ["generate", "--no-progress", "--run", str(run), "--models", "markov,remote"]
    env = {TEST_KEY_ENV: TEST_KEY if key else None, "COLUMNS": "400"}
    return CliRunner().invoke(app, [*args, "--limit", "4", "--shard", shard, *extra], env=env)


@pytest.mark.usefixtures("remote")
def test_a_model_refused_in_one_task_lacks_its_shard(tmp_path: Path) -> None:
    """Task 1/2 ran without `remote`'s key: preflight refused the model, yet its shard 1/2 was
    recorded as the stage started, so the merge exited 0 without half of remote's poems."""
    part0, part1 = tmp_path / "part0", tmp_path / "part1"
    assert _task(part0, "0/2").exit_code == 0
    refused = _task(part1, "1/2", key=False)
    assert refused.exit_code == 1 and "remote" in refused.output, refused.output
    with RunStore(part1) as store:
        assert store.get_meta(MODEL_SHARDS_META_KEY) == {"generate": {"markov": ["1/2"]}}
    dest = tmp_path / "all"
    result = _merge(dest, part0, part1)
    assert result.exit_code == 1, result.output
    [line] = _incomplete(result)
    assert "generate of model remote ran with --shard K/2" in line, line
    assert "shard 1/2 is in none" in line and "0/2" not in line
    assert f"it was started in {part1} but stored nothing there (refused" in line, line

    # Task 1/2 run again with the key: the model runs its shard, the merge is complete.
    assert _task(part1, "1/2").exit_code == 0
    result = _merge(dest, part1)
    assert result.exit_code == 0 and not _incomplete(result), result.output
    with RunStore(dest) as store:
        assert store.count("generations", "author = 'remote' AND status = 'ok'") == 4


@pytest.mark.usefixtures("remote")
def test_a_model_stopped_at_the_budget_records_its_shard_when_resumed(tmp_path: Path) -> None:
    """A task stopped by --max-cost before `remote` was through: its shard counts only once a
    resume of the same shard ran the rest."""
    part0, part1 = tmp_path / "part0", tmp_path / "part1"
    assert _task(part0, "0/2").exit_code == 0
    stopped = _task(part1, "1/2", "--max-cost", "0.0000001")
    assert stopped.exit_code == 1 and "--max-cost" in stopped.output, stopped.output
    result = _merge(tmp_path / "all", part0, part1)
    assert result.exit_code == 1, result.output
    [line] = _incomplete(result)
    assert "model remote ran" in line and "shard 1/2" in line, line

    assert _task(part1, "1/2").exit_code == 0  # the resume
    result = _merge(tmp_path / "all", part1)
    assert result.exit_code == 0 and not _incomplete(result), result.output


def _not_run(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("not run")]


@pytest.mark.usefixtures("remote")
def test_a_model_refused_in_every_task_is_named_but_leaves_the_merge_complete(
    tmp_path: Path,
) -> None:
    """No task had `remote`'s key: it stored nothing anywhere, so the merged run holds nothing
    of it (not part of its poems) and is complete without it: named, with what to do, exit 0."""
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, part in enumerate(parts):
        assert _task(part, f"{k}/2", key=False).exit_code == 1
    dest = tmp_path / "all"
    result = _merge(dest, *parts)
    assert result.exit_code == 0 and not _incomplete(result), result.output
    [line] = _not_run(result)
    assert f"generate of model remote was started in {parts[0]}, {parts[1]} but stored" in line
    assert f"poemetric generate --run {dest} --models remote" in line, line


@pytest.mark.usefixtures("remote")
@pytest.mark.parametrize(
    ("extra", "key", "why"),
    [((), False, TEST_KEY_ENV), (("--max-cost", "0.0000001"), True, "--max-cost")],
    ids=["refused", "max-cost"],
)
def test_an_unsharded_model_that_stored_nothing_is_named(
    tmp_path: Path, extra: tuple[str, ...], key: bool, why: str
) -> None:
    """A run without --shard (the whole stage, 0/1) whose `remote` was refused (no key) or cut
    at --max-cost before its first poem merged with status 0 and said nothing of it; then with
    status 1 as "incomplete", though the merged run holds nothing of it. It is named now, with
    what to do, and the merge exits 0; resumed with the key, the model is through."""
    run = tmp_path / "run"
    args = ["generate", "--no-progress", "--run", str(run), "--models", "markov,remote"]
    env = {TEST_KEY_ENV: TEST_KEY if key else None, "COLUMNS": "400"}
    first = CliRunner().invoke(app, [*args, "--limit", "4", *extra], env=env)
    assert first.exit_code == 1 and why in first.output, first.output
    dest = tmp_path / "all"
    result = _merge(dest, run)
    assert result.exit_code == 0 and not _incomplete(result), result.output
    [line] = _not_run(result)
    assert f"generate of model remote was started in {run} but stored nothing" in line, line
    assert "markov" not in line and f"{dest} holds nothing of it" in line, line

    env[TEST_KEY_ENV] = TEST_KEY  # the resume, with the key and no budget: remote runs through
    assert CliRunner().invoke(app, [*args, "--limit", "4"], env=env).exit_code == 0
    result = _merge(dest, run)
    assert result.exit_code == 0 and not _incomplete(result) and not _not_run(result)


def test_an_unsharded_model_stopped_partway_is_incomplete(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """`flaky` answered one prompt, then its key was refused (401): one poem stored, three not,
    no shard; the merged run holds part of its poems, so the merge is incomplete (exit 1), and
    the line says where it stopped."""
    run = tmp_path / "run"
    faults = [None, *[Fault.client_error(401, "key revoked")] * 3]
    with OpenAIServer(faults=faults) as server:
        user_model(
            "generators",
            "flaky",
            f"name: flaky\nprovider: openai-compatible\nmodel: m\nbase_url: {server.base_url}\n"
            f"api_key_env: {TEST_KEY_ENV}\npricing: {{input_per_mtok: 1.0, output_per_mtok: 2.0}}\n",
        )
        args = ["generate", "--no-progress", "--run", str(run), "--models", "markov,flaky"]
        args += ["--limit", "4"]
        stopped = CliRunner().invoke(app, args, env={TEST_KEY_ENV: TEST_KEY})
    assert stopped.exit_code == 1, stopped.output
    with RunStore(run) as store:
        assert store.count("generations", "author = 'flaky'") == 1
    result = _merge(tmp_path / "all", run)
    assert result.exit_code == 1 and not _not_run(result), result.output
    [line] = _incomplete(result)
    assert "generate of model flaky was run on the whole stage" in line, line
    assert f"it stopped partway in {run} (part of its results are stored there)" in line, line
    assert "run the same command there again" in line, line


def test_a_known_model_without_the_whole_stage_lacks_it() -> None:
    record = {"generate": {"markov": ["0/1"]}}
    assert missing_shards(record, {"generate": ["markov", "remote"]}) == [
        MissingShards("generate", "remote", 1, (0,))
    ]
    assert missing_shards(record, {"generate": ["markov"]}) == []


def test_a_store_made_before_shards_were_recorded_is_not_checked() -> None:
    assert missing_shards({}, {"judge": ["tj"]}) == []
