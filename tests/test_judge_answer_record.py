"""What a judgment records of its answer's reasoning, refusal, truncation and structured mode,
and what a re-ask sends back: the real SDKs against the local protocol servers.

- A re-ask sent the first answer back whole, an inline `<think>` block included (models behind
  `openai-compatible`): the judge now sees its answer without its reasoning.
- An empty answer cut at the token limit (a reasoning model that spent `max_tokens` thinking)
  was stored as "the response is empty" and re-asked at the same limit, to be cut again and
  paid twice: its error now names the finish reason, the tokens and the limit, and it is not
  re-asked. An answer cut in its visible text is re-asked, the judge told why.
- An Anthropic judge with extended thinking (`tool_choice` auto) that answered in text was
  stored with `structured` = `tool_use`.
- A refusal after inline reasoning ("<think>...</think>I'm sorry, I can't") was an error naming
  a refusal with `refusal` 0, and the `judges` table missed it on an earlier turn.
- A re-asked judgment's `reasoning_tokens` counted its last turn only (its tokens and cost count
  every turn), and its earlier turns kept neither their reasoning nor their finish reason.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from test_judge_reask_stop import judged_run
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    prepared_store,
    scripted_spec,
    use_scripted,
)
from typer.testing import CliRunner

from poemetric.analysis.judges import judge_report
from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.judge.pending import judgment_errors
from poemetric.judge.stage import run_judging
from poemetric.providers.base import ModelSpec
from poemetric.store import RunStore
from poemetric.testing.servers import (
    AnthropicServer,
    ChatCall,
    GeminiServer,
    LocalServer,
    OpenAIServer,
    Reply,
)

ONE = dataclasses.replace(FAST, limit=1)
ANSWER = json.loads(VALID_JUDGE_ANSWER)
REFUSAL = "I'm sorry, but I can't help with evaluating this poem."
DIALECTS: dict[str, tuple[type[LocalServer], str, str]] = {
    "openai-compatible": (OpenAIServer, "openai-compatible", "r1-test"),
    "anthropic": (AnthropicServer, "anthropic", "claude-test"),
    "google": (GeminiServer, "google", "gemini-test"),
}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def one_poem_run(tmp_path: Path) -> RunStore:
    use_scripted()
    store = prepared_store(tmp_path, poems=1)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    return store


def judge_spec(dialect: str, base_url: str, **fields: Any) -> ModelSpec:
    _, provider, model = DIALECTS[dialect]
    return ModelSpec.model_validate(
        {
            "name": "test-judge",
            "provider": provider,
            "model": model,
            "base_url": base_url,
            "api_key_env": TEST_KEY_ENV,
            "pricing": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
            "limits": {"max_concurrency": 1, "timeout_s": 60, "max_retries": 2},
            **fields,
        }
    )


def judgment(store: RunStore) -> dict[str, Any]:
    (row,) = store.query("SELECT * FROM judgments WHERE judge = 'test-judge'")
    return dict(row)


@pytest.mark.parametrize(
    "thought",
    [
        "<think>Form 3 or 4? PRIVATE-REASONING, then some more of it.</think>",
        # an R1 chat template opens the block itself: only its closing tag is in the answer
        "Form 3 or 4? PRIVATE-REASONING, then some more of it.\n</think>\n",
    ],
)
def test_a_reask_sends_the_answer_back_without_its_inline_reasoning(
    tmp_path: Path, thought: str
) -> None:
    store = one_poem_run(tmp_path)

    def respond(call: ChatCall) -> str:
        if len(call.messages) == 1:
            return f"{thought}\nOverall I would say 3-4."
        return VALID_JUDGE_ANSWER

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url)
        report = run_judging(store, spec, options=ONE, authors=["machine"])
        assert report.models[0].ok == 1 and len(server.generation_requests) == 2
        reask = server.generation_requests[1].body["messages"]
    assert [m["role"] for m in reask] == ["user", "assistant", "user"]
    assert reask[1]["content"] == "Overall I would say 3-4."
    assert "PRIVATE-REASONING" not in json.dumps(reask)
    row = judgment(store)
    (first,) = json.loads(row["turns"])  # the answer as received is kept whole
    assert first["response_text"] == f"{thought}\nOverall I would say 3-4."


def test_an_answer_only_inside_reasoning_is_reasked_as_no_answer(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)

    def respond(call: ChatCall) -> str:
        if len(call.messages) == 1:
            return f"<think>PRIVATE {VALID_JUDGE_ANSWER}</think>"
        return VALID_JUDGE_ANSWER

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        run_judging(
            store,
            judge_spec("openai-compatible", server.base_url),
            options=ONE,
            authors=["machine"],
        )
        reask = server.generation_requests[-1].body["messages"]
    assert reask[1] == {"role": "assistant", "content": "(no answer)"}
    assert "inside the reasoning block" in reask[2]["content"]


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_an_empty_answer_cut_at_the_token_limit_is_not_reasked(
    tmp_path: Path, dialect: str
) -> None:
    store = one_poem_run(tmp_path)
    cut = Reply(text="", reasoning="weighing it " * 40, finish_reason="length")
    server_class = DIALECTS[dialect][0]
    settings: dict[str, Any] = {"max_tokens": 1500}
    if dialect == "anthropic":
        settings["reasoning_budget_tokens"] = 1024
    with server_class(lambda call: cut, api_key=TEST_KEY) as server:
        spec = judge_spec(dialect, server.base_url, settings=settings, reask=2)
        report = run_judging(store, spec, options=ONE, authors=["machine"])
        assert len(server.generation_requests) == 1  # not paid again for the same cut
        # The next run reads the stored answer again from the cache: still no call.
        run_judging(store, spec, options=ONE, authors=["machine"])
        assert len(server.generation_requests) == 1
    model = report.models[0]
    assert (model.errors, model.unparsable, model.reasked, model.reasks_due) == (1, 1, 0, 0)
    row = judgment(store)
    assert row["status"] == "error" and row["reasks"] == 0
    finish = {"openai-compatible": "length", "anthropic": "max_tokens", "google": "MAX_TOKENS"}
    error = row["error"]
    assert error.startswith("unparsable answer: the response is empty; cut at the token limit")
    assert f"finish reason '{finish[dialect]}'" in error and "max_tokens 1,500" in error
    assert "raise settings.max_tokens" in error and model.first_error == error
    errors = judgment_errors(store, "test-judge")  # a parse failure, not a pending re-ask
    assert (len(errors.pending), len(errors.failed)) == (0, 1)
    (table,) = judge_report(store).to_dict("records")
    assert table["parse_failures"] == 1 and "pending_reasks" not in table


def test_the_summary_says_how_many_answers_were_cut_and_what_to_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary named only each judge's first error: a judge whose answers were cut among
    other failures said nothing of the limit."""
    run = judged_run(tmp_path / "run")  # two poems of one prompt: the human's and markov's
    answers = iter([Reply(text="Overall 3-4."), Reply(text="", finish_reason="length")])
    with OpenAIServer(lambda call: next(answers), api_key=TEST_KEY) as server:
        folder = tmp_path / "judges"
        folder.mkdir()
        (folder / "test-judge.yaml").write_text(
            f"name: test-judge\nprovider: openai-compatible\nmodel: r1-test\n"
            f"base_url: {server.base_url}\napi_key_env: {TEST_KEY_ENV}\nreask: 0\n"
            "settings: {max_tokens: 700}\nlimits: {max_concurrency: 1}\n"
        )
        monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(folder))
        args = ["judge", "--run", str(run), "--judge", "test-judge", "--limit", "1"]
        result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    shown = " ".join(result.output.split())
    assert "2 errors, first: unparsable answer: no answer to the questionnaire" in shown
    assert (
        "test-judge: 1 answer in the run was cut at the token limit before any answer (max_tokens 700) and "
        "is not re-asked: raise settings.max_tokens in its judge file, and the next `poemetric "
        "judge` asks again." in shown
    )


