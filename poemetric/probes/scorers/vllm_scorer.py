"""`vllm:<model>`: log-probabilities from vLLM's offline engine (`prompt_logprobs`).

Each text is tokenized once with the engine's tokenizer, the explicit prefix token is put in
front, and the ids go to `LLM.generate` as a `TokensPrompt` with `SamplingParams(max_tokens=1,
prompt_logprobs=0)`: vLLM then returns, for every prompt position after the first, a dict that
holds the logprob of the token actually there. Prefix caching is switched off (a cached prefix
returns no prompt logprobs in several vLLM releases) and the engine runs in float32 unless the
model file asks otherwise. `<model>` is a `provider: vllm` model file name or a model path / id.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from poemetric.probes.pairs import Pair
from poemetric.probes.scorers.base import ScoreRecord, score_by_texts
from poemetric.providers.base import ModelSpec, ProviderError
from poemetric.providers.transformers_engine import SequenceScore, prefix_token_id
from poemetric.providers.vllm_provider import INSTALL_HINT


def vllm_spec_for(reference: str) -> ModelSpec:
    from poemetric.roster import load_catalog

    catalog = load_catalog("generators")
    catalog.refuse_unusable([reference])  # not taken for a hub id: the file's error
    entry = catalog.entries.get(reference)
    if entry is not None and entry.spec.provider == "vllm":
        return entry.spec
    return ModelSpec(name=reference, provider="vllm", model=reference)


class VLLMScorer:
    def __init__(self, reference: str, *, prefix_token: str | None = None) -> None:
        self.spec = vllm_spec_for(reference)
        self.prefix_token = prefix_token
        self.name = f"vllm:{reference}"
        self._llm: Any = None
        self._vllm: Any = None

    def engine(self) -> Any:
        if self._llm is None:
            try:
                import vllm
            except ImportError as error:
                raise ProviderError(
                    f"vllm: scorer {self.name!r} needs vLLM: {INSTALL_HINT}", retryable=False
                ) from error
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
            self._vllm = vllm
            self._llm = vllm.LLM(**kwargs)
        return self._llm

    def score_texts(self, texts: Sequence[str]) -> list[SequenceScore]:
        llm = self.engine()
        tokenizer = llm.get_tokenizer()
        prefix = prefix_token_id(tokenizer, self.prefix_token)
        sequences = [
            [prefix, *tokenizer(text, add_special_tokens=False).input_ids] for text in texts
        ]
        params = self._vllm.SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=0.0)
        outputs = llm.generate(
            [{"prompt_token_ids": ids} for ids in sequences], params, use_tqdm=False
        )
        scores = []
        for ids, output in zip(sequences, outputs, strict=True):
            entries = output.prompt_logprobs
            values = tuple(float(entries[k][ids[k]].logprob) for k in range(1, len(ids)))
            scores.append(SequenceScore(math.fsum(values), len(values), values))
        return scores

    def score(self, pairs: Sequence[Pair]) -> list[ScoreRecord]:
        return score_by_texts(pairs, self.name, self.score_texts, model=self.spec.model)
