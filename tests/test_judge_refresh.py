"""`--refresh-failed-parses` against the local OpenAI server, with the judges' default re-ask."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    openai_spec,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.testing.servers import ChatCall, OpenAIServer

GARBLED = "I would rate this poem highly overall."


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class Garbled:
    """A garbled answer to the first `calls` requests (answers and re-asks alike), then valid."""

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.lock = threading.Lock()

    def __call__(self, call: ChatCall) -> str:
        with self.lock:
            self.calls -= 1
            return GARBLED if self.calls >= 0 else VALID_JUDGE_ANSWER


def test_refresh_buys_a_new_answer_after_a_reask_that_failed_too(tmp_path: Path) -> None:
    """With the default `reask: 1`, an answer and its re-ask both unusable: the next run with
    --refresh-failed-parses replayed both from the cache and called nothing (the refresh looked
    at the first turn only, which has a re-ask to follow), so the option could never pay for
    a new answer. It buys a new answer to the turn that ended the conversation, the re-ask, and
    the plan counts that call."""
    use_scripted()
    store = prepared_store(tmp_path, poems=1)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    with OpenAIServer(Garbled(calls=2), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        assert judge.reask == 1
        first = run_judging(store, judge, options=FAST, authors=["machine"])  # type: ignore[arg-type]
        assert (first.models[0].errors, first.models[0].reasked) == (1, 1)
        assert len(server.generation_requests) == 2

        refresh = dataclasses.replace(FAST, refresh_failed_parses=True)
        plan = run_judging(
            store, judge, options=dataclasses.replace(refresh, dry_run=True), authors=["machine"]
        )  # type: ignore[arg-type]
        assert plan.models[0].from_cache_to_call == 1 and plan.models[0].estimated_cost_usd > 0
        assert len(server.generation_requests) == 2  # the plan called nothing

        again = run_judging(store, judge, options=refresh, authors=["machine"])  # type: ignore[arg-type]
        assert again.models[0].ok == 1 and again.errors == 0
        assert len(server.generation_requests) == 3
        # The new call is the re-ask (the first answer, then the reason), not a fresh conversation.
        assert len(server.generation_requests[-1].body["messages"]) == 3
    (row,) = store.query("SELECT * FROM judgments")  # type: ignore[attr-defined]
    assert row["status"] == "ok" and row["reasks"] == 1 and row["form"] == 4
    # Nothing left to refresh: a further run calls nothing.
    with OpenAIServer(Garbled(calls=0), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        run_judging(store, judge, options=refresh, authors=["machine"])  # type: ignore[arg-type]
        assert server.generation_requests == []
