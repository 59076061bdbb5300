"""The batch runner begins a model's jobs in order, a bounded number at a time (`feed`): its
memory does not grow with the jobs a command plans, and the jobs start as they did when every
one was begun at the start (in order; one waiting to be retried lets the next ones go)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    generation_rows,
    openai_spec,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.generation.stage import run_generation
from poemetric.runner import calls, feed
from poemetric.runner.jobs import Job
from poemetric.testing.servers import Fault, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_a_long_run_holds_a_bounded_number_of_jobs_not_one_task_per_job_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """192 jobs against the local wire server (real `openai` SDK), 2 in flight: the event loop
    never holds more than the jobs begun (4) and a few tasks of its own; every job was a
    task from the start before (192 tasks, some 9 KB each: 500 MB for 50,000 jobs)."""
    store = prepared_store(tmp_path, poems=16)
    live_tasks: list[int] = []
    record = calls.record_completion

    def counting(*args: Any, **kwargs: Any) -> Any:
        live_tasks.append(len(asyncio.all_tasks()))
        return record(*args, **kwargs)

    monkeypatch.setattr(calls, "record_completion", counting)
    with OpenAIServer(api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=2)
        report = run_generation(store, [spec], options=dataclasses.replace(FAST, samples=12))
        assert len(server.generation_requests) == 192  # each job sent once
    assert report.models[0].ok == 192 and report.errors == 0
    assert len(generation_rows(store, spec.name)) == 192
    assert len(live_tasks) == 192
    # The jobs begun, a task per call in flight (`asyncio.wait_for`), the stage's own two.
    assert max(live_tasks) <= feed.places_for(2) + 2 + 2


def test_jobs_start_in_the_order_planned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=16)
    planned: list[Job] = []
    run_concurrent = calls.run_concurrent

    async def recording(run: Any, provider: Any, jobs: Sequence[Job]) -> None:
        planned.extend(jobs)
        await run_concurrent(run, provider, jobs)

    monkeypatch.setattr(calls, "run_concurrent", recording)
    report = run_generation(
        store,
        [scripted_spec(limits={"max_concurrency": 3})],
        options=dataclasses.replace(FAST, samples=5),
    )
    assert report.models[0].ok == 80
    assert len(planned) == 80
    assert [r.messages for r in provider.calls] == [j.request.messages for j in planned]
    assert [r.sample_index for r in provider.calls] == [j.request.sample_index for j in planned]


def test_jobs_waiting_to_be_retried_let_the_next_jobs_go(tmp_path: Path) -> None:
    """One request in flight (two jobs begun): the first three are answered 503 with a
    Retry-After of 3 s. While they wait, the 13 other jobs are sent and answered, as when every
    job was begun at the start; had a job kept its place while it waited, both places would
    have stood idle for 3 s."""
    store = prepared_store(tmp_path, poems=16)
    refused = Fault("status", status=503, retry_after_s=3.0, message="busy")
    with OpenAIServer(faults=[refused] * 3, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=1)
        report = run_generation(store, [spec], options=FAST)
        log = server.generation_requests
    assert report.models[0].ok == 16 and report.errors == 0
    assert len(log) == 19
    first_sent = [json.dumps(r.body, sort_keys=True) for r in log[:16]]
    assert len(set(first_sent)) == 16  # every job was sent once before any retry
    assert [r.fault for r in log[:3]] == ["status:503"] * 3
    assert all(r.succeeded for r in log[3:])


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_in_order_begins_items_in_order_and_never_more_than_the_places() -> None:
    begun: list[int] = []
    at_once: list[int] = []
    holding = 0

    async def work(item: int, place: feed.Place) -> None:
        nonlocal holding
        begun.append(item)
        holding += 1
        at_once.append(holding)
        await asyncio.sleep(0.001 * (item % 3))
        holding -= 1

    _run(feed.in_order(range(200), work, 5))
    assert begun == list(range(200))
    assert max(at_once) == 5


def test_a_place_given_up_lets_the_next_item_begin() -> None:
    """An item waiting (a retry's backoff) gives up its place: the others all begin and end
    while it waits; it ends last."""
    ended: list[int] = []
    release = asyncio.Event

    async def main() -> None:
        go_on = release()

        async def work(item: int, place: feed.Place) -> None:
            if item == 0:
                place.give_up()
                place.give_up()  # once only: a second retry gives nothing more
                await go_on.wait()
            elif item == 9:
                go_on.set()
            ended.append(item)

        await feed.in_order(range(10), work, 1)

    _run(main())
    assert ended == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]


def test_the_first_failure_is_raised_and_later_items_are_not_begun() -> None:
    begun: list[int] = []

    async def work(item: int, place: feed.Place) -> None:
        begun.append(item)
        await asyncio.sleep(0)
        if item == 3:
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        _run(feed.in_order(range(1000), work, 4))
    assert len(begun) < 10


def test_cancelling_cancels_the_items_begun_and_waits_for_them() -> None:
    cleaned: list[int] = []

    async def work(item: int, place: feed.Place) -> None:
        try:
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0)  # the cleanup itself awaits
            cleaned.append(item)

    async def main() -> None:
        task = asyncio.create_task(feed.in_order(range(100), work, 3))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert sorted(cleaned) == [0, 1, 2]

    _run(main())
