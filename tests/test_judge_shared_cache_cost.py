"""Two judge files of one model id and URL share cached answers (the response cache is keyed by
the request): the second file's rows were stored with a cost at its own price for answers it
never paid for, and the report's "Total cost" and `analyze`'s judges table counted them. An
answer served from the cache now costs nothing where it is replayed, and each paid call is
counted once, by the row that paid. The local OpenAI server counts every request it answers."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from test_judge_reask_stop import judged_run
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store.db import DB_NAME
from poemetric.testing.servers import ChatCall, OpenAIServer

JUDGE_FILE = """\
name: {name}
provider: openai-compatible
model: test-model
base_url: {base_url}
api_key_env: {key_env}
reask: {reask}
pricing: {{input_per_mtok: {price}, output_per_mtok: {price}}}
limits: {{max_concurrency: 2}}
"""

REFUSAL = "I'm sorry, I cannot evaluate this poem."


def judge_files(tmp_path: Path, base_url: str, reask_a: int = 1, reask_b: int = 1) -> Path:
    """judge-a ($2/Mtok) and judge-b ($5/Mtok): one model id behind one URL."""
    folder = tmp_path / "judges"
    folder.mkdir()
    for name, price, reask in (("judge-a", 2.0, reask_a), ("judge-b", 5.0, reask_b)):
        text = JUDGE_FILE.format(
            name=name, base_url=base_url, key_env=TEST_KEY_ENV, reask=reask, price=price
        )
        (folder / f"{name}.yaml").write_text(text)
    return folder


def judge(run: Path, judges: str, *, unusable: bool = False) -> str:
    """`poemetric judge` of 2 jobs; `unusable`: some answers stay unparsable (exit status 1)."""
    args = ["judge", "--run", str(run), "--judge", judges, "--limit", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == int(unusable), result.output
    return " ".join(result.output.split())


def costs(run: Path) -> dict[str, float]:
    with sqlite3.connect(run / DB_NAME) as conn:
        rows = conn.execute("SELECT judge, SUM(cost_usd) FROM judgments GROUP BY judge")
        return {str(name): float(cost) for name, cost in rows}


def paid_cost(run: Path, price_by_turn: dict[int, float]) -> float:
    """What the cached answers cost at the price of the file that bought each turn."""
    with sqlite3.connect(run / DB_NAME) as conn:
        total = 0.0
        for (text,) in conn.execute(
            "SELECT completion FROM response_cache WHERE model = 'test-model'"
        ):
            completion = json.loads(text)
            usage = completion["usage"]
            turn = 1 if completion["text"] == VALID_JUDGE_ANSWER else 0
            tokens = usage["input_tokens"] + usage["output_tokens"]
            total += tokens * price_by_turn[turn] / 1e6
        return total


def report_total(run: Path) -> float:
    result = CliRunner().invoke(app, ["report", "--run", str(run)])
    assert result.exit_code == 0, result.output
    page = " ".join(re.sub(r"<[^>]+>", " ", (run / "report" / "index.html").read_text()).split())
    found = re.search(r"Total cost ([0-9.]+) USD", page)
    assert found, page
    return float(found.group(1))


def analyzed_costs(run: Path) -> dict[str, float]:
    result = CliRunner().invoke(app, ["analyze", "--run", str(run)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(run / "analysis" / "judges.csv").set_index("judge")
    return {str(k): float(v) for k, v in table["cost_usd"].items()}


def test_a_shared_cached_answer_is_paid_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = judged_run(tmp_path / "run")
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server:
        monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(judge_files(tmp_path, server.base_url)))
        judge(run, "judge-a")
        output = judge(run, "judge-b")
        assert "│ judge-b │ 2 │ 2 │ 2 │ 0/0 │ 0.0000 │" in output, output  # nothing spent
        assert len(server.generation_requests) == 2  # judge-b's answers came from the cache
    spent = costs(run)
    assert spent["judge-a"] == pytest.approx(paid_cost(run, {0: 2.0, 1: 2.0})) and spent["judge-a"]
    assert spent["judge-b"] == 0.0  # was the same answers at judge-b's price
    assert report_total(run) == pytest.approx(spent["judge-a"], abs=1e-4)
    assert analyzed_costs(run) == pytest.approx(spent)


def test_a_reask_paid_after_a_shared_answer_counts_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """judge-a (no re-ask) pays for two refusals; judge-b replays them free and pays only its
    re-asks. Re-running judge-a re-parses its own answers from the cache: their cost stays."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = judged_run(tmp_path / "run")

    def refuse_first(call: ChatCall) -> str:
        return VALID_JUDGE_ANSWER if len(call.messages) > 1 else REFUSAL

    with OpenAIServer(refuse_first, api_key=TEST_KEY) as server:
        folder = judge_files(tmp_path, server.base_url, reask_a=0, reask_b=1)
        monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(folder))
        judge(run, "judge-a", unusable=True)
        first = costs(run)["judge-a"]
        judge(run, "judge-b")
        judge(
            run, "judge-a", unusable=True
        )  # re-parses its unusable answers from the cache: no call
        assert len(server.generation_requests) == 4  # 2 first turns, 2 re-asks
    spent = costs(run)
    assert spent["judge-a"] == pytest.approx(paid_cost(run, {0: 2.0, 1: 0.0})) == first
    assert spent["judge-b"] == pytest.approx(paid_cost(run, {0: 0.0, 1: 5.0}))
    with sqlite3.connect(run / DB_NAME) as conn:
        turns = [
            json.loads(t)
            for (t,) in conn.execute("SELECT turns FROM judgments WHERE judge = 'judge-b'")
        ]
    assert [turn[0]["cost_usd"] for turn in turns] == [0.0, 0.0]  # first answers not bought
    assert report_total(run) == pytest.approx(spent["judge-a"] + spent["judge-b"], abs=1e-4)


def test_a_conversation_of_two_paid_turns_replayed_keeps_both_costs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first answer and its re-ask, both paid and both unusable, re-parsed by the next run
    from the cache: each replayed turn stored the row as of that turn, so the re-ask, read from
    a row that no longer held it, was priced 0 and the paid call dropped out of the totals."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = judged_run(tmp_path / "run")
    with OpenAIServer(lambda call: REFUSAL, api_key=TEST_KEY) as server:
        folder = judge_files(tmp_path, server.base_url, reask_a=1)
        monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(folder))
        judge(run, "judge-a", unusable=True)
        first = costs(run)["judge-a"]
        assert len(server.generation_requests) == 4  # 2 first answers, 2 re-asks
        judge(run, "judge-a", unusable=True)  # re-parsed from the cache: no call
        assert len(server.generation_requests) == 4
    assert first > 0 and costs(run)["judge-a"] == pytest.approx(first)
