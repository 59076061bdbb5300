"""`probe build --tasks last_line --generator API-MODEL`: the new last lines asked of a chat model
(the real SDKs against the local servers), seeds only where the provider takes them, failed
calls said, not swallowed, and the calls made through the batch runner: cached in `--run`,
retried, resumed after SIGTERM without paying twice."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from test_cluster_signals import HeldAfter, wait_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.testing.http_base import LocalServer
from poemetric.testing.servers import AnthropicServer, ChatCall, Fault, OpenAIServer

PROVIDERS = {"anthropic": "anthropic", "openai": "openai"}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def rhyming(call: ChatCall) -> str:
    """A last line ending on the partner word the prompt names (an identical rhyme)."""
    partner = re.search(r"rhyme with \u201c(.+?)\u201d", call.prompt)
    return f"And that was the end of the {partner.group(1) if partner else 'x'}."


def model_file(user_model: Callable[..., Path], server: LocalServer, *extra: str) -> Path:
    """The generator `liner`, served by `server`, as a user's model file; returns its folder."""
    lines = [
        "name: liner",
        f"provider: {PROVIDERS[server.api]}",
        "model: liner-1",
        f"base_url: {server.base_url}",
        f"api_key_env: {TEST_KEY_ENV}",
        *extra,
    ]
    return user_model("generators", "liner", "\n".join(lines) + "\n").parent


def build(pairs: Path, *extra: str, tasks: str = "last_line") -> tuple[int, str]:
    """`probe build` of two poems' last lines (`tasks`), two samples each, into the run beside
    `pairs`."""
    result = CliRunner().invoke(
        app,
        ["probe", "build", "lear-limericks", "-o", str(pairs), "--tasks", tasks,
         "--limit", "2", "--generator", "liner", "--attempts", "2",
         "--run", str(pairs.parent / "run"), *extra],
        env={"COLUMNS": "300"},
    )  # fmt: skip
    return result.exit_code, result.output


def test_an_anthropic_generator_is_sent_no_seed(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """Every request carried the poem's seed, which the Anthropic adapter refuses: each call
    failed, the errors were dropped, and the command printed "0 pairs" with exit status 0."""
    pairs = tmp_path / "pairs.jsonl"
    with AnthropicServer(rhyming, api_key=TEST_KEY) as server:
        model_file(user_model, server)
        code, output = build(pairs)
        bodies = [r.body for r in server.generation_requests]
    assert code == 0, output
    assert len(bodies) == 4 and not any("seed" in body for body in bodies)
    written = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()]
    assert len(written) == 2 and {p["task"] for p in written} == {"last_line_chat"}


