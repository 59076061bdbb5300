"""`--refresh-failed-parses` buys a new answer in place of one the row had already paid for: the
stored cost keeps both, so the report's total (the sum of the rows) is what the runs spent.
Through the real `openai` SDK and the local server."""

from __future__ import annotations

import dataclasses
import json
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
from poemetric.judge.recognise import run_recognition
from poemetric.judge.stage import run_judging
from poemetric.testing.servers import ChatCall, OpenAIServer

GARBLED = "I would rate this poem highly overall, with many more words than before."
REFRESH = dataclasses.replace(FAST, refresh_failed_parses=True)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class Answers:
    """`bad` for the first `calls` requests, then `good`."""

    def __init__(self, calls: int, bad: str, good: str) -> None:
        self.calls, self.bad, self.good = calls, bad, good
        self.lock = threading.Lock()

    def __call__(self, call: ChatCall) -> str:
        with self.lock:
            self.calls -= 1
            return self.bad if self.calls >= 0 else self.good


def test_a_refreshed_reask_keeps_the_cost_of_the_answer_it_replaced(tmp_path: Path) -> None:
    """An answer and its re-ask both unusable (2 calls paid), then the re-ask bought again (1
    more): the row recorded the first answer and the new re-ask only, so the report's total
    cost left out a call that was paid for."""
    use_scripted()
    store = prepared_store(tmp_path, poems=1)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    with OpenAIServer(Answers(2, GARBLED, VALID_JUDGE_ANSWER), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        first = run_judging(store, judge, options=FAST, authors=["machine"])  # type: ignore[arg-type]
        (before,) = json.loads(store.query("SELECT turns FROM judgments")[0]["turns"])
        again = run_judging(store, judge, options=REFRESH, authors=["machine"])  # type: ignore[arg-type]
        assert len(server.generation_requests) == 3
        paid = first.cost_usd + again.cost_usd
        assert first.cost_usd > 0 and again.cost_usd > 0
        (row,) = store.query("SELECT * FROM judgments")  # type: ignore[attr-defined]
        assert row["status"] == "ok" and row["reasks"] == 1
        assert row["cost_usd"] == pytest.approx(paid)  # was the first answer + the new re-ask
        (turn,) = json.loads(row["turns"])
        assert turn["cost_usd"] == before["cost_usd"]  # the first answer: not bought again
        # A later run that re-reads every turn from the cache keeps what the row records.
        with store.transaction() as db:  # type: ignore[attr-defined]
            db.execute("UPDATE judgments SET status = 'error', error = 'unparsable answer: x'")
        run_judging(store, judge, options=FAST, authors=["machine"])  # type: ignore[arg-type]
        assert len(server.generation_requests) == 3
    (row,) = store.query("SELECT * FROM judgments")  # type: ignore[attr-defined]
    assert row["status"] == "ok" and row["cost_usd"] == pytest.approx(paid)


def test_a_refreshed_recognition_keeps_the_cost_of_the_answer_it_replaced(
    tmp_path: Path,
) -> None:
    """A single-turn stage: the new answer replaced the row, and its cost the old one's."""
    store = prepared_store(tmp_path, poems=1)
    good = json.dumps({"title": "", "author": ""})
    with OpenAIServer(Answers(1, GARBLED, good), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="judge-r")
        first = run_recognition(store, [judge])
        again = run_recognition(store, [judge], options=REFRESH)
        assert len(server.generation_requests) == 2
    assert first.cost_usd > 0 and again.cost_usd > 0
    (row,) = store.query("SELECT * FROM recognitions")
    assert row["status"] == "ok"
    assert row["cost_usd"] == pytest.approx(first.cost_usd + again.cost_usd)
