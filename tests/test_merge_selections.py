"""`merge` counted a judge against every poem of the merged run, one sample each:

* a judge run on part of the poems on purpose (`judge --limit N`, `--authors A,B`; recognise
  and style-match with `--limit`) made `merge` exit 1 with an "incomplete" line to ignore, so
  `merge && analyze` stopped on runs that were correct;
* a judge asked for `--samples 3` whose other samples were never stored counted as covered.

Each stage records now the poems and samples it was asked for (`poemetric.store.selections`),
and the merged run is counted against those. Stores are made by the real commands, the judges
served by the local OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

from test_merge_coverage import UserModel, _answer, _cli, _incomplete, _markov, _model_file, _ok
from test_runner_support import TEST_KEY

from poemetric.merging import merge_stores
from poemetric.store import RunStore
from poemetric.store.merge import merge_runs
from poemetric.store.selections import Selection, parse_selections, to_json, union_selections
from poemetric.testing.servers import Fault, OpenAIServer

#: The generation template these scenarios were built on, kept with the tests: which poems each
#: `--shard K/2` owns is a hash of the job, whose key holds the template's sha256, so an edit of
#: the bundled prompts/generation.jinja moved poems between the shards and the scenarios below
#: (shard 1 lacking poems 3 and 4, the merged run's first markov poems being shard 1's) away.
SHARDS_TEMPLATE = str(Path(__file__).with_name("merge_shards_template.jinja"))


def test_a_judge_given_part_of_the_poems_on_purpose_is_complete(
    tmp_path: Path, user_model: UserModel
) -> None:
    run, dest = tmp_path / "run", tmp_path / "all"
    _ok("generate", "--no-progress", "--template", SHARDS_TEMPLATE, "--run", run, "--limit", "8")
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        for name in ("tj", "tk"):
            _model_file(user_model, "judges", name, server)
        _ok("judge", "--run", run, "--judge", "tj", "--limit", "3", "--no-progress")
        _ok("judge", "--run", run, "--judge", "tk", "--authors", "markov", "--no-progress")
        _ok("judge", "recognise", "--run", run, "--judge", "tj", "--limit", "2", "--no-progress")
        style = ["ghostwriting", "style-match", "--judge", "tj", "--trials", "1", "--no-progress"]
        _ok(*style, "--run", run, "--limit", "2")
    result = _ok("merge", run, "--into", dest)  # exit 1 before: four lines to ignore
    assert not _incomplete(result), result.output


def test_a_gap_within_the_selection_is_named_with_its_options(
    tmp_path: Path, user_model: UserModel
) -> None:
    """Judged `--limit 4` on shard 0/2 only: of the merged run's first 4 poems, those of shard
    1/2 lack; the command given covers only them (`--limit 4`). A later run without `--limit`
    widens what the judge is to cover to every poem."""
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, part in enumerate(parts):
        _ok(
            "generate",
            "--no-progress",
            "--template",
            SHARDS_TEMPLATE,
            "--run",
            part,
            "--limit",
            "8",
            "--shard",
            f"{k}/2",
        )
    dest = tmp_path / "all"
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("judge", "--run", parts[0], "--judge", "tj", "--limit", "4", "--no-progress")
        result = _cli("merge", *parts, "--into", dest)
        assert result.exit_code == 1, result.output
        (judge,) = _incomplete(result)
        with RunStore(dest) as merged:
            first = merged.query(
                "SELECT COUNT(*) FROM generations g JOIN poems p ON p.poem_id = g.poem_id "
                "WHERE g.status = 'ok' AND p.position < (SELECT MIN(position) FROM poems) + 4"
            )[0][0]
            judged = merged.count("judgments")
        assert judge.startswith(
            f"incomplete: judge of model tj: {first - judged} of the {first} poems it was asked "
            f"to cover (--limit 4) in {dest} have no judgment of it"
        ), judge
        assert f"run poemetric judge --run {dest} --judge tj --limit 4 to judge them" in judge
        assert "ignore this" not in judge, judge
        _ok("judge", "--run", dest, "--judge", "tj", "--limit", "4", "--no-progress")
        assert not _incomplete(_ok("merge", parts[1], "--into", dest))

        # Every poem now, on part0: the poems of part1 are to be judged too.
        _ok("judge", "--run", parts[0], "--judge", "tj", "--no-progress")
        with RunStore(parts[0]) as store:
            assert store.get_meta("selections")["judge"] == {
                "tj": [{"authors": None, "limit": None, "samples": 1}]
            }
        wider = tmp_path / "wider"
        (judge,) = _incomplete(_cli("merge", *parts, "--into", wider))
        assert judge.startswith(
            f"incomplete: judge of model tj: {_markov(tmp_path, parts[1])} of the 16 "
        )


def test_missing_samples_are_a_gap(tmp_path: Path, user_model: UserModel) -> None:
    """Judged once, then asked for `--samples 3` with a revoked key: each poem holds one of
    the three samples asked for, which `merge` counted as covered (exit 0)."""
    run, dest = tmp_path / "run", tmp_path / "all"
    _ok("generate", "--no-progress", "--template", SHARDS_TEMPLATE, "--run", run, "--limit", "4")
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("judge", "--run", run, "--judge", "tj", "--no-progress")
    with RunStore(run) as store:
        poems = store.count("judgments")
    revoked = [Fault.client_error(401, "key revoked")] * 50
    with OpenAIServer(_answer, api_key=TEST_KEY, faults=revoked) as server:
        _model_file(user_model, "judges", "tj", server)
        assert _cli("judge", "--run", run, "--judge", "tj", "--samples", "3").exit_code == 1
    result = _cli("merge", run, "--into", dest)
    assert result.exit_code == 1, result.output
    (judge,) = _incomplete(result)
    assert judge.startswith(
        f"incomplete: judge of model tj: {poems} of the {poems} poems it was asked to cover "
        f"(--samples 3) in {dest} have fewer than the 3 samples of it asked for"
    ), judge
    assert f"run poemetric judge --run {dest} --judge tj --samples 3 to judge them" in judge

    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("judge", "--run", dest, "--judge", "tj", "--samples", "3", "--no-progress")
    assert not _incomplete(_ok("merge", run, "--into", dest))


def _judged_positions(run: Path) -> list[int]:
    with RunStore(run) as store:
        rows = store.query(
            "SELECT DISTINCT p.position FROM judgments j "
            "JOIN generations g ON g.generation_id = j.generation_id "
            "JOIN poems p ON p.poem_id = g.poem_id ORDER BY p.position"
        )
    return [int(row[0]) for row in rows]


def test_a_limit_on_one_shard_counts_the_poems_it_picked_there(
    tmp_path: Path, user_model: UserModel
) -> None:
    """`judge --authors markov --limit 2` on shard 0/2: markov's first two poems *of that
    shard*. The merge read the limit again in the merged run, whose first two markov poems are
    shard 1's: it named the judge incomplete over poems it was never asked about (and not the
    ones it judged), with `--limit 2` to judge them. The poems the limit picked are recorded now,
    and counted in the merged run; a gap among them is covered where the judge ran."""
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, part in enumerate(parts):
        _ok(
            "generate",
            "--no-progress",
            "--template",
            SHARDS_TEMPLATE,
            "--run",
            part,
            "--limit",
            "8",
            "--shard",
            f"{k}/2",
        )
    picked = ["judge", "--judge", "tj", "--authors", "markov", "--limit", "2", "--no-progress"]
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok(*picked, "--run", parts[0])
        dest = tmp_path / "all"
        result = _ok("merge", *parts, "--into", dest)  # exit 1 before: the wrong poems lacked
        assert not _incomplete(result), result.output
        judged = _judged_positions(parts[0])
        assert _judged_positions(dest) == judged
        _ok(*picked, "--run", dest)  # picks the merged run's first markov poems: other ones
        assert _judged_positions(dest) != judged

        # A poem of those it picked lacks (it stopped before it): the line sends the user to
        # the store it ran in, not to `--limit 2` on the merged run (other poems there).
        with RunStore(parts[0]) as store:
            store.conn.execute(
                "DELETE FROM judgments WHERE judgment_id = (SELECT MAX(judgment_id) FROM judgments)"
            )
            store.conn.commit()
        again = tmp_path / "again"
        result = _cli("merge", *parts, "--into", again)
        assert result.exit_code == 1, result.output
        (judge,) = _incomplete(result)
        assert judge.startswith(
            f"incomplete: judge of model tj: 1 of the 2 poems it was asked to cover (--authors "
            f"markov --limit 2 where it ran) in {again} has no judgment of it (markov 1): its --limit "
            f"picked them among the poems of the store it ran in (not the first poems of {again})"
        ), judge
        assert "--run " + str(again) not in judge.split("the merge was written")[1], judge
        assert "run its command there again, with the same options" in judge, judge
        _ok(*picked, "--run", parts[0])
    assert not _incomplete(_ok("merge", parts[0], "--into", again))


def test_the_limits_of_two_shards_are_both_kept() -> None:
    """Each shard's `--limit 2` picked its own poems: the merged record asks for both sets (a
    limit without its poems, from an older store, is read again as before)."""
    first, second = (Selection(("markov",), 2, 1, poems) for poems in (("a", "b"), ("c", "d")))
    merged = union_selections([{"judge": {"tj": [first]}}, {"judge": {"tj": [second]}}])
    assert merged == {"judge": {"tj": [first, second]}}
    held = to_json(merged)
    assert parse_selections(held) == merged
    assert held["judge"]["tj"][0] == {
        "authors": ["markov"],
        "limit": 2,
        "samples": 1,
        "poems": ["a", "b"],
    }
    wider = Selection(("markov",), 4, 1, ("a", "b", "c", "d"))
    assert union_selections([merged, {"judge": {"tj": [wider]}}]) == {"judge": {"tj": [wider]}}
    older = Selection(("markov",), 2)  # recorded before the poems were
    assert not older.covers(first) and not first.covers(older)


def test_a_gap_in_a_store_without_selection_records_is_a_warning(
    tmp_path: Path, user_model: UserModel
) -> None:
    """A store written before selections were recorded, its judge given `--authors markov` on
    purpose: `merge` exited 1 with a line to ignore, stopping `merge && analyze`. Whether it was
    asked for the human poems is unknown: the gap is named as such, exit 0 (1 with
    `--strict`)."""
    run = tmp_path / "run"
    _ok("generate", "--no-progress", "--template", SHARDS_TEMPLATE, "--run", run, "--limit", "4")
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("judge", "--run", run, "--judge", "tj", "--authors", "markov", "--no-progress")
    with RunStore(run) as store:  # as an older POEMetric wrote it
        store.conn.execute("DELETE FROM meta WHERE key = 'selections'")
        store.conn.commit()
        human = store.count("generations", "author = 'human' AND status = 'ok'")
    result = _ok("merge", run, "--into", tmp_path / "all")  # exit 1 before
    assert not _incomplete(result), result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("unknown selection: ")]
    assert f"judge of model tj: {human} of the " in line, line
    assert "which poems it was asked for is unknown" in line, line
    assert "if tj was meant to cover them" in line, line
    strict = _cli("merge", run, "--into", tmp_path / "strict", "--strict")
    assert strict.exit_code == 1, strict.output


def test_merge_stores_checks_coverage_as_the_command(tmp_path: Path, user_model: UserModel) -> None:
    """`merge_runs` from Python looks for no gap unless given the stages' rule (the store is
    below the stages): a judge run on one of two shards merged silently. `merge_stores` merges
    with the command's rules."""
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, part in enumerate(parts):
        _ok(
            "generate",
            "--no-progress",
            "--template",
            SHARDS_TEMPLATE,
            "--run",
            part,
            "--limit",
            "8",
            "--shard",
            f"{k}/2",
        )
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("judge", "--run", parts[0], "--judge", "tj", "--no-progress")
    (gap,) = merge_stores(parts, tmp_path / "all").uncovered
    assert (gap.stage, gap.model, gap.lacking) == ("judge", "tj", _markov(tmp_path, parts[1]))
    assert not merge_runs(parts, tmp_path / "none").uncovered


