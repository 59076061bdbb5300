"""An answer the provider withheld (Gemini `SAFETY`, a blocked prompt, OpenAI `content_filter`):
what `generate` stores and says. The real SDKs against the local protocol servers.

A Gemini answer blocked for safety comes back with no text and finish reason `SAFETY`. It was
stored as done (as OpenAI's `content_filter` and Anthropic's `refusal` answers are: the model's
answer to the prompt, not asked again by the run), but the summary called it an adapter that
does not read its service's text ("If the service did answer, its adapter is not reading the
answer's text"), and a poem a content filter cut short was stored and scored without a word.
Each model's answers that the provider, not the model, ended are now counted under the summary
with their finish reason. A prompt blocked before any answer (`promptFeedback.blockReason`) stays
an error that the next run asks again, named as such.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, prepared_store
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.generation.stage import run_generation
from poemetric.providers.base import ModelSpec
from poemetric.runner.stage_problems import render_problems
from poemetric.store import RunStore
from poemetric.testing.servers import (
    ChatCall,
    GeminiServer,
    OpenAIServer,
    Reply,
    ResponderError,
)

POEM = "Lines that return\nand return again"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


class SafetyServer(GeminiServer):
    """Gemini blocking the answer to every prompt that asks for a `blocked` poem (the first):
    a candidate without content, finish reason SAFETY; or, with `whole_prompt`, the prompt
    itself (no candidates, `promptFeedback.blockReason`)."""

    def __init__(self, *args: Any, whole_prompt: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.whole_prompt = whole_prompt
        self.blocked: set[str] = set()

    def render_response(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        body = super().render_response(call, reply)
        if not self.blocked:
            self.blocked.add(call.prompt)
        if call.prompt not in self.blocked:
            return body
        if self.whole_prompt:
            return {
                "promptFeedback": {"blockReason": "SAFETY"},
                "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
                "modelVersion": body["modelVersion"],
            }
        (candidate,) = body["candidates"]
        del candidate["content"]
        candidate["finishReason"] = "SAFETY"
        candidate["safetyRatings"] = [
            {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}
        ]
        body["usageMetadata"]["candidatesTokenCount"] = 0
        return body


def spec(provider: str, base_url: str) -> ModelSpec:
    return ModelSpec.model_validate(
        {
            "name": "poet",
            "provider": provider,
            "model": "gemini-test" if provider == "google" else "gpt-test",
            "base_url": base_url,
            "api_key_env": TEST_KEY_ENV,
            "limits": {"max_concurrency": 1, "timeout_s": 60, "max_retries": 1},
        }
    )


def generate(tmp_path: Path, model: ModelSpec) -> tuple[list[dict[str, Any]], str]:
    """The model's stored rows and the lines under the summary."""
    store = prepared_store(tmp_path, poems=3)
    report = run_generation(store, [model], options=FAST)
    out = io.StringIO()
    render_problems(report, Console(file=out, width=400))
    rows = store.query("SELECT * FROM generations WHERE author = ?", (model.name,))
    return [dict(row) for row in rows], out.getvalue()


def test_a_gemini_answer_blocked_for_safety_is_named_as_such(tmp_path: Path) -> None:
    with SafetyServer(lambda call: POEM, api_key=TEST_KEY) as server:
        rows, said = generate(tmp_path, spec("google", server.base_url))
    (blocked,) = [row for row in rows if row["poem"] != POEM]
    assert (blocked["status"], blocked["finish_reason"], blocked["poem"]) == ("ok", "SAFETY", "")
    assert len(rows) == 3 and all(row["status"] == "ok" for row in rows)
    assert "adapter is not reading" not in said, said
    assert (
        "poet: warning: 1 of 3 answers in the run was ended by the provider, not the model "
        "(finish reason 'SAFETY': 1, empty: 1)"
    ) in said, said
    assert "a run never asks again for a poem it holds" in said


def test_an_openai_answer_cut_by_its_content_filter_is_named(tmp_path: Path) -> None:
    cut: list[str] = []

    def respond(call: ChatCall) -> Reply:
        cut[:] = cut or [call.prompt]  # the first prompt asked
        if call.prompt == cut[0]:
            return Reply(text="Lines that", finish_reason="content_filter")
        return Reply(text=POEM)

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        rows, said = generate(tmp_path, spec("openai-compatible", server.base_url))
    (cut_row,) = [row for row in rows if row["poem"] != POEM]
    assert (cut_row["finish_reason"], cut_row["poem"]) == ("content_filter", "Lines that")
    assert (
        "poet: warning: 1 of 3 answers in the run was ended by the provider, not the model "
        "(finish reason 'content_filter': 1, empty: 0)"
    ) in said, said


def test_a_gemini_prompt_blocked_for_safety_is_an_error_the_next_run_asks_again(
    tmp_path: Path,
) -> None:
    with SafetyServer(lambda call: POEM, api_key=TEST_KEY, whole_prompt=True) as server:
        rows, said = generate(tmp_path, spec("google", server.base_url))
        asked = len(server.generation_requests)
    (blocked,) = [row for row in rows if row["status"] != "ok"]
    assert blocked["status"] == "error"
    assert blocked["error"] == "google: prompt blocked (block reason SAFETY)"
    assert len(rows) == 3
    assert asked == 3  # not retried within the run: the same prompt is blocked the same way
    assert (
        "1 job failed with an error that sending again does not change (e.g. an HTTP 400 bad "
        "request, a refused setting); it is stored with its error, and the next run sends it "
        "again as it is"
    ) in said, said
    assert "ended by the provider" not in said


