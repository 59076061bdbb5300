"""`merge` checked no probe results: a chat scorer run on one machine's pairs only, or stopped
before some of the pairs it was asked to score, merged silently, and `probe report` then
compared scorers over different pairs. Now each scorer is counted against the pairs it was asked
for (recorded by `probe run` in its store) and those of the run's other scorers, and a gap is
named with its counts, a few pair ids and the `probe run` command that completes it. Stores
are made by the real `probe run --scorer chat:`, answered by the local OpenAI-compatible
server; the commands named are run as printed."""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from test_runner_support import TEST_KEY, TEST_KEY_ENV
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.pairs import Pair, write_jsonl
from poemetric.store.db import DB_NAME
from poemetric.store.shards import SHARD_META_KEYS
from poemetric.testing.servers import OpenAIServer

UserModel = Callable[[str, str, str], Path]
POEM = "A baker who lived by the weir,\nWould bake only bread with a beard."


def _cli(*args: str | Path) -> Result:
    env = {TEST_KEY_ENV: TEST_KEY, "COLUMNS": "400"}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def _pairs(path: Path, ids: range, task: str = "synonym") -> Path:
    pairs = [
        Pair(
            id=f"p{k}",
            poem_id=f"poem{k}",
            task=task,
            original=f"{POEM} {k}",
            corrupted=f"{POEM} {k}".replace("beard", "hair"),
        )
        for k in ids
    ]
    write_jsonl(pairs, path)
    return path


def _scorers(user_model: UserModel, server: OpenAIServer) -> None:
    for name in ("alpha", "beta"):
        user_model(
            "generators",
            name,
            f"name: {name}\nprovider: openai-compatible\nmodel: {name}-1\nbase_url: {server.base_url}\n"
            f"api_key_env: {TEST_KEY_ENV}\n",
        )


def _score(pairs: Path, scorer: str, run: Path, output: Path, *extra: str) -> None:
    result = _cli(
        "probe", "run", pairs, "--scorer", f"chat:{scorer}", "--no-progress", "--run", run,
        "-o", output, *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def _gap_lines(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if "probe of scorer" in line]


def _run_named(line: str) -> None:
    """Run the `probe run` command a merge line names, as printed."""
    command = line.split("run poemetric ", 1)[1]
    command = command.split(" (answers stored", 1)[0].split(" to ask them", 1)[0]
    result = _cli(*shlex.split(command))
    assert result.exit_code == 0, result.output


def test_a_scorer_run_on_one_shards_pairs_is_named_with_the_command(
    tmp_path: Path, user_model: UserModel
) -> None:
    """The pairs split in two files, one a machine: alpha scored both, beta only the first.
    Merged, beta lacks the second file's pairs: a warning (it was not asked for them, so
    exit 0; --strict: 1) naming beta, the counts by task, pair ids, and `probe run` of the
    second file with beta; run as printed, the merge again is clean."""
    first = _pairs(tmp_path / "pairs-0.jsonl", range(3))
    second = _pairs(tmp_path / "pairs-1.jsonl", range(3, 8), task="rhyme_word_swap")
    parts = [tmp_path / "part0", tmp_path / "part1"]
    into = tmp_path / "merged"
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(first, "alpha", parts[0], tmp_path / "alpha-0.jsonl")
        _score(first, "beta", parts[0], tmp_path / "beta.jsonl")
        _score(second, "alpha", parts[1], tmp_path / "alpha-1.jsonl")
        merged = _cli("merge", *parts, "--into", into)
        assert merged.exit_code == 0, merged.output
        (line,) = _gap_lines(merged)
        assert line.startswith(
            f"other pairs: probe of scorer chat:beta: 5 of the 8 pairs of {into} (asked of or "
            "answered by any scorer) have no answer of it "
        )
        assert "(rhyme_word_swap 5; e.g. p3, p4, p5, ...)" in line
        command = (
            f"run poemetric probe run {second} --scorer chat:beta --run {into} --output "
            f"{tmp_path / 'beta-pairs-1-scores.jsonl'} (answers stored in {into} are not "
            "asked again; --strict: exit 1 on such gaps)"
        )
        assert command in line
        strict = _cli("merge", *parts, "--into", tmp_path / "strict", "--strict")
        assert strict.exit_code == 1, strict.output
        server.clear_log()
        _run_named(line)
        assert len(server.generation_requests) == 5  # only beta's missing pairs were asked
        again = _cli("merge", parts[0], "--into", into)
    assert again.exit_code == 0, again.output
    assert _gap_lines(again) == []


def test_a_scorer_stopped_before_pairs_it_was_asked_for_is_incomplete(
    tmp_path: Path, user_model: UserModel
) -> None:
    """beta was asked for all 6 pairs on the second machine but holds answers to 4 there (as a
    stop leaves it: its request is recorded as it starts). Merged: exit 1, `incomplete`, the
    2 pairs named, and its own command, with its --seed and scores file; run, it is complete."""
    pairs = _pairs(tmp_path / "pairs.jsonl", range(6))
    parts = [tmp_path / "part0", tmp_path / "part1"]
    into = tmp_path / "merged"
    with OpenAIServer(lambda call: "2", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], tmp_path / "alpha.jsonl")
        _score(pairs, "beta", parts[1], tmp_path / "beta.jsonl", "--seed", "3")
        with sqlite3.connect(parts[1] / DB_NAME) as conn:  # the two answers it stopped before
            stopped = "SELECT cache_key FROM probe_choices WHERE pair_id IN ('p4', 'p5')"
            conn.execute(f"DELETE FROM response_cache WHERE cache_key IN ({stopped})")
            conn.execute("DELETE FROM probe_choices WHERE pair_id IN ('p4', 'p5')")
        merged = _cli("merge", *parts, "--into", into)
        assert merged.exit_code == 1, merged.output
        (line,) = _gap_lines(merged)
        assert line.startswith(
            "incomplete: probe of scorer chat:beta: 2 of the 6 pairs it was asked to score in "
            f"{into} have no answer of it (synonym 2; e.g. p4, p5), "
        )
        assert line.endswith(
            f"run poemetric probe run {pairs} --scorer chat:beta --run {into} --output "
            f"{tmp_path / 'beta.jsonl'} --seed 3 to ask them (answers stored in {into} are not "
            "asked again)"
        )
        server.clear_log()
        _run_named(line)
        assert len(server.generation_requests) == 2
        again = _cli("merge", parts[0], "--into", into)
    assert again.exit_code == 0, again.output
    assert _gap_lines(again) == []


