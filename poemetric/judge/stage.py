"""The judge stage: LLM judges score every stored poem with the paper's questionnaire.

The judge is blind to authorship: its prompt holds only the generation prompt and the poem text.
Each response is parsed into the `judgments` columns (`poemetric.judge.parse`). An unparsable
answer gets `reask` follow-up turns carrying the parser's reason (every turn is cached and kept in
the row's `turns`; `reasks` marks a re-asked answer). An answer that stays unparsable is stored
as an 'error' row with the raw response kept; the next run re-parses it from the response cache
(no new call, so a parser fix costs nothing), and only `--refresh-failed-parses` pays for a new
answer. A generation that is not a poem (empty after extraction, a refusal) is not sent at all:
it is stored as 'not_judged' with the reason, and costs nothing.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console

from poemetric.judge.finish import note_cut_answers
from poemetric.judge.rows import JudgmentRows as JudgmentRows
from poemetric.judge.rows import reask_prompt as reask_prompt
from poemetric.judge.structured import JUDGE_RESPONSE_SCHEMA, structured_mode
from poemetric.prompts import (
    JUDGE_TEMPLATE,
    PromptTemplate,
    render_judge_prompt,
    template_or_bundled,
)
from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import provider_class
from poemetric.runner.jobs import Job, cache_key, settings_json, user_request
from poemetric.runner.report import StageInterrupted, StageReport
from poemetric.runner.rows import stored_statuses
from poemetric.runner.runner import RunnerOptions, rerun_in_child, run_stage
from poemetric.screening import not_a_poem_reason
from poemetric.store.db import RunStore, StoreError, stable_id
from poemetric.store.models import JUDGE_STAGE
from poemetric.store.selections import record_selection
from poemetric.text.plural import counted

STAGE = JUDGE_STAGE


class JudgeStageError(ValueError):
    """A judge cannot run over this run as asked (e.g. another template than before)."""


def judgment_id_for(generation_id: str, judge: str, sample_index: int) -> str:
    return stable_id("judgment", generation_id, judge, sample_index)


def judge_template(
    judge: ModelSpec, override: str | Path | None = None, store: RunStore | None = None
) -> PromptTemplate:
    """The judge's prompt template: `override`, the judge file's `template`, or the paper's;
    with `store`, as the run's judgments of this judge hold it (`PromptTemplate.as_stored`: the
    file's text with its byte-order mark for a run judged before the mark was dropped)."""
    template = template_or_bundled(override or judge.template or None, JUDGE_TEMPLATE)
    if store is None or template.legacy_text is None:
        return template
    rows = store.query(
        "SELECT DISTINCT template_hash FROM judgments WHERE judge = ? AND template_hash IS NOT NULL",
        (judge.name,),
    )
    return template.as_stored({str(row[0]) for row in rows})


def check_template(store: RunStore, judge: ModelSpec, template: PromptTemplate) -> None:
    """Refuse to mix two templates under one judge name in a run: the template hash keeps
    judgments apart, so a variant is another judge (another file, another name)."""
    rows = store.query(
        "SELECT t.name, j.template_hash, COUNT(*) AS n FROM judgments j "
        "LEFT JOIN templates t ON t.template_hash = j.template_hash "
        "WHERE j.judge = ? AND j.template_hash IS NOT NULL AND j.template_hash != ? "
        "GROUP BY j.template_hash",
        (judge.name, template.sha256),
    )
    if rows:
        used = ", ".join(f"{r['name'] or '?'} (sha256 {r['template_hash'][:12]}…)" for r in rows)
        raise JudgeStageError(
            f"judge {judge.name!r} already judged {counted(sum(r['n'] for r in rows), 'poem')} of this run "
            f"with another template: {used}; this command uses {template.name} (sha256 "
            f"{template.sha256[:12]}…). A judge with another template is another judge: "
            f"{_variant_hint(judge.name)}, or use another run."
        )


