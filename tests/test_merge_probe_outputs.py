"""The `probe run` commands that `merge` names for a chat scorer's other pairs named the
scorer's own scores file while picking another scorer's pairs: `probe run` rewrites `--output`
with the pairs it scores, so run as printed, the scorer's earlier scores were lost (and several
commands, joined by ", then ", each replaced the one before). Now a command names a scorer's
scores file only where its pairs hold that file's (one `--tasks` of all their tasks, where no
`--limit` was given), else a scores file of its own, distinct across the commands. Every command
printed is run as printed; the merge is then clean and `probe report` reads the files."""

from __future__ import annotations

import json
import shlex
import sqlite3
from pathlib import Path

from test_merge_probes import UserModel, _cli, _gap_lines, _pairs, _score, _scorers
from test_runner_support import TEST_KEY

from poemetric.store.db import DB_NAME
from poemetric.testing.servers import OpenAIServer


def _tasks_in(path: Path) -> set[str]:
    return {json.loads(line)["task"] for line in path.read_text().splitlines() if line.strip()}


def _commands(line: str) -> list[list[str]]:
    """The `probe run` commands a merge line (`other pairs` or `incomplete`) names, split as a
    shell would."""
    run = line.split("; the merge was written: ", 1)[1].removeprefix("if it is to score them, ")
    run = run.removeprefix("run ").split(" (answers stored", 1)[0].removesuffix(" to ask them")
    commands = [shlex.split(command) for command in run.split(", then ")]
    assert all(command[:3] == ["poemetric", "probe", "run"] for command in commands), line
    return [command[1:] for command in commands]


def _output_of(command: list[str]) -> Path:
    return Path(command[command.index("--output") + 1])


def _run_all(lines: list[str]) -> list[Path]:
    """Run every command named, in the order printed; their scores files."""
    outputs = []
    for line in lines:
        for command in _commands(line):
            result = _cli(*command)
            assert result.exit_code == 0, result.output
            outputs.append(_output_of(command))
    return outputs


def _report_is_clean(files: list[Path]) -> None:
    report = _cli("probe", "report", *dict.fromkeys(files))
    assert report.exit_code == 0, report.output
    assert "Pairs differ" not in report.output, report.output
    assert "warning" not in report.output.lower(), report.output


def test_the_other_tasks_are_added_to_the_scorers_own_scores_file(
    tmp_path: Path, user_model: UserModel
) -> None:
    """alpha scored the synonym pairs of a file, beta its rhyme_word_swap pairs, each on its own
    machine. alpha's command asks --tasks synonym,rhyme_word_swap into alpha.jsonl: run as
    printed, alpha.jsonl holds both tasks (only the 3 new pairs asked), beta's likewise; merged
    again, nothing is named, and `probe report` of the two files compares the same pairs."""
    pairs = tmp_path / "pairs.jsonl"
    a = _pairs(tmp_path / "a.jsonl", range(3), task="synonym")
    b = _pairs(tmp_path / "b.jsonl", range(3, 6), task="rhyme_word_swap")
    pairs.write_text(a.read_text() + b.read_text())
    parts = [tmp_path / "part0", tmp_path / "part1"]
    into = tmp_path / "merged"
    alpha, beta = tmp_path / "alpha.jsonl", tmp_path / "beta.jsonl"
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], alpha, "--tasks", "synonym")
        _score(pairs, "beta", parts[1], beta, "--tasks", "rhyme_word_swap")
        merged = _cli("merge", *parts, "--into", into)
        assert merged.exit_code == 0, merged.output
        lines = _gap_lines(merged)
        assert [len(_commands(line)) for line in lines] == [1, 1], lines
        (alpha_line,) = [line for line in lines if "chat:alpha" in line]
        assert (
            f"run poemetric probe run {pairs} --scorer chat:alpha --run {into} --output {alpha} "
            "--tasks synonym,rhyme_word_swap (answers"
        ) in alpha_line
        server.clear_log()
        files = _run_all(lines)
        assert len(server.generation_requests) == 6  # each scorer's 3 new pairs only
    assert files == [alpha, beta]
    assert _tasks_in(alpha) == _tasks_in(beta) == {"synonym", "rhyme_word_swap"}
    again = _cli("merge", parts[0], "--into", into, "--strict")
    assert again.exit_code == 0, again.output
    assert _gap_lines(again) == []
    _report_is_clean(files)