def test_a_reasoning_model_cut_in_its_reasoning_reports_the_reasoning_tokens(
    tmp_path: Path,
) -> None:
    store = one_poem_run(tmp_path)
    cut = Reply(text="", reasoning="weighing it " * 40, finish_reason="length")
    with OpenAIServer(lambda call: cut, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url, settings={"max_tokens": 80})
        run_judging(store, spec, options=ONE, authors=["machine"])
    error = judgment(store)["error"]
    assert "finish reason 'length' after 80 output tokens, 80 of them reasoning" in error


def test_an_unterminated_reasoning_block_cut_at_the_limit_is_not_reasked(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    cut = Reply(text="<think>Let me weigh every line of it", finish_reason="length")
    with OpenAIServer(lambda call: cut, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url)
        run_judging(store, spec, options=ONE, authors=["machine"])
        assert len(server.generation_requests) == 1
    assert "max_tokens not set: the adapter's or the provider's default" in judgment(store)["error"]


def test_an_answer_cut_in_its_text_is_reasked_and_the_judge_told_why(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)

    def respond(call: ChatCall) -> Reply:
        if len(call.messages) == 1:
            return Reply(text='Here is my answer: {"1": 4, "2": 5, "3": 3', finish_reason="length")
        return Reply(text=VALID_JUDGE_ANSWER)

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url, settings={"max_tokens": 400})
        run_judging(store, spec, options=ONE, authors=["machine"])
        told = server.generation_requests[1].body["messages"][2]["content"]
    assert "the answer was cut at the token limit (finish reason 'length'" in told
    row = judgment(store)
    assert row["status"] == "ok" and row["reasks"] == 1
    (first,) = json.loads(row["turns"])
    assert first["finish_reason"] == "length" and "max_tokens 400" in first["error"]


