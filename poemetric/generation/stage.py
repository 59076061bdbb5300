"""The generation stage: every model writes a poem for every prompt (× samples)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console

from poemetric.providers.base import Completion, ModelSpec, RunCorpus
from poemetric.runner.jobs import Job, cache_key, settings_json, user_request
from poemetric.runner.report import StageInterrupted, StageReport
from poemetric.runner.rows import error_row, response_columns, stored_statuses
from poemetric.runner.runner import RunnerOptions, report_in_child, run_stage
from poemetric.store import StoreError, generation_id_for
from poemetric.store.cut_poems import CutPoems, cut_poems
from poemetric.store.db import RunStore, stable_id, to_json
from poemetric.store.same_samples import same_samples
from poemetric.store.selections import record_selection
from poemetric.store.withheld import withheld_answers

STAGE = "generate"


def prompt_rows(store: RunStore, limit: int | None = None) -> list[dict[str, Any]]:
    """Prompts joined with their poems, in dataset order; `limit` keeps the first N poems."""
    rows = store.query(
        "SELECT p.prompt_id, p.poem_id, p.template_hash, p.text, po.form, po.meter, po.rhyme, "
        "po.theme, po.dataset, po.content, po.position FROM prompts p "
        "JOIN poems po ON po.poem_id = p.poem_id ORDER BY po.position, p.prompt_id"
    )
    selected: list[dict[str, Any]] = []
    poems: set[str] = set()
    for row in rows:
        if limit is not None and row["poem_id"] not in poems and len(poems) >= limit:
            continue
        poems.add(row["poem_id"])
        selected.append(dict(row))
    return selected


def generation_jobs(
    store: RunStore, spec: ModelSpec, *, samples: int = 1, limit: int | None = None
) -> tuple[list[Job], dict[str, str]]:
    """Jobs (prompt × sample) for one model, and the status of rows already stored."""
    jobs: list[Job] = []
    corpus = run_corpus(store)
    for prompt in prompt_rows(store, limit):
        context = {
            "poem_id": prompt["poem_id"],
            "form": prompt["form"],
            "meter": prompt["meter"],
            "rhyme": prompt["rhyme"],
            "theme": prompt["theme"],
            "dataset": prompt["dataset"],
            "original": prompt["content"],
            "corpus": corpus,
        }
        for sample in range(samples):
            request = user_request(prompt["text"], spec.settings, sample, context)
            key = generation_id_for(prompt["prompt_id"], spec.name, sample)
            row = {
                "generation_id": key,
                "prompt_id": prompt["prompt_id"],
                "poem_id": prompt["poem_id"],
                "author": spec.name,
                "sample_index": sample,
                "provider": spec.provider,
                "settings": settings_json(spec.settings),
                "template_hash": prompt["template_hash"],
            }
            scoped_key = cache_key(spec, request, scope=prompt["prompt_id"])
            jobs.append(Job(key, spec, request, scoped_key, row))
    statuses = stored_statuses(
        store, jobs, table="generations", parent="prompt_id", owner="author", name=spec.name
    )
    return jobs, statuses


def run_corpus(store: RunStore) -> RunCorpus:
    """The run's stored dataset snapshot, for offline generators that learn from the poems."""
    rows = store.query("SELECT poem_id, content FROM poems ORDER BY position, poem_id")
    poems = tuple((str(row["poem_id"]), str(row["content"])) for row in rows)
    return RunCorpus(stable_id("corpus", *(f"{pid}:{text}" for pid, text in poems)), poems)


class GenerationRows:
    """Result rows of the `generations` table."""

    table = "generations"

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        from poemetric.generation.extract import extract_poem

        extracted = extract_poem(completion.text, completion.reasoning)
        return {
            **response_columns(job, completion, cost_usd=cost_usd, batch_id=batch_id),
            "status": "ok",
            "poem": extracted.poem,
            "reasoning": extracted.reasoning,
            "extraction_notes": to_json(list(extracted.notes)),
            "finish_reason": completion.finish_reason,
            "error": None,
        }

    def error_row(self, job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]:
        return error_row(job, error, batch_id=batch_id)


