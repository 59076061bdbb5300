"""Structured outputs and re-asking, through the real SDKs against the three local protocol
servers (OpenAI json_schema strict, Anthropic tool use, Gemini response_json_schema)."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    prepared_store,
    scripted_spec,
    use_scripted,
)

from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    ModelSpec,
    Provider,
    ProviderError,
)
from poemetric.providers.registry import register_provider
from poemetric.store import RunStore
from poemetric.testing.servers import (
    AnthropicServer,
    ChatCall,
    GeminiServer,
    LocalServer,
    OpenAIServer,
    Reply,
    ResponderError,
)

ANSWER = {"1": 4, "2": 5, "3": 3, "4": 4, "5": 2, "6": 3, "7": 4, "8": 0, "9": "none used",
          "10": 4, "11": "solid", "12": 2, "13": "too regular"}  # fmt: skip
DIALECTS: dict[str, tuple[type[LocalServer], str, str]] = {
    "openai": (OpenAIServer, "openai", "gpt-test"),
    "anthropic": (AnthropicServer, "anthropic", "claude-test"),
    "google": (GeminiServer, "google", "gemini-test"),
}
STRUCTURED_MODE = {
    "openai": "json_schema",
    "anthropic": "tool_use",
    "google": "response_json_schema",
}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def judge_spec(dialect: str, base_url: str, **fields: Any) -> ModelSpec:
    _, provider, model = DIALECTS[dialect]
    data: dict[str, Any] = {
        "name": f"{dialect}-judge",
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "api_key_env": TEST_KEY_ENV,
        "pricing": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
        "limits": {"max_concurrency": 2, "timeout_s": 10, "max_retries": 2},
        **fields,
    }
    return ModelSpec.model_validate(data)


def one_poem_run(tmp_path: Path) -> RunStore:
    use_scripted()
    store = prepared_store(tmp_path, poems=1)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    return store


ONE = dataclasses.replace(FAST, limit=1)


def judgment(store: RunStore) -> dict[str, Any]:
    (row,) = store.query("SELECT * FROM judgments WHERE judge LIKE '%-judge'")
    return dict(row)


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_structured_output_is_requested_and_read(tmp_path: Path, dialect: str) -> None:
    store = one_poem_run(tmp_path)

    def respond(call: ChatCall) -> Reply:
        assert call.schema is not None and call.schema["required"] == [str(q) for q in range(1, 14)]
        return Reply(text="", structured=ANSWER)

    server_class = DIALECTS[dialect][0]
    with server_class(respond, api_key=TEST_KEY) as server:
        spec = judge_spec(dialect, server.base_url, structured="auto")
        report = run_judging(store, spec, options=ONE, authors=["machine"])
        assert report.models[0].ok == 1 and report.errors == 0
        (request,) = server.generation_requests
    row = judgment(store)
    assert row["status"] == "ok" and row["structured"] == STRUCTURED_MODE[dialect]
    assert (row["form"], row["literary_devices"], row["overall_quality"]) == (4, 0, 4)
    assert json.loads(row["response_text"]) == ANSWER
    if dialect == "anthropic":  # the answer came as a tool_use block, forced by tool_choice
        assert request.body["tool_choice"] == {"type": "tool", "name": "poemetric_judgment"}
        assert json.loads(row["raw_response"])["content"][0]["type"] == "tool_use"


def test_a_non_strict_schema_is_refused_by_the_openai_server() -> None:
    import openai

    with OpenAIServer(api_key=TEST_KEY) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key=TEST_KEY, max_retries=0)
        loose = {"type": "object", "properties": {"1": {"type": "integer"}}}
        with pytest.raises(openai.BadRequestError, match="additionalProperties"):
            client.chat.completions.create(
                model="gpt-test",
                messages=[{"role": "user", "content": "hi"}],
                response_format={"type": "json_schema",
                                 "json_schema": {"name": "x", "schema": loose, "strict": True}},
            )  # fmt: skip


def test_a_structured_refusal_is_kept_and_counted_as_a_refusal(tmp_path: Path) -> None:
    """OpenAI answers a refusal under structured outputs in the message's `refusal`, with
    `content` null: the judgment stored an empty answer ("the response is empty"), counted as a
    parse failure and not as a refusal, and the refusal's text was only in the raw response."""
    from poemetric.analysis.judges import judge_report

    store = one_poem_run(tmp_path)
    declined = "I'm sorry, but I can't help with evaluating this poem."
    with OpenAIServer(lambda call: Reply(text="", refusal=declined), api_key=TEST_KEY) as server:
        spec = judge_spec("openai", server.base_url, structured="auto", reask=0)
        run_judging(store, spec, options=ONE, authors=["machine"])
    row = judgment(store)
    assert row["status"] == "error" and row["response_text"] == declined
    assert row["refusal"] == 1 and "declined to answer (refusal)" in row["error"]
    (judge,) = judge_report(store).to_dict("records")
    assert (judge["parse_failures"], judge["first_turn_refusals"], judge["final_refusals"]) == (
        1,
        1,
        1,
    )


