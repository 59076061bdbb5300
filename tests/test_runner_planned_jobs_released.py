"""A stage keeps only the calls it will make: a model's jobs found done when planned (every
one is built, prompt rendered, to find it done) are let go before the next model's are built
and before the calls run. `judge` of a mostly finished run held every judgment's job (about
5 KB each) of two judges at once while planning, and of the last judge through all its calls."""

from __future__ import annotations

import dataclasses
import gc
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import (
    FAST,
    VALID_JUDGE_ANSWER,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.generation.stage import run_generation
from poemetric.judge.stage import JudgePlan, run_judging
from poemetric.providers.base import Completion, TokenUsage
from poemetric.runner import calls
from poemetric.runner.jobs import Job


def _alive(refs: Sequence[weakref.ref[Job]]) -> int:
    gc.collect()
    return sum(1 for ref in refs if ref() is not None)


def test_a_judges_done_jobs_are_let_go_before_the_next_judge_and_the_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_scripted()
    store = prepared_store(tmp_path, poems=16)
    run_generation(store, [scripted_spec()], options=dataclasses.replace(FAST, samples=2))
    use_scripted(
        lambda request, n: Completion(
            text=VALID_JUDGE_ANSWER, usage=TokenUsage(input_tokens=900, output_tokens=40)
        )
    )
    judges = [scripted_spec(name=f"judge-{i}") for i in range(2)]
    run_judging(store, judges, options=FAST)
    # A mostly finished run: three judgments of the last judge are missing (answers too).
    missing = store.query(
        "SELECT judgment_id, cache_key FROM judgments WHERE judge = 'judge-1' "
        "ORDER BY judgment_id LIMIT 3"
    )
    with store.transaction() as connection:
        for row in missing:
            connection.execute("DELETE FROM judgments WHERE judgment_id = ?", (row[0],))
            connection.execute("DELETE FROM response_cache WHERE cache_key = ?", (row[1],))

    built: list[list[weakref.ref[Job]]] = []
    alive_when_built: list[int] = []
    alive_when_called: list[int] = []
    plan = JudgePlan.__call__

    def planning(self: JudgePlan, judge: Any) -> tuple[list[Job], dict[str, str]]:
        alive_when_built.append(_alive(built[-1]) if built else 0)
        jobs, statuses = plan(self, judge)
        built.append([weakref.ref(job) for job in jobs])
        return jobs, statuses

    run_concurrent = calls.run_concurrent

    async def calling(run: Any, provider: Any, jobs: Sequence[Job]) -> None:
        alive_when_called.append(_alive(built[-1]))
        await run_concurrent(run, provider, jobs)

    monkeypatch.setattr(JudgePlan, "__call__", planning)
    monkeypatch.setattr(calls, "run_concurrent", calling)
    report = run_judging(store, judges, options=FAST)

    assert [m.already_done for m in report.models] == [48, 45]
    assert [m.ok for m in report.models] == [0, 3]
    assert [len(refs) for refs in built] == [48, 48]  # 32 poems generated, 16 originals
    assert alive_when_built == [0, 0]  # the first judge's 48 jobs were held before
    assert alive_when_called == [3]  # the calls' jobs only, not the 45 done
