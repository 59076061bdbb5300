"""The `judges` analysis table after a real judge run against the local OpenAI server: a refusal
that was re-asked and then answered vanished from it (Refusals 0, refusal rate 0.00, only the
re-asks counted), and its cost printed at 2 decimals read 0.00 for a cheap judge."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    openai_spec,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.analysis.judges import judge_report
from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.store import RunStore
from poemetric.tables.write import write_table
from poemetric.testing.servers import ChatCall, OpenAIServer, ResponderError

REFUSAL = "I'm sorry, I cannot evaluate this poem."


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class RefusesFirst:
    """Refuses the first `refusing` poems on the first turn; answers every re-ask."""

    def __init__(self, refusing: int) -> None:
        self.refusing = refusing
        self.lock = threading.Lock()

    def __call__(self, call: ChatCall) -> str:
        with self.lock:
            if len(call.messages) == 1 and self.refusing > 0:
                self.refusing -= 1
                return REFUSAL
        return VALID_JUDGE_ANSWER


def judged(tmp_path: Path) -> RunStore:
    """Six poems judged by `re-asking` (re-asks once, the default; refused 2 poems on the first
    turn) and by `stubborn` (not re-asked; refused 1)."""
    use_scripted()
    store = prepared_store(tmp_path, poems=3)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    with OpenAIServer(RefusesFirst(refusing=2), api_key=TEST_KEY) as server:
        run_judging(store, openai_spec(server.base_url, name="re-asking"), options=FAST)
        stubborn = openai_spec(server.base_url, name="stubborn").model_copy(
            update={"reask": 0, "model": "other-model"}  # not answered from the other's cache
        )
        server.responder = RefusesFirst(refusing=1)
        run_judging(store, stubborn, options=FAST)
    return store


def test_refusals_answered_when_re_asked_are_counted(tmp_path: Path) -> None:
    frame = judge_report(judged(tmp_path))
    table = frame.set_index("judge")
    answered = table.loc["re-asking"]
    assert (answered["ok"], answered["reasked"], answered["reasked_ok"]) == (6, 2, 2)
    assert answered["first_turn_refusals"] == 2 and answered["refusals_any_turn"] == 2
    assert answered["final_refusals"] == 0 and answered["final_refusal_rate"] == 0
    assert answered["first_turn_refusal_rate"] == pytest.approx(2 / 6)
    refused = table.loc["stubborn"]
    assert (refused["ok"], refused["parse_failures"], refused["reasked"]) == (5, 1, 0)
    assert refused["first_turn_refusals"] == refused["final_refusals"] == 1
    assert refused["refusals_any_turn"] == 1
    assert refused["final_refusal_rate"] == pytest.approx(1 / 6)
    write_table(frame, tmp_path, "judges", formats=("md",))
    markdown = (tmp_path / "judges.md").read_text()
    assert "| Refusals, first turn | Refusals, any turn | Refusals, final |" in markdown


def test_cost_is_printed_at_4_decimals(tmp_path: Path) -> None:
    """A few hundred tokens at $1/$2 per million: 0.00 at 2 decimals; 4, as the run summaries."""
    table = judge_report(judged(tmp_path))
    cost = float(table.set_index("judge").loc["re-asking", "cost_usd"])
    assert 0 < cost < 0.01
    write_table(table, tmp_path / "analysis", "judges", formats=("md", "tex"))
    assert f"| {cost:.4f} |" in (tmp_path / "analysis" / "judges.md").read_text()
    assert f"& {cost:.4f} " in (tmp_path / "analysis" / "judges.tex").read_text()


def test_a_failed_re_ask_call_counts_its_first_answer_among_the_answers_received(
    tmp_path: Path,
) -> None:
    """Two of six first answers refused, their re-ask calls failed (call errors): the rates'
    numerators (re-asked, first-turn refusals) and denominator hold the same judgments; the
    re-ask and first-turn refusal rates were 2/4 (the four ok answers only)."""
    use_scripted()
    store = prepared_store(tmp_path, poems=3)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    refusals: list[int] = []

    def responder(call: ChatCall) -> str:
        if len(call.messages) > 1:
            raise ResponderError(500, "the server fell over")
        if len(refusals) < 2:
            refusals.append(1)
            return REFUSAL
        return VALID_JUDGE_ANSWER

    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, name="flaky").model_copy(update={"concurrency": 1})
        run_judging(store, spec, options=FAST)
    row = judge_report(store).set_index("judge").loc["flaky"]
    assert (row["ok"], row["call_errors"], row["reasked"]) == (4, 2, 2)
    assert row["first_turn_refusals"] == 2
    assert row["reask_rate"] == pytest.approx(2 / 6)
    assert row["first_turn_refusal_rate"] == pytest.approx(2 / 6)
    assert row["parse_failure_rate"] == 0
