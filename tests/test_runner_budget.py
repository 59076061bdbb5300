"""`--max-cost` with concurrent calls, through the real `openai` SDK and the local server."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers.base import ModelSpec
from poemetric.runner.cost import TYPICAL_OUTPUT_TOKENS, Budget
from poemetric.runner.report import StageReport
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


# -- a cap reached by one model's calls leaves the cheaper calls running ------------------------
def full_answer(call: ChatCall) -> Reply:
    return Reply(text="word " * TYPICAL_OUTPUT_TOKENS)  # as long as the estimate: cost = estimate


def priced(server: OpenAIServer, name: str, output_per_mtok: float) -> ModelSpec:
    """A model of the local server that costs only its output tokens, at `output_per_mtok`."""
    data = openai_spec(server.base_url, name=name, max_concurrency=4).model_dump()
    pricing = {"input_per_mtok": 0.0, "output_per_mtok": output_per_mtok}
    return ModelSpec.model_validate({**data, "pricing": pricing})


def printed(report: StageReport) -> str:
    console = Console(record=True, width=400)
    report.render(console)
    return console.export_text()


@pytest.mark.parametrize("batch", [False, True], ids=["concurrent", "batch-api"])
def test_a_model_cut_at_the_cap_leaves_a_cheaper_model_running(tmp_path: Path, batch: bool) -> None:
    # o3 next to gpt-4o-mini: once the expensive model's next call no longer fitted, the budget
    # latched as exhausted and every job of every model was skipped, the cheap one's included.
    options = dataclasses.replace(FAST, batch=batch, batch_poll_s=0.01, batch_poll_max_s=0.01)
    store = prepared_store(tmp_path, poems=6)
    with OpenAIServer(full_answer, latency_s=0.05, api_key=TEST_KEY) as server:
        expensive = priced(server, "expensive", 100.0)  # 0.08 $ a call (0.04 $ in a batch)
        cheap = priced(server, "cheap", 1.0)  # 0.0008 $ a call
        call_usd = expensive.pricing.cost(0, TYPICAL_OUTPUT_TOKENS, batch=batch)
        cap = 2.5 * call_usd  # two expensive calls, and room left for every cheap one
        report = run_generation(
            store, [expensive, cheap], options=dataclasses.replace(options, max_cost_usd=cap)
        )
    cut, ran = report.models
    assert (cut.ok, cut.skipped_budget) == (2, 4)
    assert (ran.ok, ran.skipped_budget, ran.errors) == (6, 0, 0)
    assert report.cost_usd == pytest.approx(2 * call_usd + 6 * call_usd / 100)
    assert report.cost_usd <= cap
    assert report.stopped_by_budget and report.incomplete  # exit status 1
    assert "skipped by --max-cost (expensive 4)" in report.summary_line()
    assert "Stopped at the --max-cost budget (jobs skipped per model: expensive 4)" in printed(
        report
    )


def test_budget_refuses_each_call_on_its_own_estimate_first_come_first_served() -> None:
    async def scenario() -> list[str]:
        budget = Budget(limit_usd=1.0)
        served: list[str] = []

        async def call(name: str, usd: float) -> None:
            served.append(f"{name}:{'ok' if await budget.reserve(usd) else 'refused'}")
            assert budget.spent_usd + budget.reserved_usd <= 1.0

        assert await budget.reserve(0.6)  # in flight
        waiting = [
            asyncio.create_task(call("big", 0.5)),  # fits only once the 0.6 settles low
            asyncio.create_task(call("small", 0.1)),  # fits now, but queues behind "big"
        ]
        await asyncio.sleep(0)  # both are waiting now
        assert served == []  # the cheap call does not overtake the expensive one
        budget.settle(0.6, 0.3)
        await asyncio.gather(*waiting)
        assert budget.reserved_usd == pytest.approx(0.6)
        # Spent 0.3 with 0.6 reserved: a 0.8 call can never fit, and is refused at once, while a
        # 0.05 call still runs: one refusal no longer stops every later call.
        assert not await budget.reserve(0.8) and await budget.reserve(0.05)
        never = asyncio.create_task(call("never", 0.6))  # may fit, if the 0.65 settles low
        tiny = asyncio.create_task(call("tiny", 0.01))
        await asyncio.sleep(0)
        assert served == ["big:ok", "small:ok"]
        budget.settle(0.65, 0.65)  # it did not: spent 0.95, nothing in flight
        await asyncio.gather(never, tiny)  # not stuck: refused once nothing is in flight
        assert budget.refused == 2 and budget.cut
        return served

    assert asyncio.run(scenario()) == [
        "big:ok", "small:ok", "never:refused", "tiny:ok"
    ]  # fmt: skip
