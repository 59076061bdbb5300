"""`merge` counted a model's poems only where no store recorded the generate stage's shards: a
store records a model through over the prompts *it* held, so stores prepared with different
`--limit`s merged as complete (exit 0, nothing said) while a model lacked the poems of the
prompts only the larger store held. Its poems are counted now: a model sharded with
`--shard K/N` lacks part of a shard (`incomplete`, exit 1); one run whole may have been given
fewer prompts on purpose (`unknown selection`, exit 0; 1 with `--strict`). Stores are made by
the real commands (markov: the offline baseline)."""

from __future__ import annotations

from pathlib import Path

from test_merge_coverage import POEM, UserModel, _cli, _incomplete, _model_file, _ok

from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer


def _count(run: Path) -> int:
    with RunStore(run) as store:
        return store.count("generations", "author = 'markov'")


def test_a_shard_prepared_with_a_smaller_limit_is_incomplete(tmp_path: Path) -> None:
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, (part, limit) in enumerate(zip(parts, ("8", "4"), strict=True)):
        _ok("generate", "--no-progress", "--run", part, "--limit", limit, "--shard", f"{k}/2")
    dest = tmp_path / "all"
    result = _cli("merge", *parts, "--into", dest)
    assert result.exit_code == 1, result.output  # 0 before, nothing said
    (line,) = _incomplete(result)
    lacking = 8 - _count(dest)
    assert lacking > 0
    assert line.startswith(
        f"incomplete: generate of model markov: {lacking} of the 8 poems it was asked to write in "
        f"{dest} (one per prompt and sample) are in none of the merged stores; every store that "
        "ran it records it through"
    ), line
    assert "(its --shard K/N parts were asked for different ones)" in line, line
    assert f"run poemetric generate --run {dest} --models markov --limit 8 to write them" in line
    _ok("generate", "--no-progress", "--run", dest, "--models", "markov", "--limit", "8")
    assert _count(dest) == 8
    with RunStore(dest) as store:
        assert store.count("prompts") == 8  # --limit kept the merged run's prompts
    assert not _incomplete(_ok("merge", parts[1], "--into", dest))


def test_a_model_run_whole_on_fewer_prompts_is_unknown(
    tmp_path: Path, user_model: UserModel
) -> None:
    """markov on 4 prompts in one store, another model on 8 in the other: markov was asked for
    4 (`generate --limit 4` records it): complete; in a store without the record (an older
    POEMetric), it may have been meant for 4 only."""
    small, large = tmp_path / "small", tmp_path / "large"
    _ok("generate", "--no-progress", "--run", small, "--limit", "4")
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        _ok("generate", "--no-progress", "--run", large, "--limit", "8", "--models", "tg")
    result = _ok("merge", small, large, "--into", tmp_path / "recorded")
    assert not _incomplete(result) and "unknown selection" not in result.output, result.output
    with RunStore(small) as store:
        store.set_meta("selections", {})  # written before generate recorded its selection
    result = _ok("merge", small, large, "--into", tmp_path / "all")
    assert not _incomplete(result), result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("unknown selection: ")]
    assert "generate of model markov: 4 of the 8 poems" in line, line
    assert "whether it was meant to write only those is unknown" in line, line
    strict = _cli("merge", small, large, "--into", tmp_path / "strict", "--strict")
    assert strict.exit_code == 1, strict.output
