"""Open-weights models on local GPUs through vLLM's offline engine (`vllm.LLM` + `llm.chat`).

vLLM is imported lazily, inside the class: importing POEMetric never imports vLLM, and a missing
installation gives a clear error only when a vLLM model is actually run.

Sampling follows the paper's "model default" rule explicitly. vLLM's bare `SamplingParams()`
would generate 16 tokens at temperature 1.0, ignoring the model's `generation_config.json`; so
every request starts from `llm.get_default_sampling_params()` (the model's own generation config,
loaded because the engine is made with `generation_config="auto"`, vLLM's default only from 0.8),
then the model file's non-None settings override it, and when no `max_tokens` comes from either,
the request may use the rest of the context window (`max_model_len` minus the prompt's tokens
after the chat template), or `options.default_max_tokens` when the model file sets one.
"""

from __future__ import annotations

import logging
import threading
from contextlib import suppress
from typing import Any, ClassVar

from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ProviderError,
    TokenUsage,
    VLLMOptions,
    refuse_settings,
)
from poemetric.providers.batched import InProcessBatchProvider
from poemetric.providers.extra_keys import SAMPLING, refused_extra
from poemetric.providers.template_think import (
    opening_of_prompt,
    template_opening,
    with_template_opening,
)
from poemetric.providers.vllm_versions import (
    chat_takes_template_kwargs,
    engine_failure,
    json_constraint,
    rendered_prompt,
)

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'poemetric[vllm]' (vLLM needs a CUDA GPU)"
#: Used only when the engine's context length cannot be read.
FALLBACK_MAX_TOKENS = 4096
#: SamplingParams fields that a model's generation config can set (copied from the defaults).
_MODEL_DEFAULT_FIELDS = (
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "presence_penalty",
    "frequency_penalty",
    "max_tokens",
)
#: vLLM's own `SamplingParams.max_tokens` default: not a model choice, so treated as unset.
_VLLM_CLASS_DEFAULT_MAX_TOKENS = 16