def _variant_hint(name: str) -> str:
    """How to make a variant of judge `name`: a copy of its file in the folder it was read from
    (the checkout's `judges/`, a POEMETRIC_JUDGES_DIR folder), or, for a judge that came with a
    pip install, in a folder of the user's own that POEMETRIC_JUDGES_DIR then names: the wheel's
    folder is no place for the user's files."""
    from poemetric.paths import installed_root, resource_path
    from poemetric.roster import RosterError, load_catalog

    variant = f"{name}-<variant>"
    change = f"set `name: {variant}` and `template:` in it"
    try:
        entry = load_catalog("judges", check_providers=False).entries.get(name)
    except (RosterError, OSError):
        entry = None
    if entry is None:
        return (
            f"copy its file to {variant}.yaml in a folder that POEMETRIC_JUDGES_DIR names and "
            f"{change}"
        )
    folder = entry.path.parent
    in_wheel = installed_root().name == "_resources" and not os.environ.get("POEMETRIC_HOME")
    if in_wheel and folder == resource_path("judges"):
        return (
            f"copy its file ({entry.path}) to {variant}.yaml in a folder of your own, {change} "
            "and export POEMETRIC_JUDGES_DIR=that-folder"
        )
    return f"copy its file ({entry.path}) to {folder / (variant + entry.path.suffix)} and {change}"


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


@dataclasses.dataclass
class JudgePlan:
    """Builds one judge's jobs (the runner's `jobs_for`); stores 'not_judged' rows on the way."""

    store: RunStore
    authors: Sequence[str] | None = None
    samples: int = 1
    limit: int | None = None
    template: str | Path | None = None
    #: Generations not sent, by judge name.
    not_sent: dict[str, int] = dataclasses.field(default_factory=dict)

    def note_not_sent(self, report: StageReport) -> None:
        """Each judge's generations not sent (not poems) in its summary row."""
        for model in report.models:
            model.not_sent = self.not_sent.get(model.model, model.not_sent)

    def __call__(self, judge: ModelSpec) -> tuple[list[Job], dict[str, str]]:
        template = judge_template(judge, self.template, self.store)
        self.store.add_template(template.name, template.text)
        skipped: list[dict[str, Any]] = []
        jobs = self._jobs(judge, self.authors, self.limit, skipped)
        stored = {
            (r["generation_id"], int(r["sample_index"])): r["error"]
            for r in self.store.query(
                "SELECT generation_id, sample_index, error FROM judgments "
                "WHERE judge = ? AND status = 'not_judged'",
                (judge.name,),
            )
        }
        # A row stored as not judged for the same reason stays as it is: re-storing each one
        # on every run, a transaction each, counted it in `attempts` as if sent again.
        changed = [
            row
            for row in skipped
            if stored.get((row["generation_id"], row["sample_index"])) != row["error"]
        ]
        if changed:
            with self.store.transaction():
                for row in changed:
                    self.store.save_judgment(row)
        self.not_sent[judge.name] = len(skipped)
        statuses = stored_statuses(
            self.store,
            jobs,
            table="judgments",
            parent="generation_id",
            owner="judge",
            name=judge.name,
        )
        return jobs, statuses

    def basis_jobs(self, judge: ModelSpec) -> list[Job] | None:
        """The judge's jobs over every poem of the run, for the runner's estimates
        (`poemetric.runner.estimate_basis.observe`): with `--authors` or `--limit` its answers
        to the other poems were not looked at, and a plan said "default 800 tokens" for a judge
        with hundreds of ~40-token answers. None: the same as the jobs (nothing left out)."""
        if self.authors is None and self.limit is None:
            return None
        return self._jobs(judge, None, None, [])

    def _jobs(
        self,
        judge: ModelSpec,
        authors: Sequence[str] | None,
        limit: int | None,
        skipped: list[dict[str, Any]],
    ) -> list[Job]:
        """The judge's jobs over the generations of `authors` (`limit` poems); the rows of
        generations that are not poems go to `skipped`."""
        template = judge_template(judge, self.template, self.store)
        vary_seed = self.samples > 1 and provider_class(judge.provider).takes_seed
        schema = JUDGE_RESPONSE_SCHEMA if judge.structured == "auto" else None
        jobs: list[Job] = []
        for generation in judgeable_generations(self.store, authors=authors, limit=limit):
            reason = not_a_poem_reason(generation["poem"])
            rendered = render_judge_prompt(generation["prompt"], generation["poem"] or "", template)
            for sample in range(self.samples):
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
                if reason is not None:
                    skipped.append({**row, "status": "not_judged", "error": reason})
                    continue
                request = user_request(
                    rendered.text,
                    judge.settings,
                    sample,
                    vary_seed=vary_seed,
                    response_schema=schema,
                )
                row.update(
                    reasks=0,
                    turns=None,
                    structured=structured_mode(judge.provider) if schema else None,
                )
                # Scoped by generation: two poems with the same text (a model reciting the human
                # original, say) are judged independently, as they would be without a cache.
                scoped_key = cache_key(judge, request, scope=generation["generation_id"])
                jobs.append(Job(key, judge, request, scoped_key, row))
        return jobs


