"""A judging command (or `form run`) run while `generate` is at work on the same run works on the
poems stored so far, and says that `generate` was at work and that the command is to be run
again once it has ended (it exited 0 without a word, as if the run were judged through). Real
processes through the real CLI, against two local OpenAI servers (the generator's, the
judge's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cluster_signals import HeldAfter
from test_runner_leases import cli, model_dir, wait_for
from test_runner_support import VALID_JUDGE_ANSWER, prepared_store

from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

NOTE = "note: generate was at work on this run while this command ran (pid {pid} on "
AGAIN = "are not {done} here; run this command again once it has ended (it takes only those)."

COMMANDS = {
    "judge": (("judge", "--judge", "judge-test"), VALID_JUDGE_ANSWER, "judgments", "judged"),
    "style-match": (
        ("ghostwriting", "style-match", "--judge", "judge-test", "--trials", "1"),
        "B",
        "style_matches",
        "judged",
    ),
    "form run": (("form", "run"), "", "form_checks", "checked"),
}


def stored(run: Path, table: str, where: str = "1") -> int:
    with RunStore(run) as store:
        return store.count(table, where)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_judge_beside_a_running_generate_says_to_run_it_again(
    tmp_path: Path, command: str
) -> None:
    args, answer, table, done = COMMANDS[command]
    run = tmp_path / "run"
    prepared_store(run, poems=8).close()
    held = HeldAfter(4)  # generate's first 4 answers; then 2 requests held (max_concurrency 2)
    try:
        with (
            OpenAIServer(held) as generator,
            OpenAIServer(lambda call: answer) as judge,
        ):
            env = {
                "POEMETRIC_GENERATORS_DIR": str(
                    model_dir(tmp_path, "gen", generator.base_url, "remote-test")
                ),
                "POEMETRIC_JUDGES_DIR": str(
                    model_dir(tmp_path, "judges", judge.base_url, "judge-test")
                ),
            }
            generate = ("generate", "--run", str(run), "--models", "remote-test", "--no-progress")
            first = cli(tmp_path, *generate, env=env)
            wait_for(
                lambda: (
                    stored(run, "generations", "author = 'remote-test'") == 4
                    and len(generator.generation_requests) == 6
                )
            )
            beside = cli(tmp_path, *args, "--run", str(run), "--no-progress", env=env)
            beside_out, _ = beside.communicate(timeout=120)
            assert first.poll() is None, beside_out  # generate still at work
            assert beside.returncode == 0, beside_out
            assert NOTE.format(pid=first.pid) in beside_out, beside_out
            assert AGAIN.format(done=done) in beside_out
            judged = stored(run, table)
            held.release.set()
            first_out, _ = first.communicate(timeout=120)
            assert first.returncode == 0, first_out

            after = cli(tmp_path, *args, "--run", str(run), "--no-progress", env=env)
            after_out, _ = after.communicate(timeout=120)
            assert after.returncode == 0, after_out
            assert "generate was at work" not in after_out  # it has ended
            assert stored(run, table) > judged  # the poems stored meanwhile, judged now
    finally:
        held.release.set()
