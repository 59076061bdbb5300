"""A model run in a process of its own (`isolate_process`: vLLM) may start processes itself,
as vLLM's engine does: its V1 engine core (vLLM >= 0.8) and its tensor-parallel workers each
run in a process of their own."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from test_runner_support import (
    FAST,
    IsolatedProvider,
    generation_rows,
    prepared_store,
    scripted_spec,
)

from poemetric.generation.stage import run_generation
from poemetric.providers.base import Completion, GenerationRequest, ProviderError
from poemetric.providers.registry import register_provider
from poemetric.runner import isolation


class EngineWithWorkerProcess(IsolatedProvider):
    """An engine that serves its requests from a process it starts, as vLLM's does."""

    name: ClassVar[str] = "engine-with-worker"

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        worker = multiprocessing.get_context("fork").Process(target=os.getpid)
        worker.start()
        worker.join()
        return [
            Completion(text="poem", raw={"pid": os.getpid(), "worker_exit": worker.exitcode})
            for _ in requests
        ]


class EngineThatCrashes(IsolatedProvider):
    """An engine whose process dies without a word (a crash in native code, the OOM killer)."""

    name: ClassVar[str] = "engine-that-crashes"

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        os._exit(3)


@pytest.mark.timeout(60)
def test_isolated_engines_may_start_processes_and_a_dead_one_does_not_hang_the_stage(
    tmp_path: Path,
) -> None:
    """Each model ran as a `multiprocessing.Pool` worker, which is daemonic, and a daemonic
    process may not start processes: vLLM's engine failed to load in it with "AssertionError:
    daemonic processes are not allowed to have children" (vLLM issue #18308: `LLM(...)` in a
    Pool worker, vLLM 0.8.5), every job an error row, so no vLLM model could run. And a worker
    that died mid-task (a crash in native code, the OOM killer) left `Pool.apply` waiting for
    ever. Now the model's process is a plain child: its engine may start processes, and when it
    dies the model is reported not run, with the exit code, its jobs left pending, and the next
    model runs."""
    register_provider("engine-that-crashes", EngineThatCrashes)
    register_provider("engine-with-worker", EngineWithWorkerProcess)
    store = prepared_store(tmp_path, poems=2)
    crashes = scripted_spec(name="crashes", provider="engine-that-crashes", model="local")
    works = scripted_spec(name="gpu-engine", provider="engine-with-worker", model="local")
    options = dataclasses.replace(FAST, chunk_size=2)
    report = run_generation(store, [crashes, works], options=options)
    crashed, worked = report.models
    assert "exit code 3" in (crashed.not_run or "") and report.incomplete
    assert store.count("generations", "author = 'crashes'") == 0  # pending for the next run
    assert worked.ok == 2
    raws = [json.loads(r["raw_response"]) for r in generation_rows(store, "gpu-engine")]
    assert [r["worker_exit"] for r in raws] == [0, 0] and raws[0]["pid"] != os.getpid()


class EngineThatLingers(IsolatedProvider):
    """An engine that leaves a thread running, so that its process cannot exit."""

    name: ClassVar[str] = "engine-that-lingers"

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        threading.Thread(target=time.sleep, args=(600,), daemon=False).start()
        return [Completion(text="poem") for _ in requests]


@pytest.mark.timeout(60)
def test_a_model_process_that_reported_but_cannot_exit_is_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's process is waited for after its report only `EXIT_GRACE_S` (an engine's
    teardown may hang), then terminated, as a Pool's worker was at once."""
    monkeypatch.setattr(isolation, "EXIT_GRACE_S", 0.2)
    register_provider("engine-that-lingers", EngineThatLingers)
    store = prepared_store(tmp_path, poems=1)
    spec = scripted_spec(name="lingers", provider="engine-that-lingers", model="local")
    (model,) = run_generation(store, [spec], options=FAST).models
    assert model.ok == 1


class EngineCoreOutlivesItsModel(IsolatedProvider):
    """An engine whose process is killed while the process it forked (vLLM's engine core, which
    survives a killed parent: vLLM issues #34643, #55510) lives on, holding what it inherited."""

    name: ClassVar[str] = "engine-core-outlives"

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        core = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
        core.start()
        Path(os.environ["ENGINE_CORE_PID_FILE"]).write_text(str(core.pid))
        os._exit(9)


@pytest.mark.timeout(60)
def test_a_killed_model_process_whose_engine_lives_on_does_not_hold_up_the_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's death was seen only as the end of its pipe, which the engine's own process,
    forked with the pipe's end, kept open: the stage waited as long as that process lived (20 s
    for one that lived 20 s; for ever for an orphaned engine core). Now its exit is seen."""
    pid_file = tmp_path / "engine-core.pid"
    monkeypatch.setenv("ENGINE_CORE_PID_FILE", str(pid_file))
    register_provider("engine-core-outlives", EngineCoreOutlivesItsModel)
    store = prepared_store(tmp_path, poems=1)
    spec = scripted_spec(name="killed", provider="engine-core-outlives", model="local")
    started = time.monotonic()
    try:
        (model,) = run_generation(store, [spec], options=FAST).models
        assert time.monotonic() - started < 30
        assert "exit code 9" in (model.not_run or "")
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), 9)
