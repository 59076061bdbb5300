"""Synthetic run stores (made-up words and scores) for tests, docs and benchmarks.

Nothing here comes from a real dataset: poems are random word sequences from a tiny vocabulary,
and form checks, judge scores, comments and expert ratings are drawn around a per-author level.
`paper_scale_run` builds a run shaped like the paper's: 203 prompts over the seven forms, the
human poets and the 30 models of `paper30` (6,090 LLM poems), judged, with expert ratings.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.questionnaire import DIMENSIONS
from poemetric.store import RunStore, stable_id
from poemetric.store.db import to_json

FORMS = ("ballad", "sonnet", "villanelle")
#: The paper's distribution of its 203 human poems over the seven forms (Table 1).
PAPER_FORMS = {"ballad": 95, "ghazal": 9, "limerick": 6, "pantoum": 3, "sestina": 7,
               "sonnet": 71, "villanelle": 12}  # fmt: skip
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
    "eye",
    "sun",
    "moon",
    "sea",
    "thread",
    "bloom",
    "face",
    "heart",
    "night",
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
COMMENTS = (
    "The metaphor of the {w} carries the poem.",
    "Competent but predictable; the {w} image is a cliché.",
    "Reads like a model's pastiche: regular, safe, no risk.",
)


def paper_authors() -> tuple[str, ...]:
    """The human poets and the 30 models of the paper (the `paper30` generator group)."""
    from poemetric.roster import load_groups

    return (HUMAN_AUTHOR, *load_groups("generators")["paper30"])


def _poem(rng: np.random.Generator, lines: int, words: int, bias: int) -> str:
    pool = VOCABULARY[: max(8, len(VOCABULARY) - bias)]
    return "\n".join(" ".join(rng.choice(pool, size=words)) for _ in range(lines))


def _explanation(rng: np.random.Generator, form: str, form_score: float, passed: bool) -> str:
    issues = []
    if not passed:
        first = int(rng.integers(1, 7))
        issues.append({"constraint": "rhyme", "lines": [first, first + 2],
                       "detail": f"lines {first} and {first + 2} should rhyme (A) but do not"})  # fmt: skip
    verdict = "PASS" if passed else "FAIL"
    summary = f"{verdict} {form}: form {form_score:.2f} (threshold 0.70)"
    if issues:
        summary += f" - rhyme: {issues[0]['detail']}"
    return to_json({"summary": summary, "issues": issues, "threshold": 0.7,
                          "facts": {"scheme": "ABAB"}, "error_kind": None})  # fmt: skip


def build_synthetic_run(
    run_dir: str | Path,
    *,
    authors: tuple[str, ...] = (HUMAN_AUTHOR, "model-a", "model-b"),
    poems_per_form: int | dict[str, int] = 4,
    forms: tuple[str, ...] = FORMS,
    judges: tuple[str, ...] = ("judge-x",),
    with_form_checks: bool = True,
    lines: int = 8,
    seed: int = 0,
) -> RunStore:
    """Create (or extend) a run store with synthetic poems, generations, form checks and
    judgments (with comments). `poems_per_form` is a count for each of `forms`, or a mapping
    form -> count."""
    rng = np.random.default_rng(seed)
    store = RunStore(run_dir)
    template = store.add_template("synthetic", "Write a {form}.")
    counts = (
        poems_per_form if isinstance(poems_per_form, dict) else dict.fromkeys(forms, poems_per_form)
    )
    poems: list[dict[str, object]] = []
    prompts: list[dict[str, object]] = []
    for form, count in counts.items():
        for index in range(count):
            poem_id = f"{form}-{index}"
            title = " ".join(str(w).title() for w in rng.choice(VOCABULARY[:30], size=2))
            poems.append({
                "poem_id": poem_id, "dataset": "synthetic", "position": len(poems), "form": form,
                "title": f"{title} {index}", "author": "Anonymous",
                "content": _poem(rng, lines, 6, 0), "record": "{}",
                "imagery": ", ".join(rng.choice(["eye", "sun", "sea", "thread"], size=2)),
            })  # fmt: skip
            prompts.append({"prompt_id": f"p-{poem_id}", "poem_id": poem_id,
                            "template_hash": template, "text": f"Write a {form}."})  # fmt: skip
    store.add_poems(poems)
    store.add_prompts(prompts)
    step = 1.8 / max(len(authors) - 1, 1)  # author quality falls by `step` per author
    with store.transaction():
        for level, author in enumerate(authors):
            _add_author(store, rng, poems, author, level * step, judges, with_form_checks, lines)
    return store


def _add_author(store: RunStore, rng: np.random.Generator, poems: list[dict[str, object]],
                author: str, drop: float, judges: tuple[str, ...], with_form_checks: bool,
                lines: int) -> None:  # fmt: skip
    insert = store.conn.execute
    for poem in poems:
        text = (
            poem["content"] if author == HUMAN_AUTHOR else _poem(rng, lines, 6, int(drop * 10) % 12)
        )
        generation_id = stable_id(poem["poem_id"], author)
        insert(
            "INSERT OR IGNORE INTO generations (generation_id, prompt_id, poem_id, author, "
            "sample_index, status, poem, extraction_notes, cost_usd, created_at) "
            "VALUES (?, ?, ?, ?, 0, 'ok', ?, '[]', ?, '2025-01-01T00:00:00Z')",
            (generation_id, f"p-{poem['poem_id']}", poem["poem_id"], author, text,
             0.0 if author == HUMAN_AUTHOR else 0.001),
        )  # fmt: skip
        if with_form_checks:
            form_score = float(np.clip(rng.normal(0.8 - 0.15 * drop, 0.15), 0, 1))
            passed = form_score > 0.7
            insert(
                "INSERT OR IGNORE INTO form_checks (generation_id, checker_version, passed, "
                "meter_score, rhyme_score, form_score, explanation, created_at) "
                "VALUES (?, 'synthetic', ?, ?, ?, ?, ?, '2025-01-01T00:00:00Z')",
                (generation_id, int(passed), float(rng.uniform(0.4, 1)),
                 float(rng.uniform(0.4, 1)), form_score,
                 _explanation(rng, str(poem["form"]), form_score, passed)),
            )  # fmt: skip
        for judge in judges:
            scores = []
            for dimension in DIMENSIONS:
                score = int(np.clip(round(rng.normal(4.2 - drop, 0.8)), 1, 5))
                if dimension.allows_na and rng.random() < 0.1:
                    score = 0
                scores.append(score)
            words = rng.choice(VOCABULARY[:30], size=3)
            comments = [c.format(w=w) for c, w in zip(COMMENTS, words, strict=True)]
            insert(
                "INSERT OR IGNORE INTO judgments (judgment_id, generation_id, judge, "
                "sample_index, status, form, theme, vocabulary, creativity, idiosyncrasy, "
                "emotional_resonance, imagery, literary_devices, overall_quality, "
                "human_authorship, comment_literary_devices, comment_overall_quality, "
                "comment_human_authorship, cost_usd, created_at) "
                "VALUES (?, ?, ?, 0, 'ok', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0.002, "
                "'2025-01-02T00:00:00Z')",
                (stable_id(generation_id, judge), generation_id, judge, *scores, *comments),
            )


def write_synthetic_experts(
    store: RunStore,
    path: str | Path,
    *,
    authors: tuple[str, ...],
    experts: int = 7,
    poems_per_expert: int = 10,
    seed: int = 0,
) -> Path:
    """An expert-ratings CSV (the wide format of `load_expert_ratings`) for poems by `authors`,
    like the paper's panel: each expert rates `poems_per_expert` poems, scores near a judge's
    (the first judge's, by name, of a run with several: one rating per poem and item)."""
    rng = np.random.default_rng(seed)
    marks = ",".join("?" * len(authors))
    judged = store.query(
        f"SELECT g.generation_id, j.* FROM generations g JOIN judgments j USING (generation_id) "
        f"WHERE g.author IN ({marks}) ORDER BY g.generation_id, j.judge, j.sample_index",
        authors,
    )
    rows = [  # ordered by poem: its first judgment
        row
        for index, row in enumerate(judged)
        if index == 0 or judged[index - 1]["generation_id"] != row["generation_id"]
    ]
    if not rows:
        raise ValueError(f"no judged poems by {authors} in the run")
    keys = [d.key for d in DIMENSIONS]
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["expert", "generation_id", *keys])
        for expert in range(1, experts + 1):
            picked = rng.choice(len(rows), size=min(poems_per_expert, len(rows)), replace=False)
            for index in sorted(picked):
                row = rows[int(index)]
                scores = []
                for dimension in DIMENSIONS:
                    base = row[dimension.key] or 3
                    score = int(np.clip(base + rng.integers(-1, 2) - 1, 1, 5))
                    scores.append(0 if dimension.allows_na and row[dimension.key] == 0 else score)
                writer.writerow([f"E{expert}", row["generation_id"], *scores])
    return path


def paper_scale_run(run_dir: str | Path, *, prompts: dict[str, int] | None = None,
                    seed: int = 0) -> RunStore:  # fmt: skip
    """A judged run shaped like the paper's: human + 30 models over `prompts` (default the
    paper's 203, i.e. 6,090 LLM poems), with one judge named like the paper's."""
    return build_synthetic_run(run_dir, authors=paper_authors(), poems_per_form=prompts or PAPER_FORMS,
                               judges=("gemini-2.5-pro",), lines=14, seed=seed)  # fmt: skip
