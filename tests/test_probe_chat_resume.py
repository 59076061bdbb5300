"""`probe run --scorer chat:` resumes without paying twice: a trial with `--limit`, then the full
run, asks each pair once and scores as one full run would; a model file whose `base_url` is
spelled another way (a trailing slash) still finds the answers cached under the first spelling.
Both through the CLI against the local OpenAI server."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import TEST_KEY, TEST_KEY_ENV
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.pairs import Pair, write_jsonl
from poemetric.testing.servers import ChatCall, OpenAIServer

POEM = "There was an Old Man with a beard,\nWho said, 'It is just as I feared!'"
_POEMS = re.compile(r"Poem 1:\n(.*?)\n\nPoem 2:\n(.*?)\n\nWhich poem", re.S)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def write_pairs(path: Path, n: int = 10) -> list[Pair]:
    pairs = [
        Pair(
            id=f"p{k}",
            poem_id=f"poem{k}",
            task="synonym",
            original=f"{POEM} {k}",
            corrupted=f"{POEM} {k}".replace("beard", "hair"),
        )
        for k in range(n)
    ]
    write_jsonl(pairs, path)
    return pairs


def model_file(user_model: Callable[..., Path], base_url: str) -> None:
    text = (
        f"name: chooser\nprovider: openai-compatible\nmodel: chooser-1\nbase_url: {base_url}\n"
        f"api_key_env: {TEST_KEY_ENV}\n"
    )
    user_model("generators", "chooser", text)


def score(pairs: Path, run: Path, output: Path, *extra: str) -> dict[str, dict[str, Any]]:
    """`probe run --scorer chat:chooser`; its scores by pair id."""
    result = CliRunner().invoke(
        app,
        ["probe", "run", str(pairs), "--scorer", "chat:chooser", "--no-progress",
         "--run", str(run), "-o", str(output), *extra],
        env={"COLUMNS": "300"},
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output  # 1: some pairs unanswered (said)
    records = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    return {r["pair_id"]: r for r in records}


def asked(server: OpenAIServer, pairs: list[Pair]) -> Counter[str]:
    """How many times the server was asked about each pair."""
    by_texts = {frozenset((p.original, p.corrupted)): p.id for p in pairs}
    counts: Counter[str] = Counter()
    for request in server.generation_requests:
        found = _POEMS.search(request.body["messages"][0]["content"])
        assert found is not None
        counts[by_texts[frozenset(found.groups())]] += 1
    return counts


def test_a_limited_trial_then_the_full_run_asks_each_pair_once(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """The original's position was a balanced shuffle of the pairs being scored: `--limit 4`
    showed some of the first four pairs the other way round than the full run did, so the full
    run missed their cached answers (an unparsable one was paid for again) and the scores
    differed from one full run's."""
    pairs_file = tmp_path / "pairs.jsonl"
    pairs = write_pairs(pairs_file)
    vague = {pairs[1].original, pairs[2].original}

    def answer(call: ChatCall) -> str:  # biased to "1", so a moved pair changes its verdict
        return "Hard to say." if any(text in call.prompt for text in vague) else "1"

    with OpenAIServer(answer, api_key=TEST_KEY) as server:
        model_file(user_model, server.base_url)
        run = tmp_path / "run"
        trial = score(pairs_file, run, tmp_path / "trial.jsonl", "--limit", "4")
        assert set(trial) == {"p0", "p1", "p2", "p3"}
        assert asked(server, pairs) == Counter({f"p{k}": 1 for k in range(4)})
        resumed = score(pairs_file, run, tmp_path / "full.jsonl")
        assert asked(server, pairs) == Counter({p.id: 1 for p in pairs})  # none asked twice
        server.clear_log()
        once = score(pairs_file, tmp_path / "fresh-run", tmp_path / "once.jsonl")
        assert len(server.generation_requests) == len(pairs)
    assert resumed == once
    assert {r["details"]["original_position"] for r in once.values()} == {1, 2}
    assert [once[p.id]["verdict_sum"] for p in pairs[1:3]] == ["unanswered"] * 2


def test_a_trailing_slash_on_base_url_still_finds_the_cached_answers(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """`base_url` went into the cache key as written: `.../v1` and `.../v1/` (one server) had
    different keys, so unparsable answers, re-parsed from the cache for free, were paid for
    again after the model file gained a slash."""
    pairs_file = tmp_path / "pairs.jsonl"
    pairs = write_pairs(pairs_file, n=4)
    with OpenAIServer(lambda call: "Hard to say.", api_key=TEST_KEY) as server:
        model_file(user_model, server.base_url)
        run = tmp_path / "run"
        first = score(pairs_file, run, tmp_path / "first.jsonl")
        assert len(server.generation_requests) == len(pairs)
        server.clear_log()
        model_file(user_model, server.base_url + "/")
        second = score(pairs_file, run, tmp_path / "second.jsonl")
        assert len(server.generation_requests) == 0
    assert second == first


def test_pairs_stored_in_other_positions_are_asked_as_they_were(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """A pair already in the store (here: asked under another `--seed`; so are stores made when
    positions were a shuffle of the scored pairs) keeps its position, so its cached answer is
    re-parsed for free instead of being paid for again in the other order."""
    pairs_file = tmp_path / "pairs.jsonl"
    pairs = write_pairs(pairs_file)
    with OpenAIServer(lambda call: "Hard to say.", api_key=TEST_KEY) as server:
        model_file(user_model, server.base_url)
        run = tmp_path / "run"
        first = score(pairs_file, run, tmp_path / "first.jsonl", "--seed", "0")
        assert len(server.generation_requests) == len(pairs)
        server.clear_log()
        second = score(pairs_file, run, tmp_path / "second.jsonl", "--seed", "1")
        assert len(server.generation_requests) == 0
    assert second == first


def test_chat_progress_goes_to_stderr(tmp_path: Path, user_model: Callable[..., Path]) -> None:
    """`probe run --scorer chat:` printed its progress lines and the bar's last state on stdout,
    into the tables of `probe run ... > results.md`; they go to stderr, as hf:'s do."""
    pairs_file = tmp_path / "pairs.jsonl"
    write_pairs(pairs_file, n=6)

    def answer(call: ChatCall) -> str:
        time.sleep(0.02)  # slow enough for a progress line every 0.001 s
        return "1"

    with OpenAIServer(answer, api_key=TEST_KEY) as server:
        model_file(user_model, server.base_url)
        args = ["probe", "run", str(pairs_file), "--scorer", "chat:chooser", "--run",
                str(tmp_path / "run"), "-o", str(tmp_path / "scores.jsonl")]  # fmt: skip
        env = {"COLUMNS": "300", "POEMETRIC_PROGRESS_EVERY": "0.001"}
        result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    assert re.search(r"^\[\d\d:\d\d:\d\d\] chooser: \d/6", result.stderr, re.M), result.stderr
    assert "chooser:" not in result.stdout and "tok" not in result.stdout, result.stdout
    assert result.stdout.startswith("6 pairs scored by chat:chooser"), result.stdout
