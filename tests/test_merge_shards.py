"""`merge` of `--shard K/N` stores says when a shard is missing (a failed or never-run task)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store.db import DB_NAME
from poemetric.store.models import recorded_models
from poemetric.store.shards import MODEL_SHARDS_META_KEY, MissingShards, missing_shards


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
    assert "generate" in line and "shard(s) 2/3 are in none" in line and str(dest) in line
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
    assert result.exit_code == 1 and "shard(s) 1/2" in result.output, result.output


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
    assert "shard(s) 1/2 are in none" in line and str(dest) in line and "0/2" not in line

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
    assert "generate of model markov-b" in line and "shard(s) 1/2 are in none" in line, line

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
    assert [("markov-b" in line, "shard(s) 1/2" in line) for line in _incomplete(result)] == [
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