def test_several_limited_requests_get_scores_files_of_their_own(
    tmp_path: Path, user_model: UserModel
) -> None:
    """beta scored the first 2 pairs of two tasks (--limit: no one command picks both), alpha
    the synonym pairs. alpha's line names two commands, each with a new scores file of its own
    (neither alpha.jsonl nor the other's); beta's names one for the synonym pairs, in a new file
    too (its files hold other pairs). Run as printed, every earlier scores file keeps its pairs,
    the merge is clean and `probe report` over all the files compares the same pairs."""
    pairs = tmp_path / "pairs.jsonl"
    chunks = [
        _pairs(tmp_path / "a.jsonl", range(3), task="synonym"),
        _pairs(tmp_path / "b.jsonl", range(3, 6), task="rhyme_word_swap"),
        _pairs(tmp_path / "c.jsonl", range(6, 9), task="rhyme_line_swap"),
    ]
    pairs.write_text("".join(chunk.read_text() for chunk in chunks))
    parts = [tmp_path / "part0", tmp_path / "part1"]
    into = tmp_path / "merged"
    alpha = tmp_path / "alpha.jsonl"
    beta = [tmp_path / "beta-words.jsonl", tmp_path / "beta-lines.jsonl"]
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], alpha, "--tasks", "synonym")
        _score(pairs, "beta", parts[1], beta[0], "--tasks", "rhyme_word_swap", "--limit", "2")
        _score(pairs, "beta", parts[1], beta[1], "--tasks", "rhyme_line_swap", "--limit", "2")
        merged = _cli("merge", *parts, "--into", into)
        assert merged.exit_code == 0, merged.output
        lines = _gap_lines(merged)
        (alpha_line,) = [line for line in lines if "chat:alpha" in line]
        named = [_output_of(command) for line in lines for command in _commands(line)]
        assert len(named) == 3, lines
        assert len(set(named)) == 3, named  # no command rewrites another's scores file
        assert not {alpha, *beta} & set(named), named
        assert [_output_of(c) for c in _commands(alpha_line)] == [
            tmp_path / "alpha-pairs-scores.jsonl",
            tmp_path / "alpha-pairs-scores-2.jsonl",
        ]
        files = _run_all(lines)
    assert _tasks_in(alpha) == {"synonym"}
    assert (_tasks_in(beta[0]), _tasks_in(beta[1])) == ({"rhyme_word_swap"}, {"rhyme_line_swap"})
    again = _cli("merge", parts[0], "--into", into, "--strict")
    assert again.exit_code == 0, again.output
    assert _gap_lines(again) == []
    _report_is_clean([alpha, *beta, *files])


def test_a_limited_request_held_by_a_whole_one_adds_no_command(
    tmp_path: Path, user_model: UserModel
) -> None:
    """beta scored the first 4 pairs (--limit 4), then all of them; alpha the synonym pairs.
    alpha's line names one command, of all the pairs (--limit 4's are among them), into
    alpha.jsonl (its pairs are among them too): run, alpha.jsonl holds every pair."""
    pairs = tmp_path / "pairs.jsonl"
    a = _pairs(tmp_path / "a.jsonl", range(3), task="synonym")
    b = _pairs(tmp_path / "b.jsonl", range(3, 6), task="rhyme_word_swap")
    pairs.write_text(a.read_text() + b.read_text())
    parts = [tmp_path / "part0", tmp_path / "part1"]
    into = tmp_path / "merged"
    alpha, beta = tmp_path / "alpha.jsonl", tmp_path / "beta.jsonl"
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], alpha, "--tasks", "synonym")
        _score(pairs, "beta", parts[1], beta, "--limit", "4")
        _score(pairs, "beta", parts[1], beta)
        merged = _cli("merge", *parts, "--into", into)
        assert merged.exit_code == 0, merged.output
        (line,) = _gap_lines(merged)
        assert [_output_of(command) for command in _commands(line)] == [alpha], line
        assert "--limit" not in _commands(line)[0]
        files = _run_all([line])
    assert _tasks_in(alpha) == {"synonym", "rhyme_word_swap"}
    again = _cli("merge", parts[0], "--into", into, "--strict")
    assert again.exit_code == 0, again.output
    _report_is_clean([beta, *files])