def nothing_to_judge(store: RunStore) -> None:
    """Refuse (StoreError) to judge a run without an ok generation: a store never prepared or
    generated for planned 0 jobs and returned as if all were judged. A run whose poems are all
    judged already still plans 0 jobs, quietly."""
    ((total, ok),) = store.query(
        "SELECT COUNT(*), COALESCE(SUM(status = 'ok'), 0) FROM generations"
    )
    if ok:
        return
    what = (
        "no poems to judge"
        if total == 0
        else f"no poems to judge (none of its {counted(total, 'generation')} succeeded)"
    )
    raise StoreError(
        f"run {store.run_dir} has {what}: generate first, with prepare_run(store, DATASET) "
        "(poemetric.pipeline) and run_generation(store, MODELS) (poemetric.generation.stage) "
        "before run_judging; on the command line, `poemetric generate --run RUN --dataset "
        "DATASET --models ...` then `poemetric judge --run RUN --judge JUDGE`"
    )


def run_judging(
    store: RunStore,
    judges: ModelSpec | Sequence[ModelSpec],
    *,
    options: RunnerOptions | None = None,
    authors: list[str] | None = None,
    samples: int = 1,
    template: str | Path | None = None,
    console: Console | None = None,
) -> StageReport:
    """Judge every ok generation (of `authors`, default all) `samples` times with each judge.

    Several judges (a panel) run side by side, each with its own rate limits. `template`
    replaces every judge's prompt template (`--judge-template`). A run with no ok generation
    (never prepared, or every generation failed) is a StoreError (`nothing_to_judge`).
    """
    options = options or RunnerOptions()
    nothing_to_judge(store)
    panel = [judges] if isinstance(judges, ModelSpec) else list(judges)
    for judge in panel:
        check_template(store, judge, judge_template(judge, template, store))
    if not options.dry_run:  # what `merge` counts its poems against
        names = [judge.name for judge in panel]
        picked = (
            None
            if options.limit is None
            else [
                g["poem_id"]
                for g in judgeable_generations(store, authors=authors, limit=options.limit)
            ]
        )
        record_selection(
            store, STAGE, names, authors=authors, limit=options.limit, samples=samples, poems=picked
        )
    plan = JudgePlan(store, authors, samples, options.limit, template)
    try:
        report = run_stage(
            store,
            STAGE,
            panel,
            jobs_for=plan,
            handler_for=JudgmentRows,
            options=options,
            child_entry=partial(
                rerun_in_child,
                stage=run_judging,
                authors=authors,
                samples=samples,
                template=template,
            ),
            console=console,
        )
    except StageInterrupted as stop:  # its summary counts the non-poems too
        plan.note_not_sent(stop.report)
        note_cut_answers(store, panel, stop.report)
        raise
    plan.note_not_sent(report)
    note_cut_answers(store, panel, report)
    return report
