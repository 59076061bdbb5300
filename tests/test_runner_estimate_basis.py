"""Call estimates from the answers a model already gave in a stage, through the local server.

A judge's answer is a short JSON object (about 30 tokens here), while the estimate assumed 800
output tokens per call: `--dry-run` overstated a judge's cost about 25 times, and `--max-cost`
skipped calls near the cap that would have fitted.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from rich.console import Console
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
from poemetric.judge.stage import JudgePlan, run_judging
from poemetric.providers.base import ModelSpec
from poemetric.runner.cost import TYPICAL_OUTPUT_TOKENS
from poemetric.runner.estimate_basis import RESERVE_HEADROOM, observe
from poemetric.runner.report import StageReport
from poemetric.store.db import RunStore
from poemetric.testing.servers import ChatCall, OpenAIServer

POEMS = 12
#: Output only, 1 $ per million tokens: a call's cost is its output tokens / 1e6.
OUTPUT_PRICE = {"input_per_mtok": 0.0, "output_per_mtok": 1.0}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def judge_answer(call: ChatCall) -> str:
    return f"```json\n{VALID_JUDGE_ANSWER}\n```"


def generated_run(tmp_path: Path) -> RunStore:
    """A run whose `machine` model wrote a poem for each of its POEMS prompts."""
    use_scripted()
    store = prepared_store(tmp_path, poems=POEMS)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    return store


def judge_of(server: OpenAIServer, **limits: int) -> ModelSpec:
    data = openai_spec(server.base_url, name="test-judge", **limits).model_dump()
    return ModelSpec.model_validate({**data, "pricing": OUTPUT_PRICE})


def judge(store: RunStore, spec: ModelSpec, samples: int, **options: object) -> StageReport:
    return run_judging(
        store,
        spec,
        options=dataclasses.replace(FAST, **options),  # type: ignore[arg-type]
        authors=["machine"],
        samples=samples,
    )


def printed(report: StageReport) -> str:
    console = Console(record=True, width=300)
    report.render(console)
    return " ".join(console.export_text().split())


def stored_output_tokens(store: RunStore) -> list[int]:
    return [int(r[0]) for r in store.query("SELECT output_tokens FROM judgments")]


def test_a_dry_run_estimates_a_judge_from_its_answers_so_far(tmp_path: Path) -> None:
    store = generated_run(tmp_path)
    with OpenAIServer(judge_answer, api_key=TEST_KEY) as server:
        spec = judge_of(server)
        fresh = judge(store, spec, samples=1, dry_run=True).models[0]
        assert fresh.pending == POEMS
        assert fresh.estimated_output_tokens == POEMS * TYPICAL_OUTPUT_TOKENS
        assert fresh.estimate_basis == f"default {TYPICAL_OUTPUT_TOKENS} tokens"

        assert judge(store, spec, samples=1).models[0].ok == POEMS
        answer_tokens = max(stored_output_tokens(store))
        assert answer_tokens < TYPICAL_OUTPUT_TOKENS / 10  # a short JSON answer

        plan = judge(store, spec, samples=2, dry_run=True)  # a second judgment of each poem
        planned = plan.models[0]
        assert planned.pending == POEMS
        assert planned.estimated_output_tokens == POEMS * answer_tokens
        assert planned.estimated_cost_usd == pytest.approx(POEMS * answer_tokens / 1e6)
        assert planned.estimate_basis == f"{answer_tokens} tokens, from {POEMS} answers so far"
        assert (
            f"Output tokens estimated per call: test-judge {answer_tokens} tokens, from 12"
            in printed(plan)
        )
        assert len(server.generation_requests) == POEMS  # the plans called nothing


def test_a_plan_for_other_poems_estimates_from_the_judges_answers_so_far(tmp_path: Path) -> None:
    """`--authors` and `--limit` kept the answers to the poems they leave out from the estimate:
    a judge with 12 short answers in the run was planned at the default 800 tokens a call for
    the human poems (about 25 times their cost; `--max-cost` reserved as much)."""
    store = generated_run(tmp_path)
    with OpenAIServer(judge_answer, api_key=TEST_KEY) as server:
        spec = judge_of(server)
        assert judge(store, spec, samples=1).models[0].ok == POEMS  # the machine's poems
        answer_tokens = max(stored_output_tokens(store))
        for authors, limit in ((["human"], None), (["human"], 2), (None, 3)):
            plan = run_judging(
                store,
                spec,
                options=dataclasses.replace(FAST, dry_run=True, limit=limit),
                authors=authors,
            )
            planned = plan.models[0]
            assert planned.pending == (limit or POEMS), (authors, limit)
            assert planned.estimate_basis == f"{answer_tokens} tokens, from {POEMS} answers so far"
            assert planned.estimated_output_tokens == planned.pending * answer_tokens
        assert len(server.generation_requests) == POEMS  # the plans called nothing
    # The plans stored nothing for the poems they left out.
    assert store.count("judgments") == POEMS


def test_a_fresh_run_keeps_the_default_estimate(tmp_path: Path) -> None:
    store = generated_run(tmp_path)
    with OpenAIServer(judge_answer, api_key=TEST_KEY) as server:
        plan = judge(store, judge_of(server), samples=2, dry_run=True)
    planned = plan.models[0]
    assert planned.estimated_output_tokens == 2 * POEMS * TYPICAL_OUTPUT_TOKENS
    assert "Output tokens estimated per call: test-judge default 800 tokens." in printed(plan)


@pytest.mark.parametrize("batch", [False, True], ids=["concurrent", "batch-api"])
def test_max_cost_near_the_cap_runs_the_calls_that_fit_and_never_overspends(
    tmp_path: Path, batch: bool
) -> None:
    # Room for every second judgment at its real cost, but not for the 800-token default of the
    # last one: it was skipped (exit status 1) though it would have fitted.
    store = generated_run(tmp_path)
    with OpenAIServer(judge_answer, latency_s=0.02, api_key=TEST_KEY) as server:
        spec = judge_of(server, max_concurrency=4)
        assert judge(store, spec, samples=1).models[0].ok == POEMS
        answer_usd = spec.pricing.cost(0, max(stored_output_tokens(store)), batch=batch)
        default_usd = spec.pricing.cost(0, TYPICAL_OUTPUT_TOKENS, batch=batch)
        cap = (POEMS - 1.5) * answer_usd + default_usd  # the default fitted 11 calls of 12
        report = judge(
            store,
            spec,
            samples=2,
            max_cost_usd=cap,
            batch=batch,
            batch_poll_s=0.01,
            batch_poll_max_s=0.01,
        )
    model = report.models[0]
    assert (model.ok, model.skipped_budget, report.stopped_by_budget) == (POEMS, 0, False)
    assert report.cost_usd == pytest.approx(POEMS * answer_usd)
    assert report.cost_usd <= cap


def test_a_reservation_covers_every_answer_so_far_with_headroom(tmp_path: Path) -> None:
    # Answers of varied length: a plan takes their 95th percentile, a reservation before a
    # call (--max-cost) the longest one times the headroom.
    lengths = iter(range(10, 10 + POEMS))

    def varied(call: ChatCall) -> str:
        return "word " * next(lengths)

    store = generated_run(tmp_path)
    with OpenAIServer(varied, api_key=TEST_KEY) as server:
        spec = judge_of(server, max_concurrency=1).model_copy(update={"reask": 0})
        judge(store, spec, samples=1)
    basis = observe(store, spec, JudgePlan(store, ["machine"])(spec)[0])
    outputs = sorted(stored_output_tokens(store))
    assert basis.answers == POEMS and outputs[0] < outputs[-1]
    assert basis.plan_output_tokens == outputs[-1]  # the 95th percentile of 12: the 12th
    assert basis.reserve_output_tokens == math.ceil(outputs[-1] * RESERVE_HEADROOM)
    assert basis.output_tokens(spec, 50, reserve=True) == 50  # an explicit estimate wins
    # max_tokens enters the cache key: the answers given under other settings do not count.
    capped = spec.model_copy(
        update={"settings": spec.settings.model_copy(update={"max_tokens": 9})}
    )
    assert not observe(store, capped, JudgePlan(store, ["machine"])(capped)[0]).observed


def test_answers_longer_than_those_so_far_still_stay_under_the_cap(tmp_path: Path) -> None:
    # The second judgments run longer than the first (within the headroom): each call's
    # reservation still covers its real cost, so spent never passes the cap however many run.
    answers = [f"```json\n{VALID_JUDGE_ANSWER}\n```"]
    store = generated_run(tmp_path)
    with OpenAIServer(lambda call: answers[0], latency_s=0.02, api_key=TEST_KEY) as server:
        spec = judge_of(server, max_concurrency=4).model_copy(update={"reask": 0})
        judge(store, spec, samples=1)
        short = max(stored_output_tokens(store))
        longer = " ".join(["solid"] * (short // 3))
        answers[0] = answers[0].replace('"solid"', f'"{longer}"')
        cap = spec.pricing.cost(0, 5 * short)
        report = judge(store, spec, samples=2, max_cost_usd=cap)
    model = report.models[0]
    assert short < max(stored_output_tokens(store)) <= short * RESERVE_HEADROOM
    assert model.ok >= 1 and model.skipped_budget == POEMS - model.ok > 0
    assert report.cost_usd <= cap