def test_missing_style_match_trials_are_a_gap(tmp_path: Path, user_model: UserModel) -> None:
    """Style-matched with one trial per poem, then asked for `--trials 2` with a revoked key:
    each poem holds one of its two trials, which `merge` counted as covered (a poem with a
    trial was, whatever its `--trials` and `--samples`)."""
    run, dest = tmp_path / "run", tmp_path / "all"
    _ok("generate", "--no-progress", "--template", SHARDS_TEMPLATE, "--run", run, "--limit", "4")
    style = ["ghostwriting", "style-match", "--run", run, "--judge", "tj", "--no-progress"]
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok(*style, "--trials", "1")
    with RunStore(run) as store:
        poems = store.count("style_matches")
    revoked = [Fault.client_error(401, "key revoked")] * 50
    with OpenAIServer(_answer, api_key=TEST_KEY, faults=revoked) as server:
        _model_file(user_model, "judges", "tj", server)
        assert _cli(*style, "--trials", "2").exit_code == 1
    result = _cli("merge", run, "--into", dest)
    assert result.exit_code == 1, result.output  # 0 before
    (line,) = _incomplete(result)
    assert line.startswith(
        f"incomplete: style-match of model tj: {poems} of the {poems} poems that can have a "
        f"style-match trial it was asked to cover (--trials 2) in {dest} have fewer than the 2 "
        "answers of it asked for (--trials times --samples)"
    ), line
    assert f"style-match --run {dest} --judge tj --trials 2 to give them" in line, line
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("ghostwriting", "style-match", "--run", dest, "--judge", "tj", "--trials", "2")
    assert not _incomplete(_ok("merge", run, "--into", dest))
