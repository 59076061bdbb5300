"""Reasoning tokens a provider gives no figure for are unknown (NULL), not 0: the real SDKs
against the local protocol servers.

- Anthropic's usage counts extended thinking only inside `output_tokens`: every thinking
  answer was stored with `reasoning_tokens` 0, a claim that the model did not reason, which
  averaged in as such. It is now NULL (None) where the answer thought, and 0 where it did not.
- An OpenAI-compatible server that sends reasoning (`reasoning_content`) but no
  `completion_tokens_details` was stored with 0 reasoning tokens the same way.
- A response read back from the cache (or redacted) turned an unknown count into 0, and a
  re-asked judgment summed an unknown turn as 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_judge_answer_record import judge_spec, judgment, one_poem_run
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.providers.base import Completion, ModelSpec, TokenUsage
from poemetric.runner.completion_check import completion_problem
from poemetric.runner.jobs import completion_from_dict, completion_to_dict
from poemetric.testing.servers import AnthropicServer, ChatCall, OpenAIServer, Reply

POEM = "Do not go gentle into that good night"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def author_spec(provider: str, base_url: str, **settings: Any) -> ModelSpec:
    return ModelSpec.model_validate(
        {
            "name": "thinker",
            "provider": provider,
            "model": "thinker-test",
            "base_url": base_url,
            "api_key_env": TEST_KEY_ENV,
            "settings": settings,
            "limits": {"max_concurrency": 1, "timeout_s": 60, "max_retries": 1},
        }
    )


def generated_rows(tmp_path: Path, spec: ModelSpec) -> list[dict[str, Any]]:
    store = prepared_store(tmp_path, poems=1)
    run_generation(store, [spec], options=FAST)
    return [dict(row) for row in store.query("SELECT * FROM generations WHERE author = ?",
                                               (spec.name,))]  # fmt: skip


def test_an_anthropic_answer_that_thought_stores_unknown_reasoning_tokens(tmp_path: Path) -> None:
    with AnthropicServer(lambda call: Reply(text=POEM, reasoning="plan the refrains")) as server:
        (row,) = generated_rows(
            tmp_path, author_spec("anthropic", server.base_url, reasoning_budget_tokens=2048)
        )
    assert row["status"] == "ok" and row["reasoning"] == "plan the refrains"
    assert row["output_tokens"] == 8 + 3  # the thinking is in it, as billed
    assert row["reasoning_tokens"] is None


def test_an_anthropic_answer_without_thinking_stores_zero_reasoning_tokens(
    tmp_path: Path,
) -> None:
    with AnthropicServer(lambda call: Reply(text=POEM, reasoning="not asked for")) as server:
        (row,) = generated_rows(tmp_path, author_spec("anthropic", server.base_url))
    assert row["status"] == "ok" and row["reasoning"] is None
    assert row["reasoning_tokens"] == 0


class NoDetailsServer(OpenAIServer):
    """A compatible server (vLLM's, Ollama) that sends no `completion_tokens_details`."""

    def render_completion(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        body = super().render_completion(call, reply)
        del body["usage"]["completion_tokens_details"]
        return body


@pytest.mark.parametrize(("reasoning", "expected"), [("plan the refrains", None), (None, 0)])
def test_a_compatible_server_without_a_reasoning_count(
    tmp_path: Path, reasoning: str | None, expected: int | None
) -> None:
    with NoDetailsServer(
        lambda call: Reply(text=POEM, reasoning=reasoning), expose_reasoning_content=True
    ) as server:
        (row,) = generated_rows(tmp_path, author_spec("openai-compatible", server.base_url))
    assert row["status"] == "ok" and row["reasoning"] == reasoning
    assert row["reasoning_tokens"] == expected


class ZeroCountServer(OpenAIServer):
    """vLLM's server (and others built on it) counting 0 reasoning tokens in
    `completion_tokens_details` beside the reasoning it sends in a field of its own: its
    counter looks for the opening `<think>`, which an R1 chat template puts in the prompt."""

    def render_completion(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        body = super().render_completion(call, reply)
        body["usage"]["completion_tokens_details"] = {"reasoning_tokens": 0}
        return body


def test_a_zero_count_beside_reasoning_in_its_own_field_is_unknown(tmp_path: Path) -> None:
    with ZeroCountServer(
        lambda call: Reply(text=POEM, reasoning="plan the refrains"), expose_reasoning_content=True
    ) as server:
        (row,) = generated_rows(tmp_path, author_spec("openai-compatible", server.base_url))
    assert row["status"] == "ok" and row["reasoning"] == "plan the refrains"
    assert row["reasoning_tokens"] is None


def test_an_openai_count_of_zero_is_kept(tmp_path: Path) -> None:
    with OpenAIServer(lambda call: POEM) as server:
        (row,) = generated_rows(tmp_path, author_spec("openai-compatible", server.base_url))
    assert row["reasoning_tokens"] == 0


def test_an_unknown_count_survives_the_cache_round_trip() -> None:
    completion = Completion(text=POEM, usage=TokenUsage(3, 5, None))
    assert completion_problem(completion) is None  # a well-formed completion, not a bug
    back = completion_from_dict(json.loads(json.dumps(completion_to_dict(completion))))
    assert back.usage == TokenUsage(3, 5, None)


def test_a_reasked_judgment_with_an_unknown_turn_has_unknown_reasoning_tokens(
    tmp_path: Path,
) -> None:
    store = one_poem_run(tmp_path)

    def respond(call: ChatCall) -> Reply:
        if len(call.messages) == 1:
            return Reply(text="Overall 3-4.", reasoning="one two three")
        return Reply(text=VALID_JUDGE_ANSWER, reasoning="four five")

    with AnthropicServer(respond, api_key=TEST_KEY) as server:
        run_judging(
            store,
            judge_spec(
                "anthropic",
                server.base_url,
                settings={"reasoning_budget_tokens": 1024},
            ),
            options=FAST,
            authors=["machine"],
        )
    row = judgment(store)
    assert row["status"] == "ok" and row["reasoning"] == "four five"
    assert row["reasoning_tokens"] is None
    (first,) = json.loads(row["turns"])
    assert first["reasoning"] == "one two three" and first["reasoning_tokens"] is None
    assert row["output_tokens"] > 0  # the known counts still add up


@pytest.mark.parametrize(
    "answer",
    [
        f"<think>Three tercets, then a quatrain.</think>\n{POEM}",
        # an R1 chat template opens the block itself: only its closing tag is in the answer
        f"Three tercets, then a quatrain.\n</think>\n\n{POEM}",
    ],
)
def test_reasoning_inline_in_the_text_makes_a_zero_count_unknown(
    tmp_path: Path, answer: str
) -> None:
    """vLLM's and transformers' engines, and compatible servers, count no reasoning: a model
    that thinks inline (DeepSeek-R1 distills, QwQ) stored 0 reasoning tokens beside its
    reasoning."""
    with NoDetailsServer(lambda call: answer) as server:
        (row,) = generated_rows(tmp_path, author_spec("openai-compatible", server.base_url))
    assert row["poem"] == POEM and row["reasoning"] == "Three tercets, then a quatrain."
    assert row["reasoning_tokens"] is None


def test_an_anthropic_count_of_the_thinking_is_stored_where_the_api_gives_one(
    tmp_path: Path,
) -> None:
    """Recent releases of the API count the thinking in `output_tokens_details`."""
    with AnthropicServer(
        lambda call: Reply(text=POEM, reasoning="plan the refrains"), report_thinking_tokens=True
    ) as server:
        (row,) = generated_rows(
            tmp_path, author_spec("anthropic", server.base_url, reasoning_budget_tokens=2048)
        )
    assert row["output_tokens"] == 8 + 3 and row["reasoning_tokens"] == 3
