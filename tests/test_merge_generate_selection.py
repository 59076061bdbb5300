"""`merge` called a deliberate `generate --shard K/N --limit N` incomplete: each shard of a paid
model's pilot on 4 of the run's 8 poems was counted against all 8 (exit 1), with a hint that
paid for the 4 poems nobody asked for (`--limit 8`); so was `--samples 3 --limit 2` on top of a
`--samples 1` run. Generate records its selection per model now (`record_selection`, as the
judge does), and merge counts each model over the poems and samples it was asked for (the
union over the shards' stores). Stores are made by the real commands, the paid model served by
the local OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

from test_merge_coverage import POEM, UserModel, _cli, _incomplete, _model_file, _ok

from poemetric.generation.stage import STAGE as GENERATE
from poemetric.store import RunStore
from poemetric.store.selections import stage_selections
from poemetric.testing.servers import Fault, OpenAIServer

#: The generation template these scenarios were built on, kept with the tests: which poems each
#: `--shard K/2` owns is a hash of the job, whose key holds the template's sha256, so an edit of
#: the bundled prompts/generation.jinja moved poems between the shards and the scenarios below
#: (shard 1 lacking poems 3 and 4, the merged run's first markov poems being shard 1's) away.
SHARDS_TEMPLATE = str(Path(__file__).with_name("merge_shards_template.jinja"))
GEN = ["generate", "--no-progress", "--template", SHARDS_TEMPLATE]


def _parts(tmp_path: Path) -> list[Path]:
    """Two shards of one run of markov, all 8 poems."""
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, part in enumerate(parts):
        _ok(*GEN, "--run", part, "--limit", "8", "--shard", f"{k}/2")
    return parts


def _jobs(part: Path, model: str) -> int:
    with RunStore(part) as store:
        return store.count("generations", f"author = '{model}'")


def test_a_sharded_pilot_on_fewer_poems_is_complete(tmp_path: Path, user_model: UserModel) -> None:
    parts = _parts(tmp_path)
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        for k, part in enumerate(parts):
            _ok(*GEN, "--run", part, "--limit", "4", "--models", "tg", "--shard", f"{k}/2")
    assert _jobs(parts[0], "tg") + _jobs(parts[1], "tg") == 4
    dest = tmp_path / "all"
    result = _cli("merge", *parts, "--into", dest)
    assert result.exit_code == 0, result.output  # 1: "4 of the 8 poems", run it on --limit 8
    assert not _incomplete(result) and "unknown selection" not in result.output, result.output
    with RunStore(dest) as store:
        [pilot] = stage_selections(store, GENERATE)["tg"]
    assert (pilot.limit, pilot.samples, pilot.poems and len(pilot.poems)) == (4, 1, 4)


def test_more_samples_of_fewer_poems_on_top_of_a_sharded_run_is_complete(tmp_path: Path) -> None:
    """`--samples 3 --limit 2` on top of the sharded run: complete once both shards ran it;
    with shard 0/2 only, the lacking samples are named with the command that asked for them,
    not 3 samples of all 8 poems."""
    parts = _parts(tmp_path)
    more = ["--limit", "2", "--samples", "3"]
    _ok(*GEN, "--run", parts[0], *more, "--shard", "0/2")
    half = tmp_path / "half"
    result = _cli("merge", *parts, "--into", half)
    assert result.exit_code == 1, result.output
    [line] = _incomplete(result)
    lacking = 12 - _jobs(half, "markov")  # 8 poems once, 2 of them 3 times
    assert line.startswith(f"incomplete: generate of model markov: {lacking} of the 12 "), line
    run = f"poemetric generate --run {half} --models markov --limit 2 --samples 3 to write them"
    assert run in line, line

    _ok(*GEN, "--run", parts[1], *more, "--shard", "1/2")
    assert _jobs(parts[0], "markov") + _jobs(parts[1], "markov") == 8 + 2 * 2
    result = _cli("merge", *parts, "--into", tmp_path / "all")
    assert result.exit_code == 0, result.output  # 1: "12 of the 24 poems", --limit 8 --samples 3
    assert not _incomplete(result) and "unknown selection" not in result.output, result.output


def test_a_shard_that_stopped_partway_is_still_named(tmp_path: Path, user_model: UserModel) -> None:
    """Shard 1/2 of the pilot stopped at a revoked key: named with the command that finishes it
    (no wider --limit); resumed there and merged again, complete."""
    parts, dest = _parts(tmp_path), tmp_path / "all"
    pilot = [*GEN, "--limit", "4", "--models", "tg"]
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        _ok(*pilot, "--run", parts[0], "--shard", "0/2")
    with OpenAIServer(lambda call: POEM, faults=[Fault.client_error(401, "revoked")] * 8) as server:
        _model_file(user_model, "generators", "tg", server)
        assert _cli(*pilot, "--run", parts[1], "--shard", "1/2").exit_code == 1
    result = _cli("merge", *parts, "--into", dest)
    assert result.exit_code == 1, result.output
    [line] = _incomplete(result)
    assert line.startswith("incomplete: generate of model tg ran with --shard K/2, but shard 1/2")
    assert "--limit 8" not in result.output, result.output
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        _ok(*pilot, "--run", parts[1], "--shard", "1/2")
    result = _cli("merge", parts[1], "--into", dest)
    assert result.exit_code == 0, result.output
    assert not _incomplete(result), result.output


def test_shards_asked_for_different_poems_name_only_the_poems_asked_for(
    tmp_path: Path, user_model: UserModel
) -> None:
    """Shard 0/2 asked for 4 poems, shard 1/2 for 2: the lacking ones are shard 1's jobs of
    poems 3 and 4 (asked of the model by shard 0's --limit 4), written by `--limit 4` on the
    merged run, not the 8 poems it holds."""
    parts, dest = _parts(tmp_path), tmp_path / "all"
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        for k, (part, limit) in enumerate(zip(parts, ("4", "2"), strict=True)):
            _ok(*GEN, "--run", part, "--limit", limit, "--models", "tg", "--shard", f"{k}/2")
        written = _jobs(parts[0], "tg") + _jobs(parts[1], "tg")
        result = _cli("merge", *parts, "--into", dest)
        assert result.exit_code == 1, result.output
        [line] = _incomplete(result)
        assert line.startswith(
            f"incomplete: generate of model tg: {4 - written} of the 4 poems it was asked to "
            f"write in {dest} (one per prompt and sample"
        ), line
        assert f"run poemetric generate --run {dest} --models tg --limit 4 to write" in line, line
        _ok(*GEN, "--run", dest, "--models", "tg", "--limit", "4")
    assert _jobs(dest, "tg") == 4
    assert not _incomplete(_ok("merge", parts[1], "--into", dest))


def test_two_selections_that_lack_poems_get_a_command_each(tmp_path: Path) -> None:
    """Shard 0/2 ran 8 poems once and 2 of them 3 times, shard 1/2 4 poems once: each lacking
    selection is named with its own command (one `--limit 8 --samples 3` would pay for 2 more
    samples of 6 poems nobody asked for)."""
    parts, dest = [tmp_path / f"part{k}" for k in range(2)], tmp_path / "all"
    _ok(*GEN, "--run", parts[0], "--limit", "8", "--shard", "0/2")
    _ok(*GEN, "--run", parts[0], "--limit", "2", "--samples", "3", "--shard", "0/2")
    _ok(*GEN, "--run", parts[1], "--limit", "4", "--shard", "1/2")
    [line] = _incomplete(_cli("merge", *parts, "--into", dest))
    command = f"poemetric generate --run {dest} --models markov"
    assert f"run {command} --limit 8, then {command} --limit 2 --samples 3 to write" in line, line
    _ok(*GEN, "--run", dest, "--limit", "8")
    _ok(*GEN, "--run", dest, "--limit", "2", "--samples", "3")
    assert _jobs(dest, "markov") == 8 + 2 * 2
    assert not _incomplete(_ok("merge", parts[1], "--into", dest))


def test_the_command_names_the_runs_own_dataset(tmp_path: Path) -> None:
    """A plain `generate` reads the bundled demo, which a run of another dataset refuses: the
    command names the run's own."""
    parts, dest = [tmp_path / f"part{k}" for k in range(2)], tmp_path / "all"
    for k, (part, limit) in enumerate(zip(parts, ("4", "2"), strict=True)):
        _ok(
            *GEN,
            "--run",
            part,
            "--dataset",
            "lear-limericks",
            "--limit",
            limit,
            "--shard",
            f"{k}/2",
        )
    [line] = _incomplete(_cli("merge", *parts, "--into", dest))
    command = f"poemetric generate --run {dest} --models markov --dataset lear-limericks --limit 4"
    assert f"run {command} to write them" in line, line
    _ok(*command.split()[1:])
    assert not _incomplete(_ok("merge", parts[1], "--into", dest))


def test_a_resume_without_limit_records_the_poems_the_run_holds(
    tmp_path: Path, user_model: UserModel
) -> None:
    """`--limit 3`, then the command again without `--limit` (the run keeps its 3 poems): the
    resume recorded "every poem", which replaced the `--limit 3` selection, and merged with a run
    of every poem, markov was counted over all 16 ("13 of the 16 poems", `--limit 16`). It
    records the 3 poems the run holds now; "every poem" only once the run holds them all."""
    first, other, dest = tmp_path / "a", tmp_path / "b", tmp_path / "m"
    _ok(*GEN, "--run", first, "--models", "markov", "--limit", "3")
    _ok(*GEN, "--run", first, "--models", "markov")
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        _ok(*GEN, "--run", other, "--models", "tg", "--limit", "all")
    result = _cli("merge", first, other, "--into", dest)
    assert result.exit_code == 0, result.output  # 1: "13 of the 16 poems", --limit 16
    assert not _incomplete(result) and "unknown selection" not in result.output, result.output
    with RunStore(first) as store:
        [held] = stage_selections(store, GENERATE)["markov"]
    assert (held.limit, held.poems and len(held.poems)) == (3, 3), held

    _ok(*GEN, "--run", first, "--models", "markov", "--limit", "all")
    _ok(*GEN, "--run", first, "--models", "markov")  # every poem held: "every poem"
    with RunStore(first) as store:
        assert [s.whole for s in stage_selections(store, GENERATE)["markov"]] == [True]
