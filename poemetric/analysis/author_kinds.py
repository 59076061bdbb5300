"""Whether a run's generated authors are all LLMs: the report and the figures call them "LLMs"
(the paper's word), or "models" where one of them is not a language model (the Markov baseline,
the offline default generator, was called an LLM in the report's counts, its charts' legend and
the repetition notes)."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

#: Providers whose poems no language model wrote: the offline word n-gram baseline.
NOT_LANGUAGE_MODELS = frozenset({"markov"})


def all_language_models(generations: pd.DataFrame, authors: Iterable[str] | None = None) -> bool:
    """Whether every poem of `authors` (default: every author) in the analysis generations
    frame was written by a language model; true of a frame without providers."""
    if "provider" not in generations:
        return True
    providers = generations["provider"]
    if authors is not None:
        providers = providers[generations["author"].isin(list(authors))]
    return not providers.isin(NOT_LANGUAGE_MODELS).any()


def model_word(generations: pd.DataFrame, authors: Iterable[str] | None = None) -> str:
    """ "LLM", or "model" when one of `authors` (default: every author) is not a language
    model."""
    return "LLM" if all_language_models(generations, authors) else "model"


def generated_poem(generations: pd.DataFrame, authors: Iterable[str] | None = None) -> str:
    """ "an LLM poem", or "a generated poem" when one of `authors` is not a language model."""
    return "an LLM poem" if all_language_models(generations, authors) else "a generated poem"
