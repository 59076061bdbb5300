"""The judge stage against the local OpenAI server: blind prompts, parsing, re-parse from cache."""

from __future__ import annotations

import dataclasses
import json
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
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.prompts import render_judge_prompt
from poemetric.testing.servers import ChatCall, OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class Answers:
    """Valid answers, except a garbled one for the first `garbled` calls."""

    def __init__(self, garbled: int = 0) -> None:
        self.garbled = garbled
        self.lock = threading.Lock()

    def __call__(self, call: ChatCall) -> str:
        with self.lock:
            if self.garbled > 0:
                self.garbled -= 1
                return "I would rate this poem highly overall."
        return f"```json\n{VALID_JUDGE_ANSWER}\n```"


def judged_run(tmp_path: Path) -> object:
    use_scripted()
    store = prepared_store(tmp_path, poems=3)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    return store


def test_judge_is_blind_and_fills_columns(tmp_path: Path) -> None:
    store = judged_run(tmp_path)
    with OpenAIServer(Answers(), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge")
        report = run_judging(store, judge, options=FAST)  # type: ignore[arg-type]
        assert report.models[0].ok == 6 and report.errors == 0  # 3 human + 3 machine poems
        # The judge sees exactly the instrument filled with the prompt and the poem: no author.
        expected = {
            render_judge_prompt(r["prompt"], r["poem"]).text
            for r in store.query(  # type: ignore[attr-defined]
                "SELECT p.text AS prompt, g.poem FROM generations g JOIN prompts p USING (prompt_id)"
            )
        }
        sent = [r.body["messages"] for r in server.generation_requests]
        assert all(len(m) == 1 and m[0]["role"] == "user" for m in sent)
        assert {m[0]["content"] for m in sent} == expected
        assert all("machine" not in json.dumps(r.body) for r in server.generation_requests)
        # Nor the human poems' poets (the poems table has them beside the text).
        poets = {r["author"] for r in store.query("SELECT author FROM poems")}  # type: ignore[attr-defined]
        bodies = [json.dumps(r.body) for r in server.generation_requests]
        assert poets and not any(poet in body for poet in poets for body in bodies)
    rows = store.query("SELECT * FROM judgments")  # type: ignore[attr-defined]
    assert len(rows) == 6 and {r["status"] for r in rows} == {"ok"}
    row = rows[0]
    assert (row["form"], row["overall_quality"], row["literary_devices"]) == (4, 4, 0)
    assert row["comment_human_authorship"] == "too regular" and row["template_hash"]
    assert json.loads(row["parsed"])["theme"] == 5 and "```json" in row["response_text"]


def test_a_poem_identical_to_another_is_judged_independently(tmp_path: Path) -> None:
    from poemetric.providers.base import Completion

    # A model that recites the human original: same prompt, same poem text as the human row.
    use_scripted(lambda request, number: Completion(text=request.context["original"]))
    store = prepared_store(tmp_path, poems=2)
    run_generation(store, [scripted_spec(name="reciter")], options=FAST)
    poems = store.query("SELECT author, poem FROM generations ORDER BY poem, author")
    assert [r["author"] for r in poems] == ["human", "reciter"] * 2
    assert poems[0]["poem"] == poems[1]["poem"]
    with OpenAIServer(Answers(), api_key=TEST_KEY) as server:
        report = run_judging(store, openai_spec(server.base_url, name="j"), options=FAST)
        assert report.models[0].called == 4 and len(server.generation_requests) == 4
    assert store.count("response_cache", "provider = ?", ["openai-compatible"]) == 4


def test_unparsable_answer_is_reparsed_from_cache_then_refreshed(tmp_path: Path) -> None:
    store = judged_run(tmp_path)
    with OpenAIServer(Answers(garbled=6), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        judge = judge.model_copy(update={"reask": 0})  # re-asking is tested on its own
        options = dataclasses.replace(FAST, limit=1)
        report = run_judging(store, judge, options=options, authors=["machine"])  # type: ignore[arg-type]
        assert report.errors == 1 and len(server.generation_requests) == 1
        (row,) = store.query("SELECT * FROM judgments")  # type: ignore[attr-defined]
        assert row["status"] == "error" and "unparsable" in row["error"]
        assert row["response_text"].startswith("I would rate")

        # Next run: answered from the cache (re-parsed), no new call, still an error.
        again = run_judging(store, judge, options=options, authors=["machine"])  # type: ignore[arg-type]
        assert again.models[0].from_cache == 1 and len(server.generation_requests) == 1

        # --refresh-failed-parses pays for a new answer; still garbled, then valid.
        refresh = dataclasses.replace(options, refresh_failed_parses=True)
        run_judging(store, judge, options=refresh, authors=["machine"])  # type: ignore[arg-type]
        assert len(server.generation_requests) == 2
        server.responder = Answers(garbled=0)
        final = run_judging(store, judge, options=refresh, authors=["machine"])  # type: ignore[arg-type]
        assert final.models[0].ok == 1 and len(server.generation_requests) == 3
        (row,) = store.query("SELECT * FROM judgments")  # type: ignore[attr-defined]
        assert row["status"] == "ok" and row["attempts"] == 4
        # The refreshed answer replaced the cache entry.
        (cached,) = store.query(
            "SELECT completion FROM response_cache WHERE cache_key = ?", (row["cache_key"],)
        )  # type: ignore[attr-defined]
        assert VALID_JUDGE_ANSWER in json.loads(cached["completion"])["text"]


def test_the_summary_does_not_promise_to_retry_unparsable_answers(tmp_path: Path) -> None:
    """Under the summary, an unparsable answer was one of the "job(s) ended in error; ...
    retried by the next run": the next run re-parsed it from the cache, asked nothing, and said
    the same again."""
    from rich.console import Console

    store = judged_run(tmp_path)
    with OpenAIServer(Answers(garbled=1), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        judge = judge.model_copy(update={"reask": 0})
        options = dataclasses.replace(FAST, limit=2)
        report = run_judging(store, judge, options=options, authors=["machine"])  # type: ignore[arg-type]
    assert report.errors == 1 and report.models[0].unparsable == 1
    console = Console(record=True, width=300)
    report.render(console)
    text = console.export_text()
    assert "retried by the next run" not in text
    assert (
        "1 answer could not be parsed; it is stored with the raw response, and the next run "
        "re-parses it from the cache without asking again; --refresh-failed-parses pays for "
        "new answers."
    ) in text


def test_judge_cli_without_judge_explains_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POEMETRIC_JUDGE", raising=False)
    result = CliRunner().invoke(app, ["judge", "--run", str(tmp_path)])
    assert result.exit_code == 2
    assert "GEMINI_API_KEY" in result.output and "--judge gemini-2.5-pro" in result.output
    assert "local-openai" in result.output


def test_judge_cli_dry_run(tmp_path: Path) -> None:
    judged_run(tmp_path)
    result = CliRunner().invoke(
        app, ["judge", "--run", str(tmp_path), "--judge", "gemini-2.5-pro", "--dry-run", "--batch"]
    )
    assert result.exit_code == 0, result.output
    assert "dry run" in result.output and "Nothing was" in result.output
    # A judge writes no poem: the note said "output from a typical poem length".
    assert "typical answer length" in " ".join(result.output.split())


def test_judge_cli_refuses_unknown_authors(tmp_path: Path) -> None:
    judged_run(tmp_path)
    result = CliRunner().invoke(
        app,
        ["judge", "--run", str(tmp_path), "--judge", "gemini-2.5-pro", "--dry-run",
         "--authors", "human,gtp-4o"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "gtp-4o" in result.output and "machine" in result.output  # names the run's authors


def test_reparse_rewrites_comments_and_clears_them_from_a_rejected_answer(tmp_path: Path) -> None:
    """`judge reparse` compared the scores only: a change of comments alone was counted as
    unchanged and not written, and a row turned into an error kept its old comments (and its
    refusal flag) beside the error."""
    from poemetric.judge.reparse import reparse_run

    store = judged_run(tmp_path)
    with OpenAIServer(Answers(), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        options = dataclasses.replace(FAST, limit=2)
        run_judging(store, judge, options=options, authors=["machine"])  # type: ignore[arg-type]
    first, second = store.query("SELECT * FROM judgments ORDER BY judgment_id")  # type: ignore[attr-defined]
    assert first["comment_overall_quality"] == "solid" and first["refusal"] == 0
    new_comment = VALID_JUDGE_ANSWER.replace('"solid"', '"uneven, but alive"')
    refusal = "I'm sorry, but I can't help with rating this poem."
    with store.transaction() as conn:  # type: ignore[attr-defined]
        for identifier, text in ((first["judgment_id"], new_comment), (second["judgment_id"], refusal)):  # fmt: skip
            conn.execute(
                "UPDATE judgments SET response_text = ? WHERE judgment_id = ?", (text, identifier)
            )

    result = reparse_run(store)  # type: ignore[arg-type]

    assert result.values_changed == [(first["judgment_id"], ["comment_overall_quality changed"])]
    assert [identifier for identifier, _ in result.now_rejected] == [second["judgment_id"]]
    ok, rejected = store.query("SELECT * FROM judgments ORDER BY judgment_id")  # type: ignore[attr-defined]
    assert ok["status"] == "ok" and ok["comment_overall_quality"] == "uneven, but alive"
    assert rejected["status"] == "error" and rejected["refusal"] == 1
    assert rejected["form"] is None and rejected["comment_overall_quality"] is None
    assert rejected["comment_literary_devices"] is None


def test_a_dry_run_counts_the_reasks_of_cached_answers_as_paid(tmp_path: Path) -> None:
    """An unusable answer whose re-ask was not sent (a stop between the two; here `reask: 0`,
    then 1) is an error row with the answer cached. The plan counted it as cached, costing
    nothing, and "0 call(s) planned": the next run paid for its re-ask. The plan counts the
    re-asks as calls, in the estimate, and says so."""
    from rich.console import Console

    store = judged_run(tmp_path)
    with OpenAIServer(Answers(garbled=2), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        options = dataclasses.replace(FAST, limit=2)
        first = run_judging(
            store, judge.model_copy(update={"reask": 0}), options=options, authors=["machine"]
        )  # type: ignore[arg-type]
        assert first.models[0].errors == 2 and len(server.generation_requests) == 2

        plan = run_judging(
            store, judge, options=dataclasses.replace(options, dry_run=True), authors=["machine"]
        )  # type: ignore[arg-type]
        planned = plan.models[0]
        assert (planned.from_cache, planned.pending, planned.from_cache_to_call) == (2, 0, 2)
        assert planned.estimated_cost_usd > 0 and planned.estimated_input_tokens > 0
        assert "2 calls planned" in plan.summary_line()
        console = Console(record=True, width=300)
        plan.render(console)
        assert "test-judge: 2 cached answers unusable and not re-asked yet" in console.export_text()
        assert len(server.generation_requests) == 2  # the plan called nothing

        resumed = run_judging(store, judge, options=options, authors=["machine"])  # type: ignore[arg-type]
        assert (resumed.models[0].ok, resumed.models[0].reasked) == (2, 2)
        assert len(server.generation_requests) == 4  # the 2 re-asks planned, paid

        # Answered now: nothing left to pay for.
        again = run_judging(
            store, judge, options=dataclasses.replace(options, dry_run=True), authors=["machine"]
        )  # type: ignore[arg-type]
        assert (again.models[0].from_cache_to_call, again.models[0].estimated_cost_usd) == (0, 0.0)
