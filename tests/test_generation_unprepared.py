"""`run_generation` on a store that was never prepared (the Python API without `prepare_run`)
planned 0 jobs and returned as if all were done; now it says which step is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import FAST, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.roster import select_models
from poemetric.store import RunStore, StoreError


def test_generating_for_a_run_never_prepared_names_the_missing_step(tmp_path: Path) -> None:
    with RunStore(tmp_path / "x") as store:
        with pytest.raises(StoreError) as raised:
            run_generation(store, select_models("markov"), options=FAST)
        assert store.count("generations") == 0
    message = str(raised.value)
    assert f"run {tmp_path / 'x'} has no prompts to generate for" in message
    assert "prepare_run(store, DATASET)" in message
    assert "poemetric generate --run RUN --dataset DATASET" in message


def test_a_prepared_run_with_every_job_done_plans_0_jobs_quietly(tmp_path: Path) -> None:
    with prepared_store(tmp_path / "x", poems=2) as store:
        first = run_generation(store, select_models("markov"), options=FAST)
        assert [m.ok for m in first.models] == [2]
        again = run_generation(store, select_models("markov"), options=FAST)
        assert [(m.jobs, m.already_done, m.pending) for m in again.models] == [(2, 2, 0)]
