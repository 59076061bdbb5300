"""`--max-cost` with concurrent calls, through the real `openai` SDK and the local server."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.runner.cost import TYPICAL_OUTPUT_TOKENS
from poemetric.testing.servers import ChatCall, OpenAIServer, Reply

#: openai_spec's prices: 1 $ per million input tokens, 2 $ per million output tokens.
ESTIMATE_USD = TYPICAL_OUTPUT_TOKENS * 2.0 / 1e6  # a call's output estimate, before its input


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_calls_wait_for_the_reservations_in_flight_instead_of_stopping(tmp_path: Path) -> None:
    # Room for two estimates at a time: with 4 calls allowed in flight, the third used to be
    # refused at once and the whole command stopped "at the budget" having spent almost nothing.
    cap = 2.5 * ESTIMATE_USD
    store = prepared_store(tmp_path, poems=6)
    with OpenAIServer(latency_s=0.1, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=4)
        report = run_generation(store, [spec], options=dataclasses.replace(FAST, max_cost_usd=cap))
    model = report.models[0]
    assert (model.ok, model.skipped_budget, report.stopped_by_budget) == (6, 0, False)
    assert len(server.successful_generations) == 6
    assert 0 < report.cost_usd <= cap


def test_the_cap_still_stops_calls_once_spent_plus_an_estimate_exceeds_it(tmp_path: Path) -> None:
    def long_answer(call: ChatCall) -> Reply:
        return Reply(text="word " * 500)  # 500 output tokens: 0.001 $ a call

    cap = 2.5 * ESTIMATE_USD
    store = prepared_store(tmp_path, poems=6)
    with OpenAIServer(long_answer, latency_s=0.1, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=4)
        report = run_generation(store, [spec], options=dataclasses.replace(FAST, max_cost_usd=cap))
    model = report.models[0]
    assert model.ok == len(server.successful_generations) >= 2
    assert model.skipped_budget == 6 - model.ok > 0 and report.stopped_by_budget
    assert report.cost_usd <= cap


class NoUsageServer(OpenAIServer):
    """An OpenAI-compatible server (a proxy) whose answers carry no `usage` field."""

    def render_completion(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        rendered = super().render_completion(call, reply)
        del rendered["usage"]
        return rendered


def test_answers_without_usage_count_their_estimate_against_the_cap(tmp_path: Path) -> None:
    # An answer without `usage` cost 0 $ to the budget, so --max-cost never stopped anything.
    cap = 2.5 * ESTIMATE_USD
    store = prepared_store(tmp_path, poems=6)
    with NoUsageServer(latency_s=0.0, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=1)
        report = run_generation(store, [spec], options=dataclasses.replace(FAST, max_cost_usd=cap))
    model = report.models[0]
    assert model.ok == len(server.successful_generations) == 2
    assert model.skipped_budget == 4 and report.stopped_by_budget