def test_scorers_of_the_same_pairs_on_two_machines_merge_without_a_word(
    tmp_path: Path, user_model: UserModel
) -> None:
    """Each scorer on its own machine, over the same pairs (beta's in two runs: --limit 2,
    then all): nothing is named, exit 0, even with --strict."""
    pairs = _pairs(tmp_path / "pairs.jsonl", range(4))
    parts = [tmp_path / "part0", tmp_path / "part1"]
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], tmp_path / "alpha.jsonl")
        _score(pairs, "beta", parts[1], tmp_path / "beta.jsonl", "--limit", "2")
        _score(pairs, "beta", parts[1], tmp_path / "beta.jsonl")
    merged = _cli("merge", *parts, "--into", tmp_path / "merged", "--strict")
    assert merged.exit_code == 0, merged.output
    assert _gap_lines(merged) == []


def test_a_scorer_stopped_partway_is_named_once(tmp_path: Path, user_model: UserModel) -> None:
    """Stopped partway, beta's store holds no shard record of the probe stage for it: the
    merge names it as not through (as any stage's model), and not a second time here."""
    pairs = _pairs(tmp_path / "pairs.jsonl", range(4))
    parts = [tmp_path / "part0", tmp_path / "part1"]
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], tmp_path / "alpha.jsonl")
        _score(pairs, "beta", parts[1], tmp_path / "beta.jsonl")
    with sqlite3.connect(parts[1] / DB_NAME) as conn:  # as a stop before the last pair leaves it
        conn.execute("DELETE FROM probe_choices WHERE pair_id = 'p3'")
        conn.execute("DELETE FROM meta WHERE key IN (?, ?)", SHARD_META_KEYS)
    merged = _cli("merge", *parts, "--into", tmp_path / "merged")
    assert merged.exit_code == 1, merged.output
    named = [line for line in merged.output.splitlines() if "beta" in line]
    assert len(named) == 1, merged.output
    assert named[0].startswith("incomplete: probe of model beta was run on the whole stage")


def test_stores_older_than_the_record_name_the_gap_as_other_pairs(
    tmp_path: Path, user_model: UserModel
) -> None:
    """Stores written before `probe run` recorded its pairs: beta's gap among the pairs alpha
    answered is named (whether it was asked for them is unknown: a warning, exit 0), its
    command with the pairs file left to fill in."""
    pairs = _pairs(tmp_path / "pairs.jsonl", range(5))
    parts = [tmp_path / "part0", tmp_path / "part1"]
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], tmp_path / "alpha.jsonl")
        _score(pairs, "beta", parts[1], tmp_path / "beta.jsonl", "--limit", "3")
    for part in parts:
        with sqlite3.connect(part / DB_NAME) as conn:
            conn.execute("DELETE FROM meta WHERE key = 'probe_pairs'")
    into = tmp_path / "merged"
    merged = _cli("merge", *parts, "--into", into)
    assert merged.exit_code == 0, merged.output
    (line,) = _gap_lines(merged)
    assert line.startswith("other pairs: probe of scorer chat:beta: 2 of the 5 pairs ")
    assert "(synonym 2; e.g. p3, p4)" in line
    assert (
        f"run poemetric probe run PAIRS.jsonl --scorer chat:beta --run {into} --output "
        "SCORES.jsonl with the pairs file they come from"
    ) in line
