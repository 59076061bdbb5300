"""`merge` of `--shard K/N` stores says when a shard is missing (a failed or never-run task)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store.models import recorded_models


def _generate(run: Path, *extra: str) -> None:
    args = ["generate", "--no-progress", "--run", str(run), "--models", "markov", "--limit", "4"]
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


def test_shards_that_ran_other_models_keep_their_model_records(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """One model per array task: the merge kept the `models` record of the first store only, so
    the report and the figures named the other shards' models from today's files (or not at
    all, for a file since removed)."""
    user_model(
        "generators", "markov-b", "name: markov-b\nprovider: markov\nmodel: markov\n"
        "display_name: Markov B\n",
    )  # fmt: skip
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