def test_a_scorer_with_incomplete_and_other_pairs_names_one_scores_file(
    tmp_path: Path, user_model: UserModel
) -> None:
    """alpha was asked for the synonym pairs but stopped before 2 of them (no scores file
    written); beta scored the rhyme_word_swap pairs. alpha's incomplete line names --tasks
    synonym into alpha.jsonl, and its other-pairs line --tasks synonym,rhyme_word_swap into
    alpha.jsonl too (its pairs hold the first command's): the second named a new file
    alpha-pairs-scores.jsonl, so run as printed both files held alpha's synonym pairs and
    `probe report` of all the files refused them as counted twice. Now, run as printed,
    alpha.jsonl holds every pair once, the merge is clean and the report reads the files."""
    pairs = tmp_path / "pairs.jsonl"
    a = _pairs(tmp_path / "a.jsonl", range(3), task="synonym")
    b = _pairs(tmp_path / "b.jsonl", range(3, 6), task="rhyme_word_swap")
    pairs.write_text(a.read_text() + b.read_text())
    parts = [tmp_path / "part0", tmp_path / "part1"]
    into = tmp_path / "merged"
    alpha, beta = tmp_path / "alpha.jsonl", tmp_path / "beta.jsonl"
    with OpenAIServer(lambda call: "1", api_key=TEST_KEY) as server:
        _scorers(user_model, server)
        _score(pairs, "alpha", parts[0], alpha, "--tasks", "synonym")
        with sqlite3.connect(parts[0] / DB_NAME) as conn:  # the two answers it stopped before
            stopped = "SELECT cache_key FROM probe_choices WHERE pair_id IN ('p1', 'p2')"
            conn.execute(f"DELETE FROM response_cache WHERE cache_key IN ({stopped})")
            conn.execute("DELETE FROM probe_choices WHERE pair_id IN ('p1', 'p2')")
        alpha.unlink()  # a stopped run writes no scores file
        _score(pairs, "beta", parts[1], beta, "--tasks", "rhyme_word_swap")
        merged = _cli("merge", *parts, "--into", into)
        assert merged.exit_code == 1, merged.output
        lines = _gap_lines(merged)
        alpha_lines = [line for line in lines if "chat:alpha" in line]
        assert [line.split(":", 1)[0] for line in alpha_lines] == ["incomplete", "other pairs"]
        alpha_commands = [command for line in alpha_lines for command in _commands(line)]
        assert [_output_of(command) for command in alpha_commands] == [alpha, alpha], lines
        assert alpha_commands[1][-2:] == ["--tasks", "synonym,rhyme_word_swap"], lines
        server.clear_log()
        files = _run_all(lines)
        assert len(server.generation_requests) == 2 + 3 + 3  # alpha's stopped and new, beta's
    assert set(files) == {alpha, beta}
    assert _tasks_in(alpha) == _tasks_in(beta) == {"synonym", "rhyme_word_swap"}
    assert len(alpha.read_text().splitlines()) == 6
    again = _cli("merge", *parts, "--into", into, "--strict")
    assert again.exit_code == 0, again.output
    assert _gap_lines(again) == []
    _report_is_clean(files)