def test_a_provider_that_takes_a_seed_gets_each_poems_seed(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    with OpenAIServer(rhyming, api_key=TEST_KEY) as server:
        model_file(user_model, server)
        code, output = build(tmp_path / "pairs.jsonl")
        seeds = [r.body.get("seed") for r in server.generation_requests]
    assert code == 0, output
    # Two poems, two samples each: sample 1 takes its poem's seed + 1 (they arrive in any order).
    assert None not in seeds
    seeds = sorted(seeds)
    assert seeds[1] == seeds[0] + 1 and seeds[3] == seeds[2] + 1 and seeds[2] > seeds[1]


def test_every_call_failing_is_an_error_with_the_first_reason(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """Every call refused (a 400 each): "0 pairs"."""
    pairs = tmp_path / "pairs.jsonl"
    faults = [Fault.client_error(400, "injected bad request")] * 4
    with AnthropicServer(rhyming, api_key=TEST_KEY, faults=faults) as server:
        model_file(user_model, server)
        code, output = build(pairs)
    assert code == 1 and not pairs.exists()
    assert (
        "error: last_line: all 4 calls to liner failed, no line was written; first error: "
        "anthropic: HTTP 400: " in " ".join(output.split())
    )


def test_some_calls_failing_are_counted_under_the_pairs(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """A call that fails for good (a 400, or a 503 past the retries) is said under the pairs."""
    pairs = tmp_path / "pairs.jsonl"
    fault = Fault.client_error(400, "injected bad request")
    with AnthropicServer(rhyming, api_key=TEST_KEY, faults=[fault]) as server:
        model_file(user_model, server)
        code, output = build(pairs)
    assert code == 1 and pairs.exists()  # the pairs made are kept
    assert (
        "last_line: 1 of 4 calls to liner failed, their poems got fewer candidate lines; first "
        "error: anthropic: HTTP 400: " in output
    )
    assert "injected bad request" in output


def test_a_build_that_keeps_no_line_says_why_and_writes_no_file(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """No generated line rhymed: the build wrote an empty pairs file, said "0 pairs" and exited
    0 (and `probe run` then refused the file). An earlier file there is left as it was."""
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("earlier pairs\n", encoding="utf-8")
    with OpenAIServer(
        lambda call: "A line that does not rhyme at all.", api_key=TEST_KEY
    ) as server:
        model_file(user_model, server)
        code, output = build(pairs, "--no-progress")
        assert len(server.generation_requests) == 4
        assert code == 1 and pairs.read_text(encoding="utf-8") == "earlier pairs\n"
        assert (
            f"error: no pairs from 2 poems of lear-limericks; no pairs file written ({pairs}, "
            "already there, is left as it was)\nlast_line: 4 candidate lines for 2 poems, "
            "none kept: 4 not rhyming (more --attempts may find one)\n"
        ) in output
        # With pairs of another task the file is written and the reason said under the counts.
        code, output = build(pairs, "--no-progress", tasks="rhyme_line_swap,last_line")
    assert code == 0, output
    assert "  last_line              0\nlast_line: 4 candidate lines for 2 poems," in output
    assert pairs.read_text(encoding="utf-8").count("rhyme_line_swap") == 2


# -- through the batch runner: cache, resume, retries ---------------------------------------------
@pytest.mark.parametrize("server_class", [OpenAIServer, AnthropicServer])
def test_a_second_build_asks_nothing_and_writes_the_same_file(
    tmp_path: Path, user_model: Callable[..., Path], server_class: type[LocalServer]
) -> None:
    """Every build asked the API for every line again (and paid for it): the answers are now
    kept in the run store, and the second build writes the same file from them alone."""
    first, second, other = (tmp_path / f"{name}.jsonl" for name in ("first", "second", "other"))
    with server_class(rhyming, api_key=TEST_KEY) as server:
        model_file(user_model, server)
        code, output = build(first, "--no-progress")
        assert code == 0, output
        assert len(server.generation_requests) == 4
        assert "4 lines from liner: 0 already in" in output and "4 asked now" in output
        code, output = build(second, "--no-progress")
        assert code == 0, output
        assert len(server.generation_requests) == 4  # no request at all
        assert "4 lines from liner: 4 already in" in output and "0 asked now" in output
        # Another seed samples anew, also from an API that takes no seed (Anthropic's).
        code, output = build(other, "--no-progress", "--seed", "1")
        assert code == 0, output
        assert len(server.generation_requests) == 8
    assert second.read_bytes() == first.read_bytes()
    assert len(first.read_text(encoding="utf-8").splitlines()) == 2


def test_a_transient_error_is_retried(tmp_path: Path, user_model: Callable[..., Path]) -> None:
    """A 503 lost its sample (one candidate line fewer, exit status 1); now it is asked again."""
    pairs = tmp_path / "pairs.jsonl"
    with OpenAIServer(rhyming, api_key=TEST_KEY, faults=[Fault.server_error(503)]) as server:
        model_file(user_model, server)
        code, output = build(pairs, "--no-progress")
        assert len(server.generation_requests) == 5 and len(server.successful_generations) == 4
    assert code == 0, output
    assert "failed" not in output and len(pairs.read_text(encoding="utf-8").splitlines()) == 2
    with RunStore(tmp_path / "run") as store:
        assert store.count("calls", "outcome = 'retry' AND http_status = 503") == 1
        assert store.count("probe_lines", "status = 'ok'") == 4


def ok_lines(run: Path) -> int:
    if not (run / "poemetric.sqlite").exists():
        return 0
    with RunStore(run) as store:
        return store.count("probe_lines", "status = 'ok'")


def test_an_interrupted_build_resumes_paying_for_each_line_once(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """SIGTERM (or Ctrl-C) lost every answer of the build, and the next build paid for all of
    them again: now the answers in flight arrive, every one is stored, and the resume asks only
    for the lines not answered yet."""
    run, pairs, log = tmp_path / "run", tmp_path / "pairs.jsonl", tmp_path / "job.log"
    responder = HeldAfter(2, rhyming)
    args = [sys.executable, "-m", "poemetric", "probe", "build", "lear-limericks",
            "-o", str(pairs), "--tasks", "last_line", "--limit", "3", "--generator", "liner",
            "--attempts", "2", "--run", str(run)]  # fmt: skip
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        folder = model_file(
            user_model, server, "limits:", "  max_concurrency: 2", "  timeout_s: 120"
        )
        env = {**os.environ, "POEMETRIC_GENERATORS_DIR": str(folder)}
        # Two lines stored, two more requests held at the server (max_concurrency 2).
        output = sigterm_when(
            lambda: ok_lines(run) == 2 and len(server.generation_requests) == 4,
            args, env, log, responder,
        )  # fmt: skip
        assert "Interrupted by SIGTERM" in output and "Resume with:" in output
        assert not pairs.exists()  # written by the build that has every line
        # The two answers in flight were let arrive and stored with the first two.
        assert ok_lines(run) == len(server.successful_generations) == 4

        resumed = subprocess.run(
            args, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert "6 lines from liner: 4 already in" in resumed.stdout
        assert len(server.successful_generations) == 6 and server.duplicate_successes() == []
        assert len(server.generation_requests) == 6
    assert len(pairs.read_text(encoding="utf-8").splitlines()) == 3


def sigterm_when(
    ready: Callable[[], bool], args: list[str], env: dict[str, str], log: Path, held: HeldAfter
) -> str:
    """Start the command in its own process group (as a job step is), SIGTERM it once `ready`,
    release the answers held at the server once it says it waits for them, and return its
    output; it must exit with 143."""
    with log.open("w") as handle:
        process = subprocess.Popen(
            args, env=env, cwd=log.parent, stdin=subprocess.DEVNULL, stdout=handle,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
    try:
        wait_for(ready, process)
        os.killpg(process.pid, signal.SIGTERM)
        wait_for(lambda: "SIGTERM: no new request starts" in log.read_text(), process)
        held.release.set()
        process.wait(timeout=60)
    finally:
        held.release.set()
        if process.poll() is None:
            process.kill()
    output = log.read_text()
    assert process.returncode == 143, output
    return output


def _score(tmp_path: Path, pairs: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        app,
        ["probe", "run", str(pairs), "--scorer", "chat:liner", "--no-progress",
         "--run", str(tmp_path / "scores-run"), "-o", str(tmp_path / "scores.jsonl")],
        env={"COLUMNS": "300"},
    )  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


def build_offline(pairs: Path, poems: int = 3) -> str:
    """`probe build` of rhyme-word-swap pairs (no model) from the first `poems` Lear poems into
    `pairs`; its output."""
    built = CliRunner().invoke(
        app,
        ["probe", "build", "lear-limericks", "--tasks", "rhyme_word_swap", "--limit", str(poems),
         "-o", str(pairs)],
    )  # fmt: skip
    assert built.exit_code == 0, built.output
    return built.output


@pytest.fixture
def offline_pairs(tmp_path: Path) -> Path:
    pairs = tmp_path / "offline-pairs.jsonl"
    build_offline(pairs)
    return pairs


def test_probe_run_chat_with_a_refused_key_is_an_error_not_a_table_of_unanswered(
    tmp_path: Path, user_model: Callable[..., Path], offline_pairs: Path
) -> None:
    """A refused key (or no server) printed a table of 'unanswered' pairs with exit 0 and no
    word of why."""
    with OpenAIServer(lambda call: "1", api_key="the-right-key") as server:
        model_file(user_model, server)
        code, out, err = _score(tmp_path, offline_pairs)
    assert code == 2, out + err
    assert "authentication failed (HTTP 401)" in err and TEST_KEY_ENV in err
    assert not (tmp_path / "scores.jsonl").exists()


def test_probe_run_chat_says_how_many_pairs_went_unanswered(
    tmp_path: Path, user_model: Callable[..., Path], offline_pairs: Path
) -> None:
    with OpenAIServer(lambda call: "Hard to say.", api_key=TEST_KEY) as server:
        model_file(user_model, server)
        code, out, err = _score(tmp_path, offline_pairs)
    total = len((tmp_path / "scores.jsonl").read_text().splitlines())
    assert code == 1, out + err
    assert f"chat:liner: {total} of {total} pairs unanswered" in err
    assert "first error:" in err and "run again to retry them" in err


def test_probe_run_chat_stopped_by_sigterm_says_how_to_resume(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """A stop of `probe run --scorer chat:` exited 143 with no word of where the answers are or
    how to go on (`probe build` and `generate` say both)."""
    run, log, offline_pairs = tmp_path / "scores-run", tmp_path / "job.log", tmp_path / "p.jsonl"
    build_offline(offline_pairs, poems=12)
    assert len(offline_pairs.read_text().splitlines()) > 4
    responder = HeldAfter(2, "1")
    args = [sys.executable, "-m", "poemetric", "probe", "run", str(offline_pairs),
            "--scorer", "chat:liner", "--no-progress", "--run", str(run),
            "-o", str(tmp_path / "scores.jsonl")]  # fmt: skip
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        folder = model_file(
            user_model, server, "limits:", "  max_concurrency: 2", "  timeout_s: 120"
        )
        env = {**os.environ, "POEMETRIC_GENERATORS_DIR": str(folder)}
        output = sigterm_when(
            lambda: len(server.generation_requests) == 4, args, env, log, responder
        )
    assert "Interrupted by SIGTERM" in output and "Resume with:" in output
    assert f"--run {run}" in output and not (tmp_path / "scores.jsonl").exists()


def test_summary_lines_keep_long_paths_whole(tmp_path: Path) -> None:
    """At 80 columns the summary lines were wrapped inside their paths ('first.j' / 'sonl'), and
    a `[` in a folder name would have been read as console markup."""
    deep = tmp_path / ("a-rather-long-folder-name-for-the-probe-pairs-of-this-study [v2]" * 2)
    deep.mkdir()
    pairs = deep / "pairs.jsonl"
    assert f"2 pairs from 3 poems of lear-limericks -> {pairs}\n" in build_offline(pairs)


def test_one_poem_is_counted_in_the_singular(tmp_path: Path) -> None:
    """The summary said '1 poems'."""
    output = build_offline(tmp_path / "pairs.jsonl", poems=1)
    assert " from 1 poem of lear-limericks -> " in output and "1 poems" not in output


def test_a_model_without_its_key_leaves_no_empty_run_store(
    tmp_path: Path,
    user_model: Callable[..., Path],
    offline_pairs: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`probe build` / `probe run` with an API model whose key is not set made `--run`'s store
    before saying so: an empty run store left behind by a command that did nothing."""
    monkeypatch.delenv(TEST_KEY_ENV)
    with OpenAIServer(rhyming, api_key=TEST_KEY) as server:
        model_file(user_model, server)
        code, output = build(tmp_path / "pairs.jsonl")
        assert code == 2 and f"set the environment variable {TEST_KEY_ENV}" in output
        assert not (tmp_path / "run").exists()
        code, _, err = _score(tmp_path, offline_pairs)
        assert code == 2 and f"set the environment variable {TEST_KEY_ENV}" in err
        assert not (tmp_path / "scores-run").exists()
        assert server.generation_requests == []


def test_an_unanswered_pair_counts_in_the_accuracy_as_not_correct(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """The tables divided by the answered pairs only while n counted them all: 2 correct and 2
    unanswered of n = 4 read 1.000. An unanswered pair counts in n, never as correct, as a tie."""
    pairs = tmp_path / "pairs.jsonl"
    build_offline(pairs, poems=12)

    def some_unanswered(call: ChatCall) -> str:
        return "Hard to say." if len(call.messages[-1]["content"]) % 3 == 0 else "1"

    with OpenAIServer(some_unanswered, api_key=TEST_KEY) as server:
        model_file(user_model, server)
        result = CliRunner().invoke(
            app,
            ["probe", "run", str(pairs), "--scorer", "chat:liner", "--no-progress",
             "--run", str(tmp_path / "run"), "-o", str(tmp_path / "s.jsonl"),
             "--tables", str(tmp_path / "tables")],
        )  # fmt: skip
    assert result.exit_code == 1, result.output  # some pairs unanswered: said, exit 1
    scores = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    verdicts = [score["verdict_sum"] for score in scores]
    assert "unanswered" in verdicts and "correct" in verdicts
    table = pd.read_csv(tmp_path / "tables" / "probe_accuracy.csv").iloc[0]
    assert table["n"] == len(scores) and table["unanswered"] == verdicts.count("unanswered")
    assert table["acc_sum"] == pytest.approx(verdicts.count("correct") / len(scores))
