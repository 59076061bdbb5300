"""`run_judging` on a store with no poems (the Python API without `prepare_run` and
`run_generation`) planned 0 jobs and returned as if all were judged; now it says which step is
missing. The command line refused such a run already (`judge --run` exits 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    openai_spec,
    prepared_store,
)
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.judge.stage import run_judging
from poemetric.store import RunStore, StoreError
from poemetric.testing.servers import ChatCall, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_judging_a_run_without_generations_names_the_missing_step(tmp_path: Path) -> None:
    judge = openai_spec("http://127.0.0.1:9/v1", name="j")  # never called
    with RunStore(tmp_path / "x") as store:
        with pytest.raises(StoreError) as raised:
            run_judging(store, judge, options=FAST)
        assert store.count("judgments") == 0
    message = str(raised.value)
    assert f"run {tmp_path / 'x'} has no poems to judge: generate first" in message
    assert "prepare_run(store, DATASET)" in message and "run_generation(store, MODELS)" in message
    assert "`poemetric judge --run RUN --judge JUDGE`" in message


def test_a_run_whose_poems_are_all_judged_plans_0_jobs_quietly(tmp_path: Path) -> None:
    def answer(call: ChatCall) -> str:
        return f"```json\n{VALID_JUDGE_ANSWER}\n```"

    with (
        prepared_store(tmp_path / "x", poems=2) as store,
        OpenAIServer(answer, api_key=TEST_KEY) as server,
    ):
        judge = openai_spec(server.base_url, name="j")
        assert [m.ok for m in run_judging(store, judge, options=FAST).models] == [2]
        again = run_judging(store, judge, options=FAST)
        assert [(m.jobs, m.already_done, m.pending) for m in again.models] == [(2, 2, 0)]


def test_judge_cli_on_a_run_without_poems_says_generate_first(tmp_path: Path) -> None:
    RunStore(tmp_path / "x").close()
    result = CliRunner().invoke(app, ["judge", "--run", str(tmp_path / "x"), "--judge", "gpt-4o"])
    assert result.exit_code == 2, result.output
    assert "has no poems yet: run `poemetric generate --run" in " ".join(result.output.split())
