"""A small synthetic run store (made-up words and scores) for tests, docs and benchmarks.

Nothing here comes from a real dataset: poems are random word sequences from a tiny vocabulary,
and form checks and judge scores are drawn around a per-author level.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.judge.answer import DIMENSIONS
from poemetric.store import RunStore, stable_id

FORMS = ("ballad", "sonnet", "villanelle")
VOCABULARY = [
    "river",
    "stone",
    "lantern",
    "morning",
    "harbor",
    "ember",
    "willow",
    "thunder",
    "glass",
    "orchard",
    "salt",
    "candle",
    "meadow",
    "silver",
    "hollow",
    "feather",
    "winter",
    "garden",
    "silence",
    "mirror",
    "shadow",
    "bridge",
    "copper",
    "rain",
    "field",
    "wind",
    "the",
    "a",
    "and",
    "of",
    "in",
    "on",
    "with",
    "under",
    "beneath",
    "across",
    "my",
    "your",
    "our",
]


def _poem(rng: np.random.Generator, lines: int, words: int, bias: int) -> str:
    pool = VOCABULARY[: max(8, len(VOCABULARY) - bias)]
    return "\n".join(" ".join(rng.choice(pool, size=words)) for _ in range(lines))


def build_synthetic_run(
    run_dir: str | Path,
    *,
    authors: tuple[str, ...] = (HUMAN_AUTHOR, "model-a", "model-b"),
    poems_per_form: int = 4,
    judges: tuple[str, ...] = ("judge-x",),
    with_form_checks: bool = True,
    seed: int = 0,
) -> RunStore:
    """Create (or extend) a run store with synthetic poems, generations, form checks, judgments."""
    rng = np.random.default_rng(seed)
    store = RunStore(run_dir)
    template = store.add_template("synthetic", "Write a {form}.")
    poems: list[dict[str, object]] = []
    prompts: list[dict[str, object]] = []
    for form in FORMS:
        for index in range(poems_per_form):
            poem_id = f"{form}-{index}"
            poems.append({
                "poem_id": poem_id, "dataset": "synthetic", "position": len(poems), "form": form,
                "title": f"Untitled {index}", "author": "Anonymous",
                "content": _poem(rng, 8, 6, 0), "record": "{}",
            })  # fmt: skip
            prompts.append({"prompt_id": f"p-{poem_id}", "poem_id": poem_id,
                            "template_hash": template, "text": f"Write a {form}."})  # fmt: skip
    store.add_poems(poems)
    store.add_prompts(prompts)
    for level, author in enumerate(authors):
        for poem in poems:
            text = poem["content"] if author == HUMAN_AUTHOR else _poem(rng, 8, 6, 4 * level)
            generation_id = stable_id(poem["poem_id"], author)
            store.save_generation({
                "generation_id": generation_id, "prompt_id": f"p-{poem['poem_id']}",
                "poem_id": poem["poem_id"], "author": author, "sample_index": 0,
                "status": "ok", "poem": text,
            })  # fmt: skip
            if with_form_checks:
                form_score = float(np.clip(rng.normal(0.8 - 0.1 * level, 0.15), 0, 1))
                store.save_form_check({
                    "generation_id": generation_id, "checker_version": "synthetic",
                    "passed": int(form_score > 0.7), "meter_score": float(rng.uniform(0.4, 1)),
                    "rhyme_score": float(rng.uniform(0.4, 1)), "form_score": form_score,
                })  # fmt: skip
            for judge in judges:
                scores = {}
                for dimension in DIMENSIONS:
                    score = int(np.clip(round(rng.normal(4.2 - 0.6 * level, 0.8)), 1, 5))
                    if dimension.allows_na and rng.random() < 0.1:
                        score = 0
                    scores[dimension.key] = score
                store.save_judgment({
                    "judgment_id": stable_id(generation_id, judge), "generation_id": generation_id,
                    "judge": judge, "sample_index": 0, "status": "ok", **scores,
                    "comment_literary_devices": "", "comment_overall_quality": "",
                    "comment_human_authorship": "",
                })  # fmt: skip
    return store
