"""`merge` of a store whose `generate` is at work (its first stage: no model through yet, so no
shard record): with nothing stored yet the merge said nothing and exited 0, with part stored it
said the model "stopped partway ... run the same command again", which would run a second
process beside the one at work. Both now say a process was at work on the generate stage there
(it holds job leases), to let it finish and merge again, and exit 1, as for a judge at work
(tests/test_merge_started.py). A real `generate` process, held at the local OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cluster_signals import HeldAfter
from test_merge_started import _cli, _lines
from test_runner_leases import cli, model_dir, wait_for
from test_runner_support import TEST_KEY, prepared_store

from poemetric.store import RunStore
from poemetric.store.shards import MissingShards, missing_shards
from poemetric.testing.servers import OpenAIServer


@pytest.mark.parametrize("answered", [0, 2], ids=["nothing stored", "part stored"])
def test_a_merge_while_generate_is_at_work_says_so_and_exits_1(
    tmp_path: Path, answered: int
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    held = HeldAfter(answered)
    try:
        with OpenAIServer(held, api_key=TEST_KEY) as server:
            folder = model_dir(tmp_path, "generators", server.base_url, "tg")
            args = ("generate", "--run", str(run), "--models", "tg", "--no-progress")
            generate = cli(tmp_path, *args, env={"POEMETRIC_GENERATORS_DIR": str(folder)})
            # max_concurrency 2: `answered` answers stored, two requests held
            wait_for(lambda: len(server.generation_requests) == answered + 2)

            def stored() -> int:
                with RunStore(run) as store:
                    return store.count("generations", "author = 'tg'")

            wait_for(lambda: stored() == answered)
            result = _cli("merge", run, "--into", tmp_path / "all")
            assert generate.poll() is None  # still at work
            held.release.set()
            output, _ = generate.communicate(timeout=120)
            assert generate.returncode == 0, output
    finally:
        held.release.set()
    assert result.exit_code == 1, result.output
    assert not _lines(result, "not run"), result.output
    said = " ".join(result.output.split())
    assert f"a process was at work on the generate stage in {run} as it was merged" in said, said
    assert "let it finish there" in said, said
    assert "stopped partway" not in said, said
    assert "no --shard" not in said, said  # unknown until it is through: not recorded before


def test_a_stage_at_work_is_checked_where_no_store_records_shards_yet() -> None:
    """Stores made before shards were recorded are still not checked; a stage at work is."""
    assert missing_shards({}, {"generate": ["tg"]}, at_work={"generate"}) == [
        MissingShards("generate", "tg", 1, (0,))
    ]
    assert missing_shards({}, {"judge": ["tj"]}, at_work={"generate"}) == []
