"""A 429 storm: once the server refuses a burst of requests and says when to come back, the
model's other jobs wait until then instead of each sending a request of its own into the storm
(counted at the server; OpenAI counts refused requests against the per-minute limit too)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    generation_rows,
    openai_spec,
    prepared_store,
)

from poemetric.generation.stage import run_generation
from poemetric.providers.base import GenerationSettings, RateLimits
from poemetric.runner import calls
from poemetric.runner.ratelimit import OUTAGE_FAILURES, ModelLimiter
from poemetric.testing.exchange import ChatCall, ResponderError
from poemetric.testing.servers import Fault, FaultWindow, OpenAIServer, RateLimitStorm


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_a_storm_of_429s_holds_the_jobs_not_yet_sent_until_the_server_said(
    tmp_path: Path,
) -> None:
    store = prepared_store(tmp_path, poems=16)
    concurrency = 4
    with OpenAIServer(faults=RateLimitStorm(1.5), api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=concurrency).model_copy(
            update={"settings": GenerationSettings(seed=3)}
        )
        report = run_generation(store, [spec], options=dataclasses.replace(FAST, samples=3))
        refused = [r for r in server.generation_requests if r.fault == "status:429"]
        assert server.duplicate_successes() == []
    assert report.models[0].ok == 48 and report.errors == 0
    assert len(generation_rows(store, spec.name)) == 48
    # The requests in flight when the storm began, and the few sent before a burst was seen;
    # without the hold each of the 48 jobs sent one into the storm.
    assert len(refused) <= 2 * concurrency


def test_a_lone_429_makes_only_its_own_job_wait(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=8)
    with OpenAIServer(faults=[Fault.rate_limited(1.0)], api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=2)
        report = run_generation(store, [spec], options=FAST)
        log = server.generation_requests
    assert report.models[0].ok == 8 and len(log) == 9
    refused = log[0]
    assert refused.fault == "status:429"
    # The other 7 jobs went on while the refused one waited: its retry came last.
    assert log[-1].body == refused.body and log[-1].succeeded


def test_an_outage_holds_the_model_instead_of_failing_every_job(tmp_path: Path) -> None:
    """A server answering 503 to everything for a while (an outage, no Retry-After): the jobs
    not yet sent wait for it to pass instead of each spending its retries against it and
    ending as an error row."""
    store = prepared_store(tmp_path, poems=16)
    concurrency = 4
    outage = FaultWindow(Fault.server_error(503), 1.5)
    with OpenAIServer(faults=outage, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=concurrency, max_retries=3)
        spec = spec.model_copy(update={"settings": GenerationSettings(seed=3)})
        options = dataclasses.replace(FAST, samples=3, retry_base_s=0.1, retry_cap_s=0.5)
        report = run_generation(store, [spec], options=options)
        failed = [r for r in server.generation_requests if r.status == 503]
    rows = generation_rows(store, spec.name)
    errors = [r for r in rows if r["status"] != "ok"]
    # Without the hold every one of the 48 jobs sent its 4 attempts into the outage and most
    # ended as error rows; with it, a few requests test the server now and then.
    assert len(errors) <= concurrency and report.errors == len(errors)
    assert len(failed) <= 12 * concurrency


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_outage_hold_doubles_after_each_hold_that_failed_again() -> None:
    clock = Clock()
    limiter = ModelLimiter(
        RateLimits(max_concurrency=32), outage_base_s=0.5, outage_cap_s=2.0, clock=clock
    )
    for _ in range(OUTAGE_FAILURES - 1):
        limiter.on_transient_failure()
    assert limiter.held_s() == 0  # a few failures are no outage
    for _ in range(32):  # the rest of the requests in flight fail at once
        limiter.on_transient_failure()
    assert limiter.held_s() == 0.5 and limiter.outages == 1
    clock.now += 0.5
    limiter.on_transient_failure()  # the hold's requests failed again: twice as long
    assert limiter.held_s() == 1.0
    clock.now += 1.0
    limiter.on_transient_failure()
    clock.now += 2.0
    limiter.on_transient_failure()
    assert limiter.held_s() == 2.0  # at most the cap
    clock.now += 2.0
    limiter.on_success()  # the server is back
    for _ in range(OUTAGE_FAILURES):
        limiter.on_transient_failure()
    assert limiter.held_s() == 0.5 and limiter.outages == 2


def test_a_burst_of_429s_holds_until_its_retry_after_and_a_lone_one_does_not() -> None:
    clock = Clock()
    limiter = ModelLimiter(RateLimits(), max_hold_s=10.0, clock=clock)
    limiter.on_rate_limited(3.0)
    assert limiter.held_s() == 0  # a lone 429: its job alone waits
    limiter.on_rate_limited(3.0)
    assert limiter.held_s() == 3.0
    limiter.on_rate_limited(60.0)
    assert limiter.held_s() == 10.0  # capped as Retry-After is


def test_an_outage_is_held_for_max_hold_s_at_most_in_all() -> None:
    """A server that never comes back: the holds end once the outage has been held for
    `max_hold_s`, and the jobs' own retries end them; an answer starts afresh."""
    clock = Clock()
    limiter = ModelLimiter(
        RateLimits(), max_hold_s=5.0, outage_base_s=0.5, outage_cap_s=2.0, clock=clock
    )
    held = 0.0
    for _ in range(OUTAGE_FAILURES):
        limiter.on_transient_failure()
    for _ in range(20):  # each hold's requests fail again
        left = limiter.held_s()
        held += left
        clock.now += left
        limiter.on_transient_failure()
    assert held == 5.0  # 0.5 + 1 + 2, and the 1.5 s left of the 5
    assert limiter.held_s() == 0
    limiter.on_success()
    for _ in range(OUTAGE_FAILURES):
        limiter.on_transient_failure()
    assert limiter.held_s() == 0.5 and limiter.outages == 2