@pytest.mark.parametrize("finish", ["eos", "eos_token"])
def test_a_compatible_servers_own_end_of_sequence_is_the_models_stop(
    tmp_path: Path, finish: str
) -> None:
    """Together answers `eos`, Hugging Face TGI (before 2.2.1) `eos_token`, where OpenAI says
    `stop`: the model ended its answer. Every such answer was counted as ended by the provider
    ("a safety or content filter, a refusal"), a warning under every run of such a model."""
    with OpenAIServer(
        lambda call: Reply(text=POEM, finish_reason=finish), api_key=TEST_KEY
    ) as server:
        rows, said = generate(tmp_path, spec("openai-compatible", server.base_url))
    assert [(row["status"], row["finish_reason"]) for row in rows] == [("ok", finish)] * 3
    assert "ended by the provider" not in said, said


def test_no_finish_reason_given_is_not_a_provider_stop() -> None:
    """Some compatible servers send `finish_reason: ""`: no reason given, as None, not a stop
    of the provider's (the warning would have named "finish reason ''")."""
    from poemetric.providers.finish_reasons import ended_by_provider

    assert not ended_by_provider("") and not ended_by_provider(None)
    assert ended_by_provider("SAFETY") and not ended_by_provider("eos")


def test_the_analysis_counts_the_answers_the_provider_ended(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """`generate` counted them under its summary, but the analysis said nothing: a blocked
    answer, empty, is a failed form check of its model and is left out of the judge and lexical
    measures (a cut one is analysed as written). Its run-data notes now count them per model,
    named as the tables name it (by display name: they said `poet`, the key)."""
    run = tmp_path / "run"
    env = {TEST_KEY_ENV: TEST_KEY, "COLUMNS": "400"}
    with SafetyServer(lambda call: POEM, api_key=TEST_KEY) as server:
        user_model(
            "generators",
            "poet",
            f"name: poet\ndisplay_name: Poet LM\nprovider: google\nmodel: gemini-test\n"
            f"base_url: {server.base_url}\n"
            f"api_key_env: {TEST_KEY_ENV}\nlimits: {{max_concurrency: 1}}\n",
        )
        command = ["generate", "--run", str(run), "--models", "poet", "--limit", "3"]
        generated = CliRunner().invoke(app, command, env=env)
        assert generated.exit_code == 0, generated.output
    checked = CliRunner().invoke(app, ["form", "run", "--run", str(run)], env=env)
    assert checked.exit_code == 0, checked.output
    with RunStore(run) as store:
        (failed,) = store.query(
            "SELECT f.passed FROM form_checks f JOIN generations g USING (generation_id) "
            "WHERE g.finish_reason = 'SAFETY'"
        )
    assert not failed["passed"]
    analyzed = CliRunner().invoke(app, ["analyze", "--run", str(run)], env=env)
    assert analyzed.exit_code == 0, analyzed.output
    note = (
        "1 generated answer was ended by the provider, not the model, by a safety or content "
        "filter, a refusal or another of its stops (Poet LM: 1 of 3, finish reason 'SAFETY': 1, "
        "empty: 1): 1 empty one is not a poem (a failed form check, left out of the judge and "
        "lexical measures), the others are analysed as written"
    )
    notes = " ".join((run / "analysis" / "NOTES.txt").read_text(encoding="utf-8").split())
    assert note in notes, notes
    assert note in " ".join(analyzed.output.split())


def test_errors_the_next_run_sends_again_are_said_by_kind(tmp_path: Path) -> None:
    """An HTTP 400 and a 503 still failing after the retries were both "ended in error; ...
    retried by the next run", as if the next run could change the 400's answer: the next run
    sends each again, and the 400 fails again as it is until its cause is changed."""
    asked: list[str] = []

    def respond(call: ChatCall) -> str:
        asked.append(call.prompt)
        first, *others = dict.fromkeys(asked)
        if call.prompt == first:
            raise ResponderError(400, "unsupported parameter")
        if others and call.prompt == others[0]:
            raise ResponderError(503, "overloaded")
        return POEM

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        rows, said = generate(tmp_path, spec("openai-compatible", server.base_url))
    assert sorted(str(row["error"]) for row in rows) == [
        "None",
        "openai-compatible: HTTP 400: unsupported parameter",
        "openai-compatible: HTTP 503: overloaded",
    ]
    said = " ".join(said.split())
    assert (
        "1 job failed with an error that sending again does not change (e.g. an HTTP 400 bad "
        "request, a refused setting); it is stored with its error, and the next run sends it "
        "again as it is: change what the error names (the model file, its settings) first."
    ) in said, said
    assert (
        "1 job still failed after its retries (a timeout, rate limit or server error); it is "
        "stored with its error and sent again by the next run."
    ) in said, said
    assert "retried by the next run" not in said
