"""vLLM adapter against a small in-test double of vLLM's documented offline interface.

vLLM cannot be installed on the CI machines (no GPU, no CPU wheel on PyPI), so `vllm.LLM` and
`vllm.SamplingParams` are replaced through `sys.modules` by doubles that follow vLLM's documented
signatures and defaults (notably `SamplingParams.max_tokens == 16`). See docs/providers.md.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ProviderError,
    VLLMOptions,
)
from poemetric.providers.vllm_provider import VLLMProvider


@dataclass
class FakeSamplingParams:
    """vLLM's SamplingParams fields used here, with vLLM's defaults."""

    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    min_p: float = 0.0
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    seed: int | None = None
    stop: list[str] | None = None
    max_tokens: int | None = 16
    structured_outputs: Any = None  # vLLM >= 0.11
    guided_decoding: Any = None  # earlier releases

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}.")


@dataclass
class FakeCompletionOutput:
    text: str
    token_ids: list[int]
    finish_reason: str = "stop"
    stop_reason: Any = None


@dataclass
class FakeRequestOutput:
    request_id: str
    prompt_token_ids: list[int]
    outputs: list[FakeCompletionOutput]
    #: The prompt as the chat template rendered it (vLLM's `RequestOutput.prompt`).
    prompt: str | None = None


class FakeTokenizer:
    def apply_chat_template(
        self,
        conversation: list[dict[str, str]],
        tokenize: bool,
        add_generation_prompt: bool,
        **_: Any,
    ) -> list[int]:
        words = sum(len(m["content"].split()) + 2 for m in conversation)  # role markers
        return list(range(words + (1 if add_generation_prompt else 0)))


@dataclass
class FakeLLM:
    """Records what the adapter does with the engine; answers deterministically."""

    instances: Any = field(default=None, init=False, repr=False)
    model: str = ""
    init_kwargs: dict[str, Any] = field(default_factory=dict)
    chat_calls: list[tuple[list[Any], list[FakeSamplingParams], dict[str, Any]]] = field(
        default_factory=list
    )
    generation_config: dict[str, Any] = field(default_factory=dict)
    #: The engine's `generation_config` when not passed: "auto" from vLLM 0.8, None before.
    engine_default: str | None = "auto"
    #: The chat template opens the `<think>` block (DeepSeek-R1 distills, QwQ): the prompt ends
    #: with "<think>\n" and the answer holds only the closing tag.
    opens_think: bool = False

    def get_default_sampling_params(self) -> FakeSamplingParams:
        """The model's generation config when the engine loaded it, else vLLM's own defaults."""
        if self.init_kwargs.get("generation_config", self.engine_default) != "auto":
            return FakeSamplingParams()
        return FakeSamplingParams(**self.generation_config)

    def get_tokenizer(self) -> FakeTokenizer:
        return FakeTokenizer()

    @property
    def llm_engine(self) -> Any:
        length = self.init_kwargs.get("max_model_len", 4096)
        return types.SimpleNamespace(model_config=types.SimpleNamespace(max_model_len=length))

    def chat(
        self, messages: list[Any], sampling_params: list[FakeSamplingParams], **kwargs: Any
    ) -> list[FakeRequestOutput]:
        self.chat_calls.append((messages, sampling_params, kwargs))
        outputs = []
        for number, (conversation, params) in enumerate(
            zip(messages, sampling_params, strict=True)
        ):
            prompt = conversation[-1]["content"]
            if prompt == "explode":
                raise ValueError("prompt contains a forbidden token")
            answer = f"<think>hmm</think> poem about {prompt}"
            rendered = None
            if self.opens_think:
                answer = f"The user wants a poem. </think> poem about {prompt}"
                rendered = f"<｜User｜>{prompt}<｜Assistant｜><think>\n"
            words = answer.split()[: params.max_tokens]
            outputs.append(
                FakeRequestOutput(
                    request_id=str(len(self.chat_calls) * 100 + number),
                    prompt_token_ids=FakeTokenizer().apply_chat_template(conversation, True, True),
                    outputs=[
                        FakeCompletionOutput(
                            " ".join(words),
                            list(range(len(words))),
                            "length" if len(words) < len(answer.split()) else "stop",
                        )
                    ],
                    prompt=rendered,
                )
            )
        return outputs


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[FakeLLM]]:
    engines: list[FakeLLM] = []
    generation_config = {"temperature": 0.6, "top_p": 0.95, "top_k": 20}

    def make_llm(**kwargs: Any) -> FakeLLM:
        engine = FakeLLM(
            model=kwargs["model"],
            init_kwargs=kwargs,
            generation_config=generation_config,
            engine_default=getattr(module, "engine_default", "auto"),
        )
        engines.append(engine)
        return engine

    module = types.ModuleType("vllm")
    module.LLM = make_llm  # type: ignore[attr-defined]
    module.SamplingParams = FakeSamplingParams  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    yield engines


def make_spec(**kwargs: Any) -> ModelSpec:
    fields: dict[str, Any] = {"name": "qwen", "provider": "vllm", "model": "/models/qwen3-8b"}
    fields.update(kwargs)
    return ModelSpec(**fields)


def request(text: str = "the sea", **settings: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=(ChatMessage(role="user", content=text),), settings=GenerationSettings(**settings)
    )


def batch(
    provider: VLLMProvider, requests: list[GenerationRequest]
) -> list[Completion | ProviderError]:
    return asyncio.run(provider.generate_batch(requests))


def test_engine_options_are_passed(fake_vllm: list[FakeLLM]) -> None:
    options = VLLMOptions(tensor_parallel_size=2, pipeline_parallel_size=2, max_model_len=8192,
                          dtype="bfloat16", gpu_memory_utilization=0.8,
                          engine_kwargs={"enforce_eager": True})  # fmt: skip
    provider = VLLMProvider(make_spec(vllm=options, settings=GenerationSettings(seed=7)))
    assert fake_vllm == []  # nothing loads before the first request
    batch(provider, [request()])
    assert fake_vllm[0].init_kwargs == {
        "model": "/models/qwen3-8b", "tensor_parallel_size": 2, "pipeline_parallel_size": 2,
        "max_model_len": 8192, "dtype": "bfloat16", "gpu_memory_utilization": 0.8,
        "trust_remote_code": False, "seed": 7, "generation_config": "auto", "enforce_eager": True,
    }  # fmt: skip


def test_all_requests_go_in_one_chat_call(fake_vllm: list[FakeLLM]) -> None:
    provider = VLLMProvider(make_spec())
    results = batch(provider, [request(f"topic {i}") for i in range(5)])
    assert VLLMProvider.prefers_batches and not VLLMProvider.remote
    assert len(fake_vllm[0].chat_calls) == 1
    conversations, _, kwargs = fake_vllm[0].chat_calls[0]
    assert len(conversations) == 5 and conversations[0] == [{"role": "user", "content": "topic 0"}]
    assert kwargs["use_tqdm"] is False
    first = results[0]
    assert isinstance(first, Completion)
    assert first.text == "<think>hmm</think> poem about topic 0"  # raw text kept
    assert first.usage.input_tokens == 5 and first.usage.output_tokens == 5
    assert first.finish_reason == "stop" and first.request_id == "100"


def test_model_generation_config_applies_and_max_tokens_is_not_16(fake_vllm: list[FakeLLM]) -> None:
    provider = VLLMProvider(make_spec(vllm=VLLMOptions(max_model_len=2048)))
    batch(provider, [request("a b c")])
    params = fake_vllm[0].chat_calls[0][1][0]
    assert (params.temperature, params.top_p, params.top_k) == (0.6, 0.95, 20)
    assert params.max_tokens == 2048 - 6  # rest of the context after the templated prompt
    assert params.seed is None and params.stop is None


@pytest.mark.parametrize("engine_default", [None, "auto"], ids=["vllm-0.7", "vllm-0.8"])
def test_model_generation_config_applies_on_every_supported_vllm(
    fake_vllm: list[FakeLLM], engine_default: str | None
) -> None:
    """vLLM 0.7 (allowed by the `vllm` extra) loads the model's generation_config.json only when
    the engine is asked to: the Qwen2.5 and R1-distill runs sampled at vLLM's temperature 1.0 and
    top_p 1 instead of the models' defaults."""
    sys.modules["vllm"].engine_default = engine_default  # type: ignore[attr-defined]
    batch(VLLMProvider(make_spec(vllm=VLLMOptions(max_model_len=2048))), [request()])
    params = fake_vllm[0].chat_calls[0][1][0]
    assert (params.temperature, params.top_p, params.top_k) == (0.6, 0.95, 20)