def test_an_outage_that_never_ends_ends_every_job_as_an_error_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every request answered 503 for good: each job ends as an error row after its retries
    and the command ends soon after the outage's holds (`max_hold_s`, here 1 s): a few seconds;
    held on, the 48 attempts went out 4 per hold, the holds growing to 8 s apart (over a
    minute)."""
    real_policy = calls.retry_policy
    monkeypatch.setattr(
        calls,
        "retry_policy",
        lambda run: dataclasses.replace(real_policy(run), max_retry_after_s=1.0),
    )
    store = prepared_store(tmp_path, poems=16)
    outage = FaultWindow(Fault.server_error(503), 10**6)
    with OpenAIServer(faults=outage, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=4, max_retries=2)
        options = dataclasses.replace(FAST, retry_base_s=0.1, retry_cap_s=8.0)
        started = time.monotonic()
        report = run_generation(store, [spec], options=options)
        elapsed = time.monotonic() - started
        sent = len(server.generation_requests)
    rows = generation_rows(store, spec.name)
    assert len(rows) == 16 and all(r["status"] != "ok" for r in rows)
    assert report.errors == 16 and sent == 16 * 3
    assert elapsed < 20.0  # held on, well over a minute (the holds grow to 8 s apart)


def test_429_storm_holds_end_max_hold_s_after_the_first_without_an_answer() -> None:
    clock = Clock()
    limiter = ModelLimiter(RateLimits(), max_hold_s=10.0, clock=clock)
    limiter.on_rate_limited(4.0)
    limiter.on_rate_limited(4.0)
    assert limiter.held_s() == 4.0
    clock.now += 4.0
    limiter.on_rate_limited(4.0)  # the storm goes on: 6 s of the 10 are left
    limiter.on_rate_limited(4.0)
    assert limiter.held_s() == 4.0
    clock.now += 4.0
    limiter.on_rate_limited(4.0)
    limiter.on_rate_limited(4.0)
    assert limiter.held_s() == 2.0
    clock.now += 2.0
    limiter.on_rate_limited(4.0)
    limiter.on_rate_limited(4.0)
    assert limiter.held_s() == 0  # held 10 s with no answer: each job waits on its own
    limiter.on_success()
    clock.now += 1.0
    limiter.on_rate_limited(4.0)
    limiter.on_rate_limited(4.0)
    assert limiter.held_s() == 4.0  # a new storm after an answer


def test_a_429_storm_that_never_ends_ends_every_job_at_its_own_pace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every request answered 429 for good (Retry-After 0.5 s, a quota the provider does not
    name as such): each job ends as an error row after its `max_rate_limited` 429s, waiting
    its own Retry-After once the holds (`max_hold_s`, here 1 s) are over; held on, 2 requests
    went out per 0.5 s hold for the 176 refusals (about 45 s)."""
    real_policy = calls.retry_policy
    monkeypatch.setattr(
        calls,
        "retry_policy",
        lambda run: dataclasses.replace(
            real_policy(run), max_retry_after_s=1.0, max_rate_limited=10
        ),
    )
    store = prepared_store(tmp_path, poems=16)
    with OpenAIServer(faults=[Fault.rate_limited(0.5)] * 10**4, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=2)
        started = time.monotonic()
        report = run_generation(store, [spec], options=FAST)
        elapsed = time.monotonic() - started
        sent = len(server.generation_requests)
    rows = generation_rows(store, spec.name)
    assert len(rows) == 16 and all(r["status"] != "ok" for r in rows)
    assert report.errors == 16 and sent == 16 * 11
    assert elapsed < 20.0  # held on, about 45 s (2 requests a 0.5 s hold)


def test_jobs_held_by_a_429_burst_send_nothing_once_the_model_is_stopped(
    tmp_path: Path,
) -> None:
    """A burst of 429s holds the jobs waiting in `pace`; a 401 answered during the hold stops
    the model: when the hold ends, the held jobs are left pending instead of each sending one
    request more (counted at the server)."""
    store = prepared_store(tmp_path, poems=8)

    def key_refused_late(call: ChatCall) -> str:
        time.sleep(0.3)  # answered while the burst's hold (2 s) is on
        raise ResponderError(401, "Incorrect API key provided")

    burst = [Fault.rate_limited(2.0), Fault.rate_limited(2.0)]
    with OpenAIServer(key_refused_late, faults=burst, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, max_concurrency=4, timeout_s=60)
        report = run_generation(store, [spec], options=FAST)
        sent = server.generation_requests
    assert [r.fault for r in sent[:2]] == ["status:429"] * 2
    assert all(r.status == 401 for r in sent[2:])
    # All sent before the 401s came back (0.3 s on); without the check after the hold, the
    # jobs that took the slots during the hold each sent one when it ended (2 s on).
    hold_end = sent[1].received_at + 2.0
    assert [r.seq for r in sent if r.received_at >= hold_end] == []
    (model,) = report.models
    assert model.auth_status == 401
    assert (model.ok, model.errors, model.left_pending) == (0, 0, 8)
    assert generation_rows(store, spec.name) == []