class VLLMProvider(InProcessBatchProvider):
    """`provider: vllm`; engine options under `vllm:` in the model file (`VLLMOptions`).

    `options.chat_template_kwargs` (e.g. `{enable_thinking: true}`) is passed to `llm.chat`;
    `options.default_max_tokens` replaces the remaining-context default.
    """

    name: ClassVar[str] = "vllm"
    option_keys: ClassVar[frozenset[str] | None] = frozenset(
        {"chat_template_kwargs", "default_max_tokens"}
    )
    prefers_batches: ClassVar[bool] = True
    remote: ClassVar[bool] = False
    isolate_process: ClassVar[bool] = True
    takes_seed: ClassVar[bool] = True

    @classmethod
    def refused_settings(cls, spec: ModelSpec) -> dict[str, str]:
        """`reasoning_effort` and `reasoning_budget_tokens`, which vLLM does not sample with:
        each request would be refused, one error row per job; and a key of `extra` that a
        typed setting already fills (`extra.max_tokens`: `extra_keys`)."""
        return _refusals(spec.settings)

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        self.options = spec.vllm or VLLMOptions()
        self._vllm: Any = None
        self._llm: Any = None
        #: Why the engine could not load: loaded once, its failure reported for every job.
        self._load_error: ProviderError | None = None
        self._engine_lock = threading.RLock()

    # -- engine ------------------------------------------------------------------------------
    @property
    def vllm(self) -> Any:
        if self._vllm is None:
            try:
                import vllm
            except ImportError as error:
                raise ProviderError(
                    f"model {self.spec.name!r} uses provider 'vllm', but vLLM is not installed: "
                    f"{INSTALL_HINT}",
                    retryable=False,
                ) from error
            self._vllm = vllm
        return self._vllm

    def preflight(self) -> None:
        self.vllm  # noqa: B018 - imports vLLM or raises the install hint

    def engine_kwargs(self) -> dict[str, Any]:
        options = self.options
        kwargs: dict[str, Any] = {
            "model": self.spec.model,
            "tensor_parallel_size": options.tensor_parallel_size,
            "pipeline_parallel_size": options.pipeline_parallel_size,
            "dtype": options.dtype,
            "gpu_memory_utilization": options.gpu_memory_utilization,
            "trust_remote_code": options.trust_remote_code,
            "seed": self.spec.settings.seed if self.spec.settings.seed is not None else 0,
            # The model's generation_config.json as the engine's default sampling settings:
            # vLLM 0.6.5-0.7.x default to their own (temperature 1.0, top_p 1) without this.
            "generation_config": "auto",
        }
        if options.max_model_len is not None:
            kwargs["max_model_len"] = options.max_model_len
        if options.distributed_executor_backend is not None:
            kwargs["distributed_executor_backend"] = options.distributed_executor_backend
        kwargs.update(options.engine_kwargs)
        return kwargs

    @property
    def llm(self) -> Any:
        """The engine, loaded on first use (this takes the GPU memory)."""
        with self._engine_lock:
            return self._load_engine()

    def load(self) -> None:
        """Load the engine (the runner does it in a background thread, before the first
        chunk); a failure is reported again, job by job, by `run_batch`."""
        with suppress(ProviderError):
            self.llm  # noqa: B018 - loads it

    def _load_engine(self) -> Any:
        if self._load_error is not None:
            raise self._load_error
        if self._llm is None:
            kwargs = self.engine_kwargs()
            log.info("loading vLLM engine for %s", self.spec.model)
            try:
                self._llm = self.vllm.LLM(**kwargs)
            except Exception as error:  # vLLM's own asserts, a transformers mismatch, ...
                self._load_error = ProviderError(
                    f"vllm: could not load {self.spec.model!r}: {type(error).__name__}: {error}",
                    retryable=False,
                )
                raise self._load_error from error
        return self._llm

    async def aclose(self) -> None:
        self._llm = None  # the runner isolates vLLM models in child processes to free the GPU

    # -- sampling ----------------------------------------------------------------------------
    def max_model_len(self) -> int | None:
        if self.options.max_model_len is not None:
            return self.options.max_model_len
        for path in (("llm_engine", "model_config"), ("llm_engine", "vllm_config", "model_config")):
            node: Any = self.llm
            for attribute in path:
                node = getattr(node, attribute, None)
            length = getattr(node, "max_model_len", None)
            if isinstance(length, int):
                return length
        return None

    def prompt_tokens(self, conversation: list[dict[str, str]]) -> int:
        tokenizer = self.llm.get_tokenizer()
        encoded = tokenizer.apply_chat_template(
            conversation,
            tokenize=True,
            add_generation_prompt=True,
            **self.spec.options.get("chat_template_kwargs", {}),
        )
        # transformers >= 5 answers a BatchEncoding (`return_dict=True` by default), whose len()
        # is its number of keys (2), not of tokens; earlier releases a list of token ids.
        ids = encoded["input_ids"] if hasattr(encoded, "keys") else encoded
        return len(ids)

    def sampling_params(
        self, request: GenerationRequest, conversation: list[dict[str, str]]
    ) -> Any:
        settings = request.settings
        refuse_settings(self.name, _refusals(settings))
        defaults = self.llm.get_default_sampling_params()
        fields = {
            name: getattr(defaults, name)
            for name in _MODEL_DEFAULT_FIELDS
            if hasattr(defaults, name)
        }
        if fields.get("max_tokens") in (None, _VLLM_CLASS_DEFAULT_MAX_TOKENS):
            fields.pop("max_tokens", None)
        overrides = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "top_k": settings.top_k,
            "max_tokens": settings.max_tokens,
            "seed": settings.seed,
            "stop": list(settings.stop) if settings.stop is not None else None,
        }
        fields.update({name: value for name, value in overrides.items() if value is not None})
        if request.response_schema is not None:
            fields.update(self.guided_json(request.response_schema.schema))
        fields.update(settings.extra)
        if "max_tokens" not in fields:
            fields["max_tokens"] = self.default_max_tokens(conversation)
        try:
            return self.vllm.SamplingParams(**fields)
        except (TypeError, ValueError) as error:
            raise ProviderError(
                f"vllm: invalid sampling settings: {error}", retryable=False
            ) from error

    def guided_json(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The SamplingParams field that constrains decoding to `schema`, as this vLLM names it
        (`structured_outputs`, earlier `guided_decoding`: `vllm_versions.json_constraint`)."""
        return {
            field: constraint(json=schema)
            for field, constraint in json_constraint(self.vllm).items()
        }

    def default_max_tokens(self, conversation: list[dict[str, str]]) -> int:
        configured = self.spec.options.get("default_max_tokens")
        if configured is not None:
            return int(configured)
        context = self.max_model_len()
        if context is None:
            log.warning(
                "vllm: context length unknown; max_tokens defaults to %d", FALLBACK_MAX_TOKENS
            )
            return FALLBACK_MAX_TOKENS
        remaining = context - self.prompt_tokens(conversation)
        if remaining <= 0:
            raise ProviderError(
                f"vllm: the prompt fills the whole context ({context} tokens) of {self.spec.model!r}",
                retryable=False,
            )
        return remaining

    # -- generation --------------------------------------------------------------------------
    def run_batch(self, requests: list[GenerationRequest]) -> list[Completion | ProviderError]:
        """All requests in one `llm.chat` call (vLLM schedules them with continuous batching)."""
        conversations = [
            [{"role": m.role, "content": m.content} for m in request.messages]
            for request in requests
        ]
        results: list[Completion | ProviderError | None] = [None] * len(requests)
        runnable: list[int] = []
        params: list[Any] = []
        for index, (request, conversation) in enumerate(zip(requests, conversations, strict=True)):
            try:
                params.append(self.sampling_params(request, conversation))
                runnable.append(index)
            except ProviderError as error:
                results[index] = error
        if runnable:
            try:
                outputs = self._chat([conversations[i] for i in runnable], params)
            except ProviderError as error:
                if len(runnable) == 1:
                    outputs = [error]
                else:  # isolate the request that broke the batch: run each on its own
                    outputs = [
                        self._chat_one(conversations[i], p)
                        for i, p in zip(runnable, params, strict=True)
                    ]
            for index, output in zip(runnable, outputs, strict=True):
                structured = requests[index].response_schema is not None
                results[index] = (
                    output
                    if isinstance(output, ProviderError)
                    else engine_failure(
                        output.outputs[0].finish_reason, getattr(output, "request_id", None)
                    )
                    or self._to_completion(output, structured=structured)
                )
        return [
            r if r is not None else ProviderError("vllm: no result", retryable=True)
            for r in results
        ]

    def _chat(self, conversations: list[list[dict[str, str]]], params: list[Any]) -> list[Any]:
        """`llm.chat`; with `chat_template_kwargs` on a vLLM whose `chat` does not take them
        (before 0.9), the prompts rendered as its `chat` would and sent to `llm.generate`."""
        template_kwargs = self.spec.options.get("chat_template_kwargs")
        try:
            if not template_kwargs:
                outputs = list(self.llm.chat(conversations, params, use_tqdm=False))
            elif chat_takes_template_kwargs(self.llm.chat):
                outputs = list(
                    self.llm.chat(
                        conversations, params, use_tqdm=False, chat_template_kwargs=template_kwargs
                    )
                )
            else:
                tokenizer = self.llm.get_tokenizer()
                prompts = [rendered_prompt(tokenizer, c, template_kwargs) for c in conversations]
                outputs = list(self.llm.generate(prompts, params, use_tqdm=False))
        except ProviderError:
            raise
        except Exception as error:  # vLLM raises plain ValueError/RuntimeError
            raise ProviderError(
                f"vllm: generation failed: {type(error).__name__}: {error}", retryable=False
            ) from error
        if len(outputs) != len(conversations):
            raise ProviderError(
                f"vllm: {len(outputs)} outputs for {len(conversations)} prompts", retryable=True
            )
        return outputs

    def _chat_one(self, conversation: list[dict[str, str]], params: Any) -> Any:
        try:
            return self._chat([conversation], [params])[0]
        except ProviderError as error:
            return error

    def template_opening(self, output: Any) -> str | None:
        """The reasoning tag the chat template opened at the end of `output`'s prompt
        (`template_think`): read from its prompt text, else its prompt's last tokens decoded."""
        prompt = getattr(output, "prompt", None)
        if isinstance(prompt, str) and prompt:
            return template_opening(prompt)
        ids = getattr(output, "prompt_token_ids", None) or []
        decode = getattr(self.llm.get_tokenizer(), "decode", None)
        return opening_of_prompt(ids, decode) if ids and callable(decode) else None

    def _to_completion(self, output: Any, *, structured: bool = False) -> Completion:
        """A free-text answer that continues a prompt ending in a reasoning tag the template
        opened starts with that tag (`template_think`); a structured one is the answer from its
        first token."""
        sample = output.outputs[0]
        prompt_ids = getattr(output, "prompt_token_ids", None) or []
        token_ids = getattr(sample, "token_ids", None) or []
        opening = None if structured else self.template_opening(output)
        return Completion(
            text=with_template_opening(sample.text, opening, sample.finish_reason),
            raw={
                "request_id": getattr(output, "request_id", None),
                "finish_reason": sample.finish_reason,
                **({"template_opened": opening} if opening else {}),
                "stop_reason": getattr(sample, "stop_reason", None),
                "prompt_tokens": len(prompt_ids),
                "completion_tokens": len(token_ids),
            },
            usage=TokenUsage(input_tokens=len(prompt_ids), output_tokens=len(token_ids)),
            request_id=getattr(output, "request_id", None),
            finish_reason=sample.finish_reason,
            provider_model=self.spec.model,
        )


def _refusals(settings: GenerationSettings) -> dict[str, str]:
    """The settings vLLM does not sample with, each with why (`refused_settings`), and the
    keys of `extra` that a typed setting already fills (`extra_keys`)."""
    refused = {
        field: "not a vLLM sampling setting; use options.chat_template_kwargs (e.g. "
        "enable_thinking) instead"
        for field in ("reasoning_effort", "reasoning_budget_tokens")
        if getattr(settings, field) is not None
    }
    refused.update(refused_extra(settings.extra, _SENT_FROM))
    return refused


#: The `SamplingParams` fields `sampling_params` fills from the typed settings.
_SENT_FROM = {**SAMPLING, "max_tokens": "settings.max_tokens", "stop": "settings.stop"}