@pytest.mark.parametrize(
    ("dialect", "finish"), [("openai-compatible", "content_filter"), ("google", "SAFETY")]
)
def test_an_answer_the_provider_withheld_names_its_finish_reason(
    tmp_path: Path, dialect: str, finish: str
) -> None:
    """ "the response is empty" alone hid that a filter, not the judge, ended the answer."""
    store = one_poem_run(tmp_path)
    withheld = Reply(text="", finish_reason=finish)
    with DIALECTS[dialect][0](lambda call: withheld, api_key=TEST_KEY) as server:
        spec = judge_spec(dialect, server.base_url, reask=0)
        run_judging(store, spec, options=ONE, authors=["machine"])
    assert judgment(store)["error"] == (
        "unparsable answer: the response is empty; the provider ended the answer with finish "
        f"reason '{finish}', not the model's own stop"
    )


def test_an_anthropic_thinking_judge_answering_in_text_is_stored_as_free_text(
    tmp_path: Path,
) -> None:
    """Extended thinking allows only `tool_choice: auto`, so the judge may write its answer."""
    store = one_poem_run(tmp_path)
    settings = {"reasoning_budget_tokens": 2000}
    text = Reply(text="```json\n" + VALID_JUDGE_ANSWER + "\n```", reasoning="Let me see.")
    with AnthropicServer(lambda call: text, api_key=TEST_KEY) as server:
        spec = judge_spec("anthropic", server.base_url, structured="auto", settings=settings)
        report = run_judging(store, spec, options=ONE, authors=["machine"])
        assert report.models[0].ok == 1, report.models[0].first_error
        assert server.generation_requests[0].body["tool_choice"] == {"type": "auto"}
    row = judgment(store)
    assert row["status"] == "ok" and row["structured"] == "free_text"
    assert row["reasoning"] == "Let me see."

    store.conn.execute("DELETE FROM judgments")  # the same judge answering with the tool
    tool = Reply(text="", structured=ANSWER, reasoning="Let me see.")
    with AnthropicServer(lambda call: tool, api_key=TEST_KEY) as server:
        spec = judge_spec("anthropic", server.base_url, structured="auto", settings=settings)
        run_judging(
            store, spec, options=dataclasses.replace(ONE, use_cache=False), authors=["machine"]
        )
    assert judgment(store)["structured"] == "tool_use"


