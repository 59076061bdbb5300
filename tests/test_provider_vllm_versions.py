"""The vLLM adapter on the shapes of vLLM's interface that differ between the releases the
`vllm` extra allows (`poemetric.providers.vllm_versions`), against the doubles of
`test_provider_vllm`."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from test_provider_vllm import (
    FakeCompletionOutput,
    FakeLLM,
    FakeRequestOutput,
    FakeSamplingParams,
    FakeTokenizer,
    batch,
    make_spec,
    request,
)
from test_provider_vllm import fake_vllm as fake_vllm  # the fixture

from poemetric.providers.base import Completion, ProviderError
from poemetric.providers.vllm_provider import VLLMProvider


class TemplateTokenizer(FakeTokenizer):
    """A Hugging Face tokenizer's `apply_chat_template(tokenize=False)` and `encode`, with a
    template that opens the reasoning block when asked to (Qwen3's `enable_thinking`)."""

    def render(self, conversation: list[dict[str, str]], **template_kwargs: Any) -> str:
        turns = " ".join(f"<{m['role']}> {m['content']}" for m in conversation)
        return f"{turns} <assistant>" + (
            " <think>" if template_kwargs.get("enable_thinking") else ""
        )

    def apply_chat_template(
        self, conversation: list[dict[str, str]], tokenize: bool, add_generation_prompt: bool,
        **template_kwargs: Any,
    ) -> Any:  # fmt: skip
        text = self.render(conversation, **template_kwargs)
        return self.encode(text, add_special_tokens=False) if tokenize else text

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        assert not add_special_tokens  # the template wrote them
        return [len(word) for word in text.split()]


class FakeLLMBefore09(FakeLLM):
    """vLLM 0.7-0.8.x: `LLM.chat` has no `chat_template_kwargs` (its signature then, no
    **kwargs); `LLM.generate` takes `TokensPrompt`s."""

    generated: list[tuple[list[Any], list[FakeSamplingParams]]]

    def get_tokenizer(self) -> TemplateTokenizer:
        return TemplateTokenizer()

    def chat(  # type: ignore[override]
        self, messages: list[Any], sampling_params: Any = None, use_tqdm: bool = True,
        lora_request: Any = None, chat_template: Any = None,
        chat_template_content_format: str = "auto", add_generation_prompt: bool = True,
        continue_final_message: bool = False, tools: Any = None, mm_processor_kwargs: Any = None,
    ) -> list[FakeRequestOutput]:  # fmt: skip
        return super().chat(messages, sampling_params, use_tqdm=use_tqdm)

    def generate(
        self, prompts: list[Any], sampling_params: Any = None, *, use_tqdm: bool = True
    ) -> list[FakeRequestOutput]:
        self.generated = [*getattr(self, "generated", []), (prompts, sampling_params)]
        return [
            FakeRequestOutput(str(n), p["prompt_token_ids"], [FakeCompletionOutput("a poem", [7])])
            for n, p in enumerate(prompts)
        ]


def test_chat_template_kwargs_reach_the_template_on_vllm_before_0_9(
    fake_vllm: list[FakeLLM], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`LLM.chat` takes `chat_template_kwargs` only from vLLM 0.9.0 (PR #17356): on 0.7-0.8.x,
    which the `vllm` extra allows, every request of a model file with
    `options.chat_template_kwargs` failed with "TypeError: ... unexpected keyword argument".
    The prompt is now rendered as those releases' `chat` does and sent to `LLM.generate`."""

    def old_llm(**kwargs: Any) -> FakeLLMBefore09:
        engine = FakeLLMBefore09(
            model=kwargs["model"], init_kwargs=kwargs, generation_config={"temperature": 0.6}
        )
        fake_vllm.append(engine)
        return engine

    monkeypatch.setattr(sys.modules["vllm"], "LLM", old_llm)
    spec = make_spec(options={"chat_template_kwargs": {"enable_thinking": True}})
    first, second = batch(VLLMProvider(spec), [request("the sea"), request("a long night")])
    assert isinstance(first, Completion) and isinstance(second, Completion), first
    engine = fake_vllm[0]
    assert isinstance(engine, FakeLLMBefore09) and engine.chat_calls == []
    ((prompts, params),) = engine.generated
    tokenizer = TemplateTokenizer()
    assert prompts == [
        {"prompt_token_ids": tokenizer.encode(text, add_special_tokens=False)}
        for text in (
            "<user> the sea <assistant> <think>",
            "<user> a long night <assistant> <think>",
        )
    ]
    assert [p.temperature for p in params] == [0.6, 0.6]  # the model's defaults, as with chat
    assert first.text == "a poem" and first.usage.input_tokens == 5

    (plain,) = batch(VLLMProvider(make_spec()), [request()])  # no template kwargs: `chat`
    assert isinstance(plain, Completion) and len(fake_vllm[1].chat_calls) == 1


@pytest.mark.parametrize("finish_reason", ["abort", "error"])
def test_an_output_the_engine_ended_is_asked_again(
    fake_vllm: list[FakeLLM], monkeypatch: pytest.MonkeyPatch, finish_reason: str
) -> None:
    """vLLM ends a request it aborted ("abort") or failed ("error", V1's retryable
    request-level failure) with whatever text it had: the adapter stored it as the model's
    answer (cut or empty), which a run never asks again. It is now a retryable error; the
    batch's other answers are kept."""
    chat = FakeLLM.chat

    def chat_with_a_failure(self: FakeLLM, *args: Any, **kwargs: Any) -> list[FakeRequestOutput]:
        outputs = chat(self, *args, **kwargs)
        outputs[1].outputs[0].finish_reason = finish_reason
        return outputs

    monkeypatch.setattr(FakeLLM, "chat", chat_with_a_failure)
    kept, failed, also_kept = batch(VLLMProvider(make_spec()), [request(), request(), request()])
    assert isinstance(kept, Completion) and isinstance(also_kept, Completion)
    assert isinstance(failed, ProviderError) and failed.retryable
    assert f"finish_reason {finish_reason!r}" in str(failed)


def test_an_engine_load_failing_with_any_exception_is_tried_once(
    fake_vllm: list[FakeLLM], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only ValueError, TypeError, OSError and RuntimeError from `vllm.LLM(...)` made a failed
    load final; vLLM also fails with its own asserts (AssertionError) and, with a transformers
    release it does not match, AttributeError or ImportError. Those were tried again for every
    chunk (4 loads for 6 jobs in chunks of 2, each minutes for a big model)."""
    attempts: list[dict[str, Any]] = []

    def failing_llm(**kwargs: Any) -> FakeLLM:
        attempts.append(kwargs)
        raise AttributeError("'Qwen3Config' object has no attribute 'rope_scaling'")

    monkeypatch.setattr(sys.modules["vllm"], "LLM", failing_llm)
    provider = VLLMProvider(make_spec())
    provider.load()
    results = [*batch(provider, [request(), request()]), *batch(provider, [request()])]
    assert len(attempts) == 1
    for result in results:
        assert isinstance(result, ProviderError) and not result.retryable
        assert "could not load '/models/qwen3-8b': AttributeError: 'Qwen3Config'" in str(result)
