"""Models whose samples of a prompt are one poem: `generate --samples N` asked of a model that
decodes deterministically (greedy: SmolLM2's generation config samples not, and a vLLM or local
model whose own config does not sample, or a model file with `temperature: 0`) stores N copies
of one poem, which the form check, the judges and the analysis count as N poems, and the summary
of `generate` said only "ok" of them.

A model is named only when every prompt it holds several samples of has one poem in all of
them: a sampling model's poems differ, and two of its refusals alike ("I can't help with that.")
say nothing of its decoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poemetric.store import HUMAN_AUTHOR
from poemetric.store.db import RunStore
from poemetric.text.plural import counted, plural


@dataclass(frozen=True)
class SameSamples:
    """A model whose samples (`samples`: the most a prompt holds) of each of its `prompts` with
    two or more are one poem."""

    author: str
    prompts: int
    samples: int

    def warning(self, model_file: str) -> str:
        """What to say, naming `model_file` (`ModelSpec.model_file`), where to set sampling."""
        return (
            f"{counted(self.prompts, 'prompt')} with several samples "
            f"{plural(self.prompts, 'has', 'have')} one poem in all of them (up to "
            f"{self.samples:,} a prompt), copies that the form check, the judges and the "
            "analysis count as different poems: the model "
            "decodes deterministically (its model file sets no sampling and its own generation "
            "config samples not, or temperature 0). To sample, set settings.temperature (and a "
            f"seed, for a reproducible run) in its model file ({model_file}) "
            "and generate into a new --run: a run never asks again for a poem it holds."
        )


def same_samples(store: RunStore, authors: Sequence[str] | None = None) -> list[SameSamples]:
    """The models (of `authors`; None: every model) whose every prompt held with two or more
    ok samples has one poem in them all, by name (an empty poem, a model that thought until
    the token limit, is no sample of its decoding)."""
    rows = store.query(
        "SELECT author, prompt_id, poem FROM generations "
        "WHERE status = 'ok' AND poem IS NOT NULL AND author != ?",
        (HUMAN_AUTHOR,),
    )
    poems: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        author = str(row["author"])
        if (authors is None or author in authors) and str(row["poem"]).strip():
            by_prompt = poems.setdefault(author, {})
            by_prompt.setdefault(str(row["prompt_id"]), []).append(str(row["poem"]))
    found = []
    for author in sorted(poems):
        sampled = [held for held in poems[author].values() if len(held) > 1]
        if sampled and all(len(set(held)) == 1 for held in sampled):
            found.append(SameSamples(author, len(sampled), max(len(held) for held in sampled)))
    return found
