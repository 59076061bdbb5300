"""The style-matching stage: an LLM judge picks, among four human poems, the one by the poet a
stored poem belongs to (trials in `poemetric.style.trials`), through the batch runner.

Answers are parsed strictly (`poemetric.style.answer`); an unparsable answer is stored as an
'error' row with the raw response, re-parsed from the response cache by the next run for free,
and paid for again only with `--refresh-failed-parses`. The judge is blind: the prompt holds the
five poems and nothing about who wrote them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import Any

from rich.console import Console

from poemetric.prompts import bundled_template
from poemetric.providers.base import Completion, ModelSpec
from poemetric.runner.jobs import Job, cache_key, settings_json, user_request
from poemetric.runner.report import StageReport
from poemetric.runner.rows import ParsedAnswerRows, stored_statuses
from poemetric.runner.runner import RunnerOptions, rerun_in_child, run_stage
from poemetric.store.db import RunStore, stable_id, to_json
from poemetric.store.selections import record_selection
from poemetric.style.answer import StyleAnswerError, parse_style_answer
from poemetric.style.trials import (
    CHOICES,
    DEFAULT_TRIALS_PER_POEM,
    EvaluatedPoem,
    PoolPoem,
    Trial,
    TrialPlan,
    plan_trials,
)

STAGE = "style-match"
STYLE_TEMPLATE = "style_match.md"
_PLACEHOLDER = re.compile(r"\{(reference|candidate_[abcd])\}")


def render_style_prompt(template_text: str, trial: Trial) -> str:
    """The template with the five poems filled in, in one pass (a poem that contains a
    placeholder stays literal)."""
    values = {"reference": trial.reference.strip()}
    for letter, candidate in zip(CHOICES, trial.candidates, strict=True):
        values[f"candidate_{letter.lower()}"] = candidate.text.strip()
    missing = sorted(set(values) - set(_PLACEHOLDER.findall(template_text)))
    if missing:
        raise ValueError(f"the style-matching template lacks {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template_text)


def style_trials(
    store: RunStore,
    *,
    authors: Sequence[str] | None = None,
    limit: int | None = None,
    trials_per_poem: int = DEFAULT_TRIALS_PER_POEM,
    seed: int = 0,
) -> TrialPlan:
    """Trials for the ok generations of `authors` (default all), first `limit` dataset poems."""
    pool = [
        PoolPoem(str(r["poem_id"]), str(r["author"]).strip(), str(r["form"]), str(r["content"]))
        for r in store.query("SELECT poem_id, author, form, content FROM poems ORDER BY position")
        if r["author"] and str(r["author"]).strip()
    ]
    rows = store.query(
        "SELECT g.generation_id, g.author, g.poem_id, g.poem FROM generations g "
        "JOIN poems p ON p.poem_id = g.poem_id WHERE g.status = 'ok' AND g.poem IS NOT NULL "
        "ORDER BY p.position, g.author, g.sample_index"
    )
    wanted = set(authors) if authors else None
    poems: list[str] = []
    evaluated: list[EvaluatedPoem] = []
    for row in rows:
        if wanted is not None and row["author"] not in wanted:
            continue
        if row["poem_id"] not in poems:
            if limit is not None and len(poems) >= limit:
                continue
            poems.append(row["poem_id"])
        evaluated.append(
            EvaluatedPoem(row["generation_id"], row["author"], row["poem_id"], row["poem"])
        )
    return plan_trials(evaluated, pool, trials_per_poem=trials_per_poem, seed=seed)


def _limited_poems(store: RunStore, authors: Sequence[str] | None, limit: int) -> list[str]:
    """The poems `--limit` gives trials in `store` (of `authors`), in dataset order."""
    plan = style_trials(store, authors=authors, limit=limit, trials_per_poem=1)
    picked = {trial.generation_id for trial in plan.trials}
    rows = store.query(
        "SELECT g.generation_id, g.poem_id FROM generations g "
        "JOIN poems p ON p.poem_id = g.poem_id ORDER BY p.position"
    )
    return [str(row["poem_id"]) for row in rows if row["generation_id"] in picked]


def match_id_for(trial_id: str, judge: str, sample_index: int) -> str:
    return stable_id("style-match", trial_id, judge, sample_index)


def style_jobs(
    store: RunStore, judge: ModelSpec, plan: TrialPlan, *, samples: int = 1
) -> tuple[list[Job], dict[str, str]]:
    template = bundled_template(STYLE_TEMPLATE)
    template_hash = store.add_template(template.name, template.text)
    jobs: list[Job] = []
    for trial in plan.trials:
        text = render_style_prompt(template.text, trial)
        for sample in range(samples):
            request = user_request(text, judge.settings, sample)
            key = match_id_for(trial.trial_id, judge.name, sample)
            row = {
                "match_id": key,
                "trial_id": trial.trial_id,
                "generation_id": trial.generation_id,
                "judge": judge.name,
                "trial_index": trial.trial_index,
                "sample_index": sample,
                "target_poet": trial.target_poet,
                "candidates": to_json([c.poem_id for c in trial.candidates]),
                "candidate_poets": to_json([c.poet for c in trial.candidates]),
                "correct_choice": trial.correct_choice,
                "provider": judge.provider,
                "settings": settings_json(judge.settings),
                "template_hash": template_hash,
            }
            scoped = cache_key(judge, request, scope=trial.trial_id)
            jobs.append(Job(key, judge, request, scoped, row))
    statuses = stored_statuses(
        store, jobs, table="style_matches", parent="trial_id", owner="judge", name=judge.name
    )
    return jobs, statuses


class StyleMatchRows(ParsedAnswerRows):
    """Result rows of the `style_matches` table."""

    table = "style_matches"
    parse_errors = (StyleAnswerError,)

    def parse(self, job: Job, completion: Completion) -> dict[str, Any]:
        choice = parse_style_answer(completion.text)
        return {"choice": choice, "correct": int(choice == job.row["correct_choice"])}

    def unparsed(self, job: Job, completion: Completion) -> dict[str, Any]:
        return {"choice": None, "correct": None}


def run_style_matching(
    store: RunStore,
    judge: ModelSpec,
    *,
    options: RunnerOptions | None = None,
    authors: list[str] | None = None,
    samples: int = 1,
    trials_per_poem: int = DEFAULT_TRIALS_PER_POEM,
    seed: int = 0,
    console: Console | None = None,
) -> StageReport:
    """Run the style-matching trials of every ok generation (of `authors`) with `judge`."""
    options = options or RunnerOptions()
    if not options.dry_run:  # what `merge` counts its poems, trials and samples against
        record_selection(
            store,
            STAGE,
            [judge.name],
            authors=authors,
            limit=options.limit,
            samples=samples,
            poems=None if options.limit is None else _limited_poems(store, authors, options.limit),
            trials=trials_per_poem,
        )

    def jobs_for(spec: ModelSpec) -> tuple[list[Job], dict[str, str]]:
        plan = style_trials(
            store, authors=authors, limit=options.limit, trials_per_poem=trials_per_poem, seed=seed
        )
        return style_jobs(store, spec, plan, samples=samples)

    return run_stage(
        store,
        STAGE,
        [judge],
        jobs_for=jobs_for,
        handler_for=lambda spec: StyleMatchRows(),
        options=options,
        child_entry=partial(
            rerun_in_child,
            stage=run_style_matching,
            authors=authors,
            samples=samples,
            trials_per_poem=trials_per_poem,
            seed=seed,
        ),
        console=console,
    )