class Reasker:
    """Answers garbled first; answers properly once told why the first answer was unusable.

    `fail_follow_ups` follow-up turns are refused with HTTP 400 (a call failure, not a parse one).
    """

    def __init__(self, *, garble_always: bool = False, fail_follow_ups: int = 0) -> None:
        self.garble_always = garble_always
        self.fail_follow_ups = fail_follow_ups
        self.lock = threading.Lock()

    def __call__(self, call: ChatCall) -> str:
        if len(call.messages) == 1 or self.garble_always:
            return "Overall I would say 3-4; a fine sonnet."
        with self.lock:
            if self.fail_follow_ups > 0:
                self.fail_follow_ups -= 1
                raise ResponderError(400, "follow-up refused once")
        assert call.messages[1]["role"] == "assistant"
        assert "no answer to the questionnaire" in call.messages[2]["content"]
        return "```json\n" + json.dumps(ANSWER) + "\n```"


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_an_unparsable_answer_is_reasked_once_with_the_reason(tmp_path: Path, dialect: str) -> None:
    store = one_poem_run(tmp_path)
    server_class = DIALECTS[dialect][0]
    with server_class(Reasker(), api_key=TEST_KEY) as server:
        spec = judge_spec(dialect, server.base_url)
        report = run_judging(store, spec, options=ONE, authors=["machine"])
        model = report.models[0]
        assert (model.ok, model.errors, model.reasked, model.called) == (1, 0, 1, 2)
        assert len(server.generation_requests) == 2
        row = judgment(store)
        assert row["status"] == "ok" and row["reasks"] == 1 and row["overall_quality"] == 4
        (first,) = json.loads(row["turns"])
        assert first["response_text"].startswith("Overall I would say 3-4")
        assert "no answer to the questionnaire" in first["error"]
        assert row["cost_usd"] > first["cost_usd"] > 0  # both turns were paid

        # Rows lost: both turns come back from the cache, nothing is asked again.
        store.conn.execute("DELETE FROM judgments")
        again = run_judging(store, spec, options=ONE, authors=["machine"])
        assert again.models[0].called == 0 and len(server.generation_requests) == 2
        assert judgment(store)["status"] == "ok" and judgment(store)["reasks"] == 1


def test_reask_is_bounded_and_every_turn_is_kept(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    with OpenAIServer(Reasker(garble_always=True), api_key=TEST_KEY) as server:
        spec = judge_spec("openai", server.base_url, reask=2)
        report = run_judging(store, spec, options=ONE, authors=["machine"])
        assert report.errors == 1 and len(server.generation_requests) == 3
        row = judgment(store)
        assert row["status"] == "error" and row["reasks"] == 2
        assert [t["turn"] for t in json.loads(row["turns"])] == [0, 1]
        # The next run re-parses all three turns from the cache: no call.
        run_judging(store, spec, options=ONE, authors=["machine"])
        assert len(server.generation_requests) == 3


def test_a_failed_follow_up_resumes_without_buying_the_first_turn_again(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    with GeminiServer(Reasker(fail_follow_ups=1), api_key=TEST_KEY) as server:
        spec = judge_spec("google", server.base_url)
        first = run_judging(store, spec, options=ONE, authors=["machine"])
        assert first.errors == 1 and judgment(store)["status"] == "error"
        assert "follow-up refused" in judgment(store)["error"]
        second = run_judging(store, spec, options=ONE, authors=["machine"])
        assert second.models[0].ok == 1 and second.models[0].called == 1
        assert len(server.generation_requests) == 3  # turn 0, refused follow-up, follow-up
        assert judgment(store)["reasks"] == 1


def test_reask_after_a_batch_goes_through_the_synchronous_api(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    with OpenAIServer(Reasker(), api_key=TEST_KEY, batch_polls_in_progress=1) as server:
        spec = judge_spec("openai", server.base_url)
        options = dataclasses.replace(ONE, batch=True, batch_poll_s=0.01)
        report = run_judging(store, spec, options=options, authors=["machine"])
        assert report.models[0].ok == 1 and report.models[0].reasked == 1
        batches = [r for r in server.requests if r.method == "POST" and r.path.endswith("/batches")]
        assert len(batches) == 1 and len(server.generation_requests) == 1  # the follow-up
    row = judgment(store)
    assert row["status"] == "ok" and row["reasks"] == 1 and row["batch_id"] is None


class ChunkJudge(Provider):
    """An offline engine (answers many requests per call): garbled first turns."""

    name: ClassVar[str] = "chunk-judge"
    remote: ClassVar[bool] = False
    prefers_batches: ClassVar[bool] = True
    chunks: ClassVar[list[int]] = []

    async def generate(self, request: GenerationRequest) -> Completion:
        raise ProviderError("use generate_batch", retryable=False)

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        type(self).chunks.append(len(requests))
        return [
            Completion(text="3-4 overall" if len(r.messages) == 1 else json.dumps(ANSWER))
            for r in requests
        ]


def test_reask_with_an_offline_engine_goes_into_a_later_chunk(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    register_provider("chunk-judge", ChunkJudge)
    ChunkJudge.chunks = []
    spec = ModelSpec.model_validate({"name": "engine", "provider": "chunk-judge", "model": "m"})
    report = run_judging(store, spec, options=dataclasses.replace(FAST, limit=1))
    assert report.models[0].ok == 2 and report.models[0].reasked == 2
    assert ChunkJudge.chunks == [2, 2]  # both poems, then both follow-ups
