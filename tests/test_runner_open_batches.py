"""A run without --batch after a `--batch` run whose batch is still open (its status polls
failed, or the run was stopped while it waited) called every job of that batch again: each was
paid twice, once by the call and once by the batch, which the provider still answers. Those jobs
are now left to their batch, with a line that says how to collect it (`--batch`) or give it up.
The real openai SDK against the local OpenAI server, which counts what it answers."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from test_runner_batch_faults import BATCH, printed, spec_for, submissions
from test_runner_support import TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.testing.servers import Fault, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_jobs_of_an_open_batch_are_not_called_again_without_batch(tmp_path: Path) -> None:
    store = prepared_store(tmp_path, poems=3)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        first = run_generation(store, [spec], options=BATCH)
        assert first.models[0].left_pending == 3
        (batch,) = store.query("SELECT batch_id, status FROM batches")
        assert batch["status"] == "submitted"

        for batch_mode in (False, True):  # the plan: those jobs cost this command nothing
            plan = run_generation(
                store, [spec], options=dataclasses.replace(BATCH, batch=batch_mode, dry_run=True)
            )
            assert plan.models[0].estimated_cost_usd == 0.0, batch_mode
            assert plan.models[0].estimated_input_tokens == 0, batch_mode

        direct = run_generation(store, [spec], options=dataclasses.replace(BATCH, batch=False))
        assert server.generation_requests == []  # nothing bought a second time
        (model,) = direct.models
        assert model.in_open_batches == 3 and direct.incomplete
        text = " ".join(printed(direct).split())
        assert (
            f"3 jobs are in a batch an earlier --batch run submitted and not collected yet "
            f"({batch['batch_id']}): left to it, not called again" in text
        )
        assert f"poemetric batches abandon {batch['batch_id']} --run {tmp_path} --force" in text
        assert generation_rows(store, "remote") == []

        collected = run_generation(store, [spec], options=BATCH)
        assert collected.models[0].ok == 3 and not collected.incomplete
        assert len(submissions(server)) == 1 and server.generation_requests == []
    assert {r["batch_id"] for r in generation_rows(store, "remote")} == {batch["batch_id"]}


def test_a_plan_says_which_jobs_are_in_an_open_batch(tmp_path: Path) -> None:
    """`generate --dry-run` without --batch showed those jobs as `pending 2` at $0, nothing said
    that the run would leave them to their batch, and the summary line counted them as calls
    planned. The plan now says what the run does with them, with or without --batch."""
    store = prepared_store(tmp_path, poems=2)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        assert run_generation(store, [spec], options=BATCH).models[0].left_pending == 2
        (batch,) = store.query("SELECT batch_id FROM batches")
        requests = len(server.requests)

        plan = run_generation(
            store, [spec], options=dataclasses.replace(BATCH, batch=False, dry_run=True)
        )
        assert plan.models[0].in_open_batches == 2 and plan.models[0].pending == 2
        assert plan.summary_line() == (
            "1 model, 0 calls planned, 2 in open batches (not called), estimated $0.0000"
        )
        text = " ".join(printed(plan).split())
        assert (
            f"remote: warning: 2 jobs are in a batch an earlier --batch run submitted and not "
            f"collected yet ({batch['batch_id']}), not counted as planned calls: a run without "
            "--batch leaves them to it and calls none of them. Run the command with --batch to "
            "collect them" in text
        ), text
        assert f"poemetric batches abandon {batch['batch_id']} --run {tmp_path} --force" in text

        plan = run_generation(store, [spec], options=dataclasses.replace(BATCH, dry_run=True))
        assert plan.summary_line().startswith("1 model, 0 calls planned, 2 in open batches")
        text = " ".join(printed(plan).split())
        assert "not counted as planned calls: the run polls it and collects them" in text, text
        assert len(server.requests) == requests  # a plan asks nothing


def test_a_plan_reads_the_open_batches_once_per_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan read each model's open batches (every job key of each, as JSON) three times: for
    the estimate of its pending jobs, for the plan's line and for the estimate of the cached
    answers to ask again. It reads them once, with the same plan."""
    from poemetric.runner import open_batches

    store = prepared_store(tmp_path, poems=2)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        assert run_generation(store, [spec], options=BATCH).models[0].left_pending == 2
        reads: list[str] = []
        read = open_batches.in_flight_batches

        def counted(*args: Any) -> list[tuple[str, dict[str, str]]]:
            reads.append(args[2])
            return read(*args)

        monkeypatch.setattr(open_batches, "in_flight_batches", counted)
        for batch in (False, True):
            reads.clear()
            options = dataclasses.replace(BATCH, batch=batch, dry_run=True)
            plan = run_generation(store, [spec], options=options)
            assert plan.models[0].in_open_batches == 2 and plan.models[0].estimated_cost_usd == 0
            assert reads == ["remote"], batch
