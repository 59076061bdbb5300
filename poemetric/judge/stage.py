"""The judge stage: an LLM judge scores every stored poem with the paper's questionnaire.

The judge is blind to authorship: its prompt holds only the generation prompt and the poem text.
Each response is parsed into the `judgments` columns. An unparsable answer is stored as an
'error' row with the raw response kept; the next run re-parses it from the response cache (no new
call, so a parser fix costs nothing), and only `--refresh-failed-parses` pays for a new answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from rich.console import Console

from poemetric.judge.answer import JudgeParseError
from poemetric.judge.parse import parse_judge_response
from poemetric.prompts import JUDGE_TEMPLATE, load_template, render_judge_prompt
from poemetric.providers.base import Completion, ModelSpec
from poemetric.runner.jobs import Job, cache_key, settings_json, user_request
from poemetric.runner.report import ModelReport, StageReport
from poemetric.runner.rows import error_row, response_columns, stored_statuses
from poemetric.runner.runner import RunnerOptions, register_target, run_stage
from poemetric.store.db import RunStore, stable_id, to_json

STAGE = "judge"


def judgment_id_for(generation_id: str, judge: str, sample_index: int) -> str:
    return stable_id("judgment", generation_id, judge, sample_index)


def judgeable_generations(
    store: RunStore, *, authors: Sequence[str] | None = None, limit: int | None = None
) -> list[dict[str, Any]]:
    """Ok generations with their generation prompt, in dataset order (first `limit` poems)."""
    rows = store.query(
        "SELECT g.generation_id, g.author, g.sample_index, g.poem, g.poem_id, p.text AS prompt "
        "FROM generations g JOIN prompts p ON p.prompt_id = g.prompt_id "
        "JOIN poems po ON po.poem_id = g.poem_id "
        "WHERE g.status = 'ok' ORDER BY po.position, g.author, g.sample_index"
    )
    wanted = set(authors) if authors else None
    poems: set[str] = set()
    selected: list[dict[str, Any]] = []
    for row in rows:
        if wanted is not None and row["author"] not in wanted:
            continue
        if limit is not None and row["poem_id"] not in poems and len(poems) >= limit:
            continue
        poems.add(row["poem_id"])
        selected.append(dict(row))
    return selected


def judge_jobs(
    store: RunStore,
    judge: ModelSpec,
    *,
    authors: Sequence[str] | None = None,
    samples: int = 1,
    limit: int | None = None,
) -> tuple[list[Job], dict[str, str]]:
    template = load_template(JUDGE_TEMPLATE)
    store.add_template(template.name, template.text)
    jobs: list[Job] = []
    for generation in judgeable_generations(store, authors=authors, limit=limit):
        rendered = render_judge_prompt(generation["prompt"], generation["poem"] or "")
        for sample in range(samples):
            request = user_request(rendered.text, judge.settings, sample)
            key = judgment_id_for(generation["generation_id"], judge.name, sample)
            row = {
                "judgment_id": key,
                "generation_id": generation["generation_id"],
                "judge": judge.name,
                "sample_index": sample,
                "provider": judge.provider,
                "settings": settings_json(judge.settings),
                "template_hash": rendered.template_hash,
            }
            # Scoped by generation: two poems with the same text (a model reciting the human
            # original, say) are judged independently, as they would be without a cache.
            scoped_key = cache_key(judge, request, scope=generation["generation_id"])
            jobs.append(Job(key, judge, request, scoped_key, row))
    statuses = stored_statuses(
        store, jobs, table="judgments", parent="generation_id", owner="judge", name=judge.name
    )
    return jobs, statuses


class JudgmentRows:
    """Result rows of the `judgments` table."""

    table = "judgments"

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        row: dict[str, Any] = {
            **response_columns(job, completion, cost_usd=cost_usd, batch_id=batch_id),
            "reasoning": completion.reasoning,
        }
        try:
            columns = parse_judge_response(completion.text).to_columns()
        except JudgeParseError as error:
            return {
                **row,
                "status": "error",
                "parsed": None,
                "error": f"unparsable answer: {error}",
            }
        return {**row, **columns, "status": "ok", "parsed": to_json(columns), "error": None}

    def error_row(self, job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]:
        return error_row(job, error, batch_id=batch_id)


def run_judging(
    store: RunStore,
    judge: ModelSpec,
    *,
    options: RunnerOptions | None = None,
    authors: list[str] | None = None,
    samples: int = 1,
    console: Console | None = None,
) -> StageReport:
    """Judge every ok generation (of `authors`, default all) `samples` times with `judge`."""
    options = options or RunnerOptions()
    return run_stage(
        store,
        STAGE,
        [judge],
        jobs_for=lambda spec: judge_jobs(
            store, spec, authors=authors, samples=samples, limit=options.limit
        ),
        handler_for=lambda spec: JudgmentRows(),
        options=options,
        child_entry=partial(_judge_child, authors=authors, samples=samples),
        console=console,
    )


def _judge_child(
    run_dir: str,
    spec_data: dict[str, Any],
    options: RunnerOptions,
    target: str,
    *,
    authors: list[str] | None,
    samples: int,
) -> dict[str, Any]:
    """Child-process entry for a judge whose provider has `isolate_process` (local vLLM)."""
    judge = ModelSpec.model_validate(spec_data)
    register_target(judge.provider, target)
    with RunStore(run_dir) as store:
        report = run_judging(store, judge, options=options, authors=authors, samples=samples)
    if report.models:
        return report.models[0].to_dict()
    return ModelReport(judge.name, judge.provider).to_dict()
