"""Interrupted runs: SIGKILL mid-run and mid-batch, then resume without repeats or losses."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    HoldAfter,
    openai_spec,
    prepared_store,
)

from poemetric.generation.stage import run_generation
from poemetric.providers.base import GenerationSettings
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

DRIVER = textwrap.dedent(
    """
    import json, sys
    from poemetric.runner.runner import RunnerOptions
    from poemetric.generation.stage import run_generation
    from poemetric.providers.base import ModelSpec
    from poemetric.store import RunStore

    run_dir, spec_json, options_json = sys.argv[1:4]
    options = RunnerOptions(progress=False, **json.loads(options_json))
    with RunStore(run_dir) as store:
        run_generation(store, [ModelSpec.model_validate_json(spec_json)], options=options)
    """
)


def start_driver(tmp_path: Path, spec_json: str, **options: object) -> subprocess.Popen[bytes]:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    env = {**os.environ, TEST_KEY_ENV: TEST_KEY}
    return subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "run"), spec_json, json.dumps(options)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_until(condition: object, timeout_s: float, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        if process.poll() is not None:
            pytest.fail(f"driver exited early: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        time.sleep(0.02)
    process.kill()
    pytest.fail("timed out waiting for the driver")


@pytest.mark.slow
def test_sigkill_mid_run_then_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    latency = 0.15
    store = prepared_store(tmp_path / "run", poems=18)
    jobs = 2 * store.count("poems")  # two samples per prompt
    hold = HoldAfter(10)  # the driver cannot finish before the kill, however loaded the machine
    with OpenAIServer(hold, latency_s=latency, api_key=TEST_KEY) as server:
        # A fixed seed makes the two samples of a prompt distinct requests (seed, seed + 1).
        spec = openai_spec(server.base_url, max_concurrency=3).model_copy(
            update={"settings": GenerationSettings(seed=7)}
        )
        driver = start_driver(tmp_path, spec.model_dump_json(), samples=2)
        stored = lambda: store.count("generations", "author = ? AND status = 'ok'", (spec.name,))  # noqa: E731
        wait_until(lambda: stored() >= 8, 60, driver)
        driver.send_signal(signal.SIGKILL)
        killed_at = time.time()  # the server logs wall-clock times
        driver.wait()
        hold.release.set()
        before = stored()
        assert 8 <= before < jobs
        # The killed process left its leases behind; they must not block the resume.
        assert store.count("holders") == 1 and store.count("leases") > 0

        report = run_generation(store, [spec], options=dataclasses.replace(FAST, samples=2))
        assert report.models[0].already_done == before and report.errors == 0
        assert report.models[0].held_elsewhere == 0 and store.count("leases") == 0

        rows = store.query(
            "SELECT prompt_id, sample_index, COUNT(*) AS n, MIN(status) AS status FROM generations "
            "WHERE author = ? GROUP BY prompt_id, sample_index",
            (spec.name,),
        )
        assert len(rows) == jobs and {(r["n"], r["status"]) for r in rows} == {(1, "ok")}

        # Only answers that were still in flight when the process died may be asked again (the
        # client never stored them): requests held at the server, or answered just before the
        # kill. Every answer the client stored was kept.
        def key(body: dict[str, object]) -> str:
            return json.dumps([body["messages"], body.get("seed")], sort_keys=True)

        held = {key(body) for body in hold.held}
        seen: dict[str, list[float]] = {}
        for record in server.successful_generations:
            seen.setdefault(key(record.body), []).append(record.received_at)
        repeated = {k: v for k, v in seen.items() if len(v) > 1}
        assert len(repeated) <= spec.limits.max_concurrency
        for request, (first, *_) in repeated.items():
            assert request in held or first >= killed_at - latency - 1.0  # in flight at the kill
        assert len(seen) == jobs  # every job answered, none lost


@pytest.mark.slow
def test_batch_kill_between_submit_and_collect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = prepared_store(tmp_path / "run", poems=5)
    with OpenAIServer(api_key=TEST_KEY, batch_polls_in_progress=20) as server:
        spec = openai_spec(server.base_url)
        # Two prompts are done already: the batch must contain only the other three.
        run_generation(store, [spec], options=dataclasses.replace(FAST, limit=2))
        batch_options = {"batch": True, "batch_poll_s": 0.05, "batch_poll_max_s": 0.05}
        driver = start_driver(tmp_path, spec.model_dump_json(), **batch_options)
        polls = lambda: [r for r in server.requests if r.method == "GET" and "/batches/" in r.path]  # noqa: E731
        wait_until(lambda: len(polls()) >= 2, 60, driver)
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        (batch,) = store.query("SELECT * FROM batches")
        assert batch["status"] == "in_progress" and len(json.loads(batch["request_keys"])) == 3

        options = dataclasses.replace(FAST, batch=True, batch_poll_s=0.05, batch_poll_max_s=0.05)
        report = run_generation(store, [spec], options=options)
        submissions = [
            r for r in server.requests if r.method == "POST" and r.path.endswith("/batches")
        ]
        assert len(submissions) == 1  # found the in-flight batch, did not resubmit
        model = report.models[0]
        assert (model.mode, model.ok, model.already_done) == ("batch-api", 3, 2)
        assert model.batch_ids == [batch["batch_id"]]
        rows = store.query(
            "SELECT * FROM generations WHERE author = ? ORDER BY batch_id", (spec.name,)
        )
        assert len(rows) == 5 and {r["status"] for r in rows} == {"ok"}
        batched = [r for r in rows if r["batch_id"] == batch["batch_id"]]
        assert len(batched) == 3
        # Batch price: half of the synchronous price for the same usage.
        for row in batched:
            full = (row["input_tokens"] * 1.0 + row["output_tokens"] * 2.0) / 1e6
            assert row["cost_usd"] == pytest.approx(full * 0.5)
        (after,) = store.query("SELECT status FROM batches")
        assert after["status"] == "collected"
        # A third run has nothing to do.
        assert run_generation(store, [spec], options=options).models[0].called == 0
        assert len(submissions) == len(
            [r for r in server.requests if r.method == "POST" and r.path.endswith("/batches")]
        )


def test_batch_run_in_one_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = RunStore(tmp_path)
    prepared_store(tmp_path, poems=4)
    with OpenAIServer(api_key=TEST_KEY, batch_polls_in_progress=2) as server:
        spec = openai_spec(server.base_url)
        options = dataclasses.replace(
            FAST, batch=True, samples=2, batch_poll_s=0.01, batch_max_items=5
        )
        report = run_generation(store, [spec], options=options)
        model = report.models[0]
        assert model.ok == 8 and len(model.batch_ids) == 2  # 8 jobs in batches of at most 5
        assert store.count("calls", "outcome = 'ok'") == 8
        assert len(server.generation_requests) == 0  # nothing went through the sync endpoint
