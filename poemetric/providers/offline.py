"""Offline generators: the `human` author and the seeded Markov baseline.

Neither needs a key, a GPU or a network. Both read what they need from the request's `context`
(the generation stage fills it): `original` (the human poem), `poem_id`, `form`, `meter`, `rhyme`
and `corpus` (the poems of the run's stored dataset snapshot, whatever the dataset's source).
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from functools import cache
from typing import ClassVar

from poemetric.markov import MarkovModel, NgramCounts, ngram_counts, write_poem
from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    ModelSpec,
    Provider,
    ProviderError,
    RunCorpus,
    TokenUsage,
)
from poemetric.store.db import stable_id


def _require(request: GenerationRequest, key: str) -> str:
    value = request.context.get(key)
    if value is None or value == "":
        raise ProviderError(
            f"offline generator needs {key!r} in the request context", retryable=False
        )
    return str(value)


class HumanProvider(Provider):
    """The human author: answers each prompt with the original poem it was built from."""

    name: ClassVar[str] = "human"
    option_keys: ClassVar[frozenset[str] | None] = frozenset()
    remote: ClassVar[bool] = False

    async def generate(self, request: GenerationRequest) -> Completion:
        original = _require(request, "original")
        return Completion(text=original, provider_model="human", raw={"source": "dataset"})


@cache
def _corpus_model(corpus: RunCorpus, order: int) -> tuple[MarkovModel, dict[str, NgramCounts]]:
    """The model of the whole corpus, and each poem's own n-gram counts (by poem id)."""
    lines: dict[str, list[str]] = defaultdict(list)
    for poem_id, content in corpus.poems:
        lines[poem_id].extend(line for line in content.splitlines() if line.strip())
    model = MarkovModel((line for poem in lines.values() for line in poem), order=order)
    return model, {poem_id: ngram_counts(poem, order) for poem_id, poem in lines.items()}


@cache
def _model_without(corpus: RunCorpus, excluded_poem_id: str, order: int) -> MarkovModel:
    """The model of the corpus less the prompt's own poem, derived from the whole corpus's model
    (trained once per run, not once per prompt: a 1,000-poem dataset trained 1,000 times)."""
    model, per_poem = _corpus_model(corpus, order)
    try:
        return model.without(per_poem.get(excluded_poem_id, {}))
    except ValueError:  # said of the whole corpus, it read as if the dataset had no poems
        raise ValueError(
            f"the run's dataset has no lines but those of this prompt's own poem "
            f"({excluded_poem_id}), which the baseline leaves out: it needs a dataset of at "
            "least two poems"
        ) from None


class MarkovProvider(Provider):
    """Word n-gram baseline trained on the run's stored poems, leaving out the prompt's own poem.

    Deterministic: the same (seed, poem, sample index) always gives the same poem.
    Options (`options:` in the model file): `order` (default 2), `candidates` (default 40).
    """

    name: ClassVar[str] = "markov"
    option_keys: ClassVar[frozenset[str] | None] = frozenset({"order", "candidates"})
    remote: ClassVar[bool] = False

    @classmethod
    def refused_options(cls, spec: ModelSpec) -> dict[str, str]:
        """`order` and `candidates` are whole numbers of at least 1: `candidates: 0` sampled no
        line and stored every line of every poem as "...", as an ok poem."""
        return {
            key: f"must be a whole number of at least 1, not {value!r}"
            for key in ("order", "candidates")
            if isinstance(value := spec.options.get(key, 1), bool)
            or not isinstance(value, int)
            or value < 1
        }

    def preflight(self) -> None:
        """A spec built in code (not read from a model file) with an unusable option."""
        for key, why in self.refused_options(self.spec).items():
            raise ProviderError(f"markov baseline: options.{key}: {why}", retryable=False)

    async def generate(self, request: GenerationRequest) -> Completion:
        started = time.perf_counter()
        corpus = request.context.get("corpus")
        if not isinstance(corpus, RunCorpus):
            raise ProviderError(
                "markov baseline needs the run's poems ('corpus' in the request context)",
                retryable=False,
            )
        poem_id = _require(request, "poem_id")
        form = _require(request, "form")
        order = int(self.spec.options.get("order", 2))
        candidates = int(self.spec.options.get("candidates", 40))
        seed = request.settings.seed if request.settings.seed is not None else 0
        rng = random.Random(stable_id(seed, poem_id, request.sample_index))
        try:
            model = _model_without(corpus, poem_id, order)
        except ValueError as error:
            raise ProviderError(f"markov baseline: {error}", retryable=False) from error
        poem = write_poem(
            model,
            form,
            request.context.get("rhyme") or None,
            request.context.get("meter") or None,
            rng,
            candidates=candidates,
        )
        return Completion(
            text=poem,
            provider_model=f"markov-order{order}",
            raw={"order": order, "seed": seed, "candidates": candidates},
            usage=TokenUsage(output_tokens=len(poem.split())),
            latency_s=time.perf_counter() - started,
            finish_reason="stop",
        )
