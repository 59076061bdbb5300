"""`vllm:<model>`: log-probabilities from vLLM's offline engine (`prompt_logprobs`).

Each text is tokenized once with the engine's tokenizer, the explicit prefix token is put in
front, and the ids go to `LLM.generate` as a `TokensPrompt` with `SamplingParams(max_tokens=1,
prompt_logprobs=0)`: vLLM then returns, for every prompt position after the first, a dict that
holds the logprob of the token actually there. Prefix caching is switched off (a cached prefix
returns no prompt logprobs in several vLLM releases) and the engine runs in float32 unless the
model file asks otherwise. `<model>` is a `provider: vllm` model file name or a model path / id.

Texts go to the engine `CHUNK` at a time (vLLM batches within a call as it sees fit), each chunk
kept in `probe run`'s cache once scored (`score_through_cache`, shared with `hf:`), so that a
stopped run resumes; a rerun whose texts are all kept starts no engine where NVML names the GPUs
(`_gpus`: they are in the key).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from poemetric.probes.pairs import Pair
from poemetric.probes.scorers.base import ScoreRecord, score_through_cache
from poemetric.probes.scorers.cache import ScoreCache, weights_fingerprint
from poemetric.providers.base import ModelSpec, ProviderError
from poemetric.providers.model_source import ModelSource
from poemetric.providers.transformers_engine import (
    BatchScored,
    SequenceScore,
    prefix_token_id,
)
from poemetric.providers.vllm_provider import INSTALL_HINT


def vllm_spec_for(reference: str) -> ModelSpec:
    from poemetric.roster import load_catalog

    catalog = load_catalog("generators")
    catalog.refuse_unusable([reference])  # not taken for a hub id: the file's error
    entry = catalog.entries.get(reference)
    if entry is not None and entry.spec.provider == "vllm":
        return entry.spec
    return ModelSpec(name=reference, provider="vllm", model=reference)


#: Texts per `LLM.generate` call: each call's scores are kept before the next one starts.
CHUNK = 256


def _source(model: str) -> ModelSource:
    """Where the weights are, for their fingerprint: a `.gguf` file, a folder, a hub id."""
    path = Path(model).expanduser()
    if path.suffix == ".gguf" and path.is_file():
        return ModelSource(str(path.parent), path.name)
    return ModelSource(model)


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


class VLLMScorer:
    def __init__(
        self,
        reference: str,
        *,
        prefix_token: str | None = None,
        progress: bool = False,
        cache: ScoreCache | None = None,
    ) -> None:
        self.spec = vllm_spec_for(reference)
        self.prefix_token = prefix_token
        self.name = f"vllm:{reference}"
        self.progress = progress
        self.cache = cache  # texts scored before are read back, each new chunk kept
        self._llm: Any = None
        self._vllm: Any = None

    def engine_kwargs(self) -> dict[str, Any]:
        options = self.spec.vllm
        kwargs: dict[str, Any] = {
            "model": self.spec.model,
            "dtype": options.dtype if options and options.dtype != "auto" else "float32",
            "enable_prefix_caching": False,
            "seed": 0,
        }
        if options is not None:
            kwargs["tensor_parallel_size"] = options.tensor_parallel_size
            kwargs["gpu_memory_utilization"] = options.gpu_memory_utilization
            if options.max_model_len is not None:
                kwargs["max_model_len"] = options.max_model_len
            kwargs.update(options.engine_kwargs)
            kwargs["enable_prefix_caching"] = False
        return kwargs

    def engine(self) -> Any:
        if self._llm is None:
            try:
                import vllm
            except ImportError as error:
                raise ProviderError(
                    f"vllm: scorer {self.name!r} needs vLLM: {INSTALL_HINT}", retryable=False
                ) from error
            self._vllm = vllm
            self._llm = vllm.LLM(**self.engine_kwargs())
        return self._llm

    def score_texts(
        self,
        texts: Sequence[str],
        advance: Callable[[int], None] | None = None,
        scored: BatchScored | None = None,
    ) -> list[SequenceScore]:
        """Scores of `texts`, `CHUNK` per engine call; after each, `scored(indices, scores)` and
        `advance(n)`."""
        llm = self.engine()
        tokenizer = llm.get_tokenizer()
        prefix = prefix_token_id(tokenizer, self.prefix_token)
        sequences = [
            [prefix, *tokenizer(text, add_special_tokens=False).input_ids] for text in texts
        ]
        params = self._vllm.SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=0.0)
        scores: list[SequenceScore] = []
        for start in range(0, len(sequences), CHUNK):
            chunk = sequences[start : start + CHUNK]
            outputs = llm.generate(
                [{"prompt_token_ids": ids} for ids in chunk], params, use_tqdm=False
            )
            batch = []
            for ids, output in zip(chunk, outputs, strict=True):
                entries = output.prompt_logprobs
                values = tuple(float(entries[k][ids[k]].logprob) for k in range(1, len(ids)))
                batch.append(SequenceScore(math.fsum(values), len(values), values))
            scores += batch
            if scored is not None:
                scored(range(start, start + len(batch)), batch)
            if advance is not None:
                advance(len(batch))
        return scores

    def cache_request(self) -> dict[str, Any] | None:
        """The part of the cache identity known before the engine starts: the model and its
        weights' fingerprint, the GPUs, the engine's settings, the prefix token asked for, the versions.
        None when the weights are not found on disk (a hub id not downloaded yet) or the GPUs
        cannot be named."""
        weights, gpus = weights_fingerprint(_source(self.spec.model)), _gpus()
        if weights.get("files") is None or gpus is None:
            return None
        return {
            "scorer": "vllm",
            "weights": weights,
            "gpus": gpus,
            "engine": self.engine_kwargs(),
            "prefix_token_asked": self.prefix_token,
            "versions": [_version("vllm"), _version("torch"), _version("transformers")],
        }

    def cache_identity(self) -> dict[str, Any]:
        """All that decides a text's score but the text (`ScoreCache`): the request, the GPU and
        what starting the engine resolved (the dtype it runs in, the prefix token)."""
        llm = self.engine()
        tokenizer = llm.get_tokenizer()
        prefix = prefix_token_id(tokenizer, self.prefix_token)
        config = getattr(getattr(llm, "llm_engine", None), "model_config", None)
        return {
            "scorer": "vllm",
            "model": self.spec.model,
            "weights": weights_fingerprint(_source(self.spec.model)),
            "engine": self.engine_kwargs(),
            "dtype": str(getattr(config, "dtype", None)),
            "gpus": _gpus(),
            "prefix_token_id": prefix,
            "versions": [_version("vllm"), _version("torch"), _version("transformers")],
            "request": self.cache_request(),
        }

    def score(self, pairs: Sequence[Pair]) -> list[ScoreRecord]:
        def resolve() -> dict[str, Any]:
            self.engine()  # starting the engine is not scoring: before the bar starts
            return self.cache_identity() if self.cache is not None else {}

        request = self.cache_request() if self.cache is not None else None
        records, _ = score_through_cache(
            pairs, self.name, self.cache, request, resolve, self.score_texts, progress=self.progress
        )
        details = {"model": self.spec.model}
        return [r.model_copy(update={"details": details}) for r in records]


def _gpus() -> list[str] | None:
    """The names of the GPUs CUDA_VISIBLE_DEVICES leaves vLLM (another card may round
    differently), read through NVML (nvidia-ml-py, which vLLM installs): asking torch would start
    CUDA in this process before vLLM forks its workers. None where NVML cannot tell."""
    try:
        import pynvml  # type: ignore[import-not-found,unused-ignore]

        pynvml.nvmlInit()
        try:
            handles = range(pynvml.nvmlDeviceGetCount())
            names = [
                pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(n)) for n in handles
            ]
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # not installed, no driver, no GPU: the engine will say
        return None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    listed = [n.decode() if isinstance(n, bytes) else str(n) for n in names]
    return [*listed, f"CUDA_VISIBLE_DEVICES={visible}"]