def test_a_refusal_after_inline_reasoning_is_recorded_as_a_refusal(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    refused = f"<think>The user wants a rating. I would rather not.</think>\n{REFUSAL}"
    with OpenAIServer(lambda call: refused, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url, reask=0)
        run_judging(store, spec, options=ONE, authors=["machine"])
    row = judgment(store)
    assert "declined to answer (refusal)" in row["error"] and row["refusal"] == 1
    (table,) = judge_report(store).to_dict("records")
    assert (table["first_turn_refusals"], table["final_refusals"]) == (1, 1)


def test_a_refusal_after_reasoning_then_an_answer_counts_as_a_first_turn_refusal(
    tmp_path: Path,
) -> None:
    store = one_poem_run(tmp_path)
    refused = f"<think>The user wants a rating. I would rather not.</think>\n{REFUSAL}"

    def respond(call: ChatCall) -> str:
        return refused if len(call.messages) == 1 else VALID_JUDGE_ANSWER

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        run_judging(
            store,
            judge_spec("openai-compatible", server.base_url),
            options=ONE,
            authors=["machine"],
        )
    row = judgment(store)
    assert row["status"] == "ok" and row["refusal"] == 0
    assert json.loads(row["turns"])[0]["refusal"] == 1
    (table,) = judge_report(store).to_dict("records")
    assert (table["first_turn_refusals"], table["refusals_any_turn"]) == (1, 1)
    assert table["final_refusals"] == 0


def test_a_reasked_judgment_counts_the_reasoning_of_every_turn(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)

    def respond(call: ChatCall) -> Reply:
        if len(call.messages) == 1:
            return Reply(text="Overall 3-4.", reasoning="one two three four five six")
        return Reply(text=VALID_JUDGE_ANSWER, reasoning="seven eight nine")

    with OpenAIServer(respond, api_key=TEST_KEY, expose_reasoning_content=True) as server:
        run_judging(
            store,
            judge_spec("openai-compatible", server.base_url),
            options=ONE,
            authors=["machine"],
        )
        reask = server.generation_requests[1].body["messages"]
    assert "one two three" not in json.dumps(reask)  # reasoning_content is not sent back
    row = judgment(store)
    assert row["status"] == "ok" and row["reasoning"] == "seven eight nine"
    assert row["reasoning_tokens"] == 6 + 3  # as output_tokens and cost_usd: every turn
    (first,) = json.loads(row["turns"])
    assert (first["reasoning"], first["reasoning_tokens"]) == ("one two three four five six", 6)
    assert first["finish_reason"] == "stop"


def test_reparse_judges_a_refusal_outside_the_reasoning(tmp_path: Path) -> None:
    """`judge reparse` turning an answer into a refusal error set `refusal` from the whole text:
    0 for a refusal after inline reasoning, while its error said "declined to answer"."""
    from poemetric.judge.reparse import reparse_run

    store = one_poem_run(tmp_path)
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url)
        run_judging(store, spec, options=ONE, authors=["machine"])
    refused = f"<think>The user wants a rating. I would rather not.</think>\n{REFUSAL}"
    with store.transaction() as conn:
        conn.execute(
            "UPDATE judgments SET response_text = ? WHERE judge = 'test-judge'", (refused,)
        )

    result = reparse_run(store, ["test-judge"])

    assert len(result.now_rejected) == 1
    row = judgment(store)
    assert "declined to answer (refusal)" in row["error"] and row["refusal"] == 1


def test_a_recognise_answer_cut_at_the_token_limit_says_so(tmp_path: Path) -> None:
    from poemetric.judge.recognise import run_recognition

    store = prepared_store(tmp_path, poems=1)
    cut = Reply(text="<think>Is this Keats? Or perhaps", finish_reason="length")
    with OpenAIServer(lambda call: cut, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url, settings={"max_tokens": 300})
        run_recognition(store, [spec], options=FAST)
    (row,) = store.query("SELECT status, error FROM recognitions")
    assert row["status"] == "error" and row["error"] == (
        "unparsable answer: no {'title', 'author'} object in the answer; cut at the token limit "
        "before any answer (finish reason 'length' after 5 output tokens; max_tokens 300): raise "
        "settings.max_tokens in the judge file"
    )