def run_generation(
    store: RunStore,
    specs: Sequence[ModelSpec],
    *,
    options: RunnerOptions | None = None,
    console: Console | None = None,
) -> StageReport:
    """Generate (or, with `options.dry_run`, plan) poems for every stored prompt and model.

    Jobs are prompt × model × sample (`options.samples`; `options.limit` keeps the first N
    poems). Already-ok rows are skipped, cached
    responses replayed, and the rest called; see `poemetric.runner.runner`. A run with no
    prompts (never prepared) is a StoreError (`unprepared`). Each model's selection (`--limit`
    and the poems it picks here, `--samples`) is recorded for `merge`
    (`poemetric.store.selections`), of a shard too: the shards of one run pick the same poems;
    without a limit, the poems the run holds prompts for when that is fewer than its dataset.
    """
    options = options or RunnerOptions()
    unprepared(store)
    if not options.dry_run:  # what `merge` counts each model's poems against
        limit, picked = _selected_poems(store, options.limit)
        names = [spec.name for spec in specs]
        record_selection(store, STAGE, names, limit=limit, samples=options.samples, poems=picked)
    try:
        report = run_stage(
            store,
            STAGE,
            specs,
            jobs_for=lambda spec: generation_jobs(
                store, spec, samples=options.samples, limit=options.limit
            ),
            handler_for=lambda spec: GenerationRows(),
            options=options,
            child_entry=_generation_child,
            console=console,
        )
    except StageInterrupted as stop:  # its summary says so too
        note_stored_answers(store, stop.report, specs)
        raise
    note_stored_answers(store, report, specs)
    return report


def note_stored_answers(store: RunStore, report: StageReport, specs: Sequence[ModelSpec]) -> None:
    """A warning under each model's summary for its poems in the run that the provider stopped
    at the token limit (stored "ok" and scored as written, they said nothing of it), and one for
    its answers that the provider, not the model, ended (a safety or content filter, a refusal:
    `poemetric.store.withheld`), and one for a model whose samples of each prompt are one poem
    (`poemetric.store.same_samples`). Each names the model's own file (`specs`)."""
    if report.dry_run:
        return
    names = [model.model for model in report.models]
    files = {spec.name: spec.model_file() for spec in specs}
    for warnings in (
        {e.author: cut_poems_warning(e, files[e.author]) for e in cut_poems(store, names)},
        {entry.author: entry.warning() for entry in withheld_answers(store, names)},
        {e.author: e.warning(files[e.author]) for e in same_samples(store, names)},
    ):
        for model in report.models:
            warning = warnings.get(model.model)
            # Not twice: an isolated model's child said it already.
            if warning is not None and warning not in model.warnings:
                model.warnings.append(warning)


def cut_poems_warning(entry: CutPoems, model_file: str) -> str:
    """What to say of `entry`'s poems cut at the token limit, and what to change (in
    `model_file`)."""
    return (
        f"{entry.counted(' in the run')}: stored and scored as written, so the form check "
        "and the judges see unfinished poems. Raise settings.max_tokens in its model file "
        f"({model_file}) and generate into a new --run: a run never asks "
        "again for a poem it holds."
    )


def _selected_poems(store: RunStore, limit: int | None) -> tuple[int | None, list[str] | None]:
    """The `limit` and poems to record for this call: with a limit, the poems it picks; without
    one, the poems the run holds prompts for, as `--limit len(held)`, when that is fewer than its
    dataset (a resume without `--limit` keeps a run's prompts: recorded as "every poem", it
    replaced the `--limit` the run was prepared with, and `merge` counted the model over every
    poem); (None, None), every poem, only when the run holds them all."""
    held = list(dict.fromkeys(str(row["poem_id"]) for row in prompt_rows(store, limit)))
    if limit is None and len(held) >= store.count("poems"):
        return None, None
    return (len(held) if limit is None else limit), held


def unprepared(store: RunStore) -> None:
    """Refuse (StoreError) to generate for a run that has no prompts: a store opened but never
    prepared (`prepare_run` forgotten) planned 0 jobs and returned as if all were done. A
    prepared run whose jobs are all done still plans 0 jobs, quietly."""
    if store.query("SELECT 1 FROM prompts LIMIT 1"):
        return
    raise StoreError(
        f"run {store.run_dir} has no prompts to generate for: prepare it first, with "
        "prepare_run(store, DATASET) (poemetric.pipeline; DATASET a dataset name such as "
        "'demo', or a file) before run_generation; on the command line, `poemetric generate "
        "--run RUN --dataset DATASET --models ...` prepares and generates in one go"
    )


def _generation_child(
    run_dir: str, spec_data: dict[str, Any], options: RunnerOptions, target: str
) -> dict[str, Any]:
    """Child-process entry for providers with `isolate_process` (one model per process)."""
    return report_in_child(
        run_dir,
        spec_data,
        target,
        lambda store, spec: run_generation(store, [spec], options=options),
    )