def test_engine_kwargs_can_ask_for_vllms_own_defaults(fake_vllm: list[FakeLLM]) -> None:
    options = VLLMOptions(engine_kwargs={"generation_config": "vllm"})
    batch(VLLMProvider(make_spec(vllm=options)), [request()])
    params = fake_vllm[0].chat_calls[0][1][0]
    assert (params.temperature, params.top_p, params.top_k) == (1.0, 1.0, 0)


def test_the_rest_of_the_context_counts_the_prompt_with_a_real_tokenizer(
    fake_vllm: list[FakeLLM], monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM's `get_tokenizer()` is a Hugging Face tokenizer, whose `apply_chat_template` answers
    a BatchEncoding from transformers 5 on (`return_dict=True` by default): its len() is 2 (its
    keys), so every prompt counted 2 tokens and max_tokens was the whole context less 2."""
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    words = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    words.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]")
    tokenizer.chat_template = (
        "{% for m in messages %}<{{ m.role }}> {{ m.content }} {% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    monkeypatch.setattr(FakeLLM, "get_tokenizer", lambda self: tokenizer)
    conversation = [{"role": "user", "content": "a sonnet about the sea at night"}]
    rendered = tokenizer.apply_chat_template(
        conversation, tokenize=False, add_generation_prompt=True
    )
    prompt_tokens = len(tokenizer(rendered)["input_ids"])
    assert prompt_tokens == 13  # "<", "user", ">", the 7 words, "<", "assistant", ">"

    provider = VLLMProvider(make_spec(vllm=VLLMOptions(max_model_len=2048)))
    batch(provider, [request("a sonnet about the sea at night")])
    assert fake_vllm[0].chat_calls[0][1][0].max_tokens == 2048 - prompt_tokens


def test_spec_settings_override_model_defaults(fake_vllm: list[FakeLLM]) -> None:
    provider = VLLMProvider(make_spec())
    settings: dict[str, Any] = {"temperature": 0.0, "max_tokens": 3, "seed": 11, "stop": ("\n\n",),
                "extra": {"repetition_penalty": 1.1}}  # fmt: skip
    (result,) = batch(provider, [request(**settings)])
    params = fake_vllm[0].chat_calls[0][1][0]
    assert (params.temperature, params.top_p, params.max_tokens) == (0.0, 0.95, 3)
    assert params.seed == 11 and params.stop == ["\n\n"] and params.repetition_penalty == 1.1
    assert isinstance(result, Completion) and result.usage.output_tokens == 3


def test_default_max_tokens_option_and_chat_template_kwargs(fake_vllm: list[FakeLLM]) -> None:
    spec = make_spec(
        options={"default_max_tokens": 1000, "chat_template_kwargs": {"enable_thinking": True}}
    )
    batch(VLLMProvider(spec), [request()])
    _, params, kwargs = fake_vllm[0].chat_calls[0]
    assert params[0].max_tokens == 1000
    assert kwargs["chat_template_kwargs"] == {"enable_thinking": True}


def test_a_failing_request_is_isolated(fake_vllm: list[FakeLLM]) -> None:
    provider = VLLMProvider(make_spec())
    results = batch(provider, [request("one"), request("explode"), request("two")])
    assert isinstance(results[0], Completion) and isinstance(results[2], Completion)
    error = results[1]
    assert isinstance(error, ProviderError) and not error.retryable and "forbidden" in str(error)
    assert len(fake_vllm[0].chat_calls) == 4  # the batch, then each request alone


def test_bad_settings_fail_only_their_request(fake_vllm: list[FakeLLM]) -> None:
    provider = VLLMProvider(make_spec())
    results = batch(provider, [request(reasoning_effort="high"), request()])
    assert isinstance(results[0], ProviderError) and "reasoning_effort" in str(results[0])
    assert isinstance(results[1], Completion)


def test_prompt_longer_than_context_is_a_clear_error(fake_vllm: list[FakeLLM]) -> None:
    provider = VLLMProvider(make_spec(vllm=VLLMOptions(max_model_len=4)))
    with pytest.raises(ProviderError, match="whole context"):
        asyncio.run(provider.generate(request("far too many words for this")))


def test_missing_vllm_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` raise ImportError
    with pytest.raises(ProviderError, match=r"pip install 'poemetric\[vllm\]'") as caught:
        asyncio.run(VLLMProvider(make_spec()).generate(request()))
    assert not caught.value.retryable
    with pytest.raises(ProviderError, match=r"pip install 'poemetric\[vllm\]'"):
        VLLMProvider(make_spec()).preflight()  # the runner's check before any job


def test_importing_poemetric_does_not_import_vllm() -> None:
    code = (
        "import sys, poemetric, poemetric.providers.registry, poemetric.providers.vllm_provider;"
        "print('vllm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@dataclass
class FakeJsonConstraint:
    json: Any = None


@pytest.mark.parametrize("kind", ["StructuredOutputsParams", "GuidedDecodingParams", None])
def test_response_schema_becomes_guided_json(fake_vllm: list[FakeLLM], kind: str | None) -> None:
    from poemetric.providers.base import ResponseSchema

    module = sys.modules["vllm"]
    module.sampling_params = types.SimpleNamespace(**({kind: FakeJsonConstraint} if kind else {}))  # type: ignore[attr-defined]
    schema = {"type": "object", "properties": {"1": {"type": "integer"}}, "required": ["1"]}
    wanted = dataclasses.replace(request(), response_schema=ResponseSchema("answer", schema))
    (result,) = batch(VLLMProvider(make_spec()), [wanted])
    if kind is None:
        assert isinstance(result, ProviderError) and "structured: off" in str(result)
        return
    params = fake_vllm[0].chat_calls[0][1][0]
    field_name = "structured_outputs" if kind == "StructuredOutputsParams" else "guided_decoding"
    assert getattr(params, field_name) == FakeJsonConstraint(json=schema)


def test_a_stop_while_the_engine_loads_stops_the_stage_at_once(
    fake_vllm: list[FakeLLM], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine loads in the model's first chunk (minutes for a big model), which a stop
    counted as a request in flight: SIGTERM waited out the grace, then the whole load. The
    stage now stops at once and leaves the jobs for the resume, and the load ends in the
    background. In-process, as the model's own child process runs the stage."""
    import os
    import signal
    import threading
    import time

    from test_runner_support import FAST, prepared_store

    from poemetric.generation.stage import run_generation
    from poemetric.runner import loading, stopping

    vllm = sys.modules["vllm"]
    make_llm, loads, release = vllm.LLM, threading.Event(), threading.Event()

    def slow_llm(**kwargs: Any) -> FakeLLM:
        loads.set()
        release.wait(30)
        return make_llm(**kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(vllm, "LLM", slow_llm)
    monkeypatch.setattr(stopping, "_state", stopping._State())
    monkeypatch.setenv("POEMETRIC_STOP_GRACE", "5")
    signalled: list[float] = []

    def sigterm() -> None:
        if loads.wait(30):
            signalled.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGTERM)

    previous = signal.getsignal(signal.SIGTERM)
    stopping.install()
    try:
        with prepared_store(tmp_path / "run", poems=2) as store:
            threading.Thread(target=sigterm, daemon=True).start()
            with pytest.raises(KeyboardInterrupt):
                run_generation(
                    store, [make_spec()], options=dataclasses.replace(FAST, in_child=True)
                )
            took = time.monotonic() - signalled[0]
            assert store.count("generations", "author = 'qwen'") == 0  # all left for the resume
        assert loading.still_loading() and fake_vllm == []
    finally:
        release.set()
        signal.signal(signal.SIGTERM, previous)
    assert took < 3, f"stopped {took:.1f} s after SIGTERM (grace: 5 s)"
    for thread in loading._threads:
        thread.join(10)
    assert not loading.still_loading() and len(fake_vllm) == 1  # the load ended, once


def test_an_engine_that_cannot_load_is_tried_once_per_model(
    fake_vllm: list[FakeLLM], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed engine load was tried again for every request of the chunk (each one minutes
    for a big model, and on a GPU the first failure's leftovers could change the error); now
    once, and every request reports that failure."""
    attempts: list[dict[str, Any]] = []

    def failing_llm(**kwargs: Any) -> FakeLLM:
        attempts.append(kwargs)
        raise ValueError("the model's max seq len is larger than the KV cache")

    monkeypatch.setattr(sys.modules["vllm"], "LLM", failing_llm)
    provider = VLLMProvider(make_spec())
    provider.load()  # as the runner does before the first chunk: the failure waits for it
    results = batch(provider, [request(f"topic {i}") for i in range(3)])
    assert len(attempts) == 1
    for result in results:
        assert isinstance(result, ProviderError) and not result.retryable
        assert "could not load '/models/qwen3-8b': ValueError: the model's max seq" in str(result)


def test_an_answer_cut_inside_the_think_block_its_template_opened_is_not_a_poem(
    fake_vllm: list[FakeLLM],
) -> None:
    """An R1 distill's template ends the prompt with "<think>\\n": an answer cut before its
    `</think>` held no tag at all, and extraction stored its whole reasoning as the poem. The
    tag is put back in front of a free-text answer; a structured one is left as decoded."""
    from poemetric.extraction import extract_poem
    from poemetric.providers.base import ResponseSchema

    provider = VLLMProvider(make_spec(name="r1-distill"))
    provider.llm.opens_think = True  # type: ignore[attr-defined]
    cut, finished = batch(provider, [request(max_tokens=4), request(max_tokens=100)])
    assert isinstance(cut, Completion) and isinstance(finished, Completion)
    assert cut.finish_reason == "length"
    assert cut.text == "<think>\nThe user wants a"
    assert cut.raw["template_opened"] == "<think>\n"
    extracted = extract_poem(cut.text, cut.reasoning)
    assert extracted.poem == "" and extracted.reasoning == "The user wants a"
    as_before = extract_poem(finished.text.removeprefix("<think>\n"))  # what the engine wrote
    assert extract_poem(finished.text).poem == as_before.poem == " poem about the sea"
    assert extract_poem(finished.text).reasoning == as_before.reasoning == "The user wants a poem."

    module = sys.modules["vllm"]
    module.sampling_params = types.SimpleNamespace(StructuredOutputsParams=FakeJsonConstraint)  # type: ignore[attr-defined]
    schema = ResponseSchema(name="scores", schema={"type": "object"})
    structured = dataclasses.replace(request(max_tokens=4), response_schema=schema)
    (answer,) = batch(provider, [structured])
    assert isinstance(answer, Completion) and answer.text == "The user wants a"
    assert "template_opened" not in answer.raw

    plain = VLLMProvider(make_spec())
    (unchanged,) = batch(plain, [request(max_tokens=100)])
    assert isinstance(unchanged, Completion)
    assert unchanged.text == "<think>hmm</think> poem about the sea"
