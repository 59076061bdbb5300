"""The `last_line` task's lines written by an API model, asked through the batch runner.

Each (poem, sample) is one job of the runner (`poemetric.runner`), as `probe run --scorer chat:`
asks its questions: the calls are paced by the model's rate limit and retried on transient
errors, every answer is stored in the run store given by `--run` (table `probe_lines`, beside
its response-cache entry) the moment it arrives, and Ctrl-C or SIGTERM lets the answers in
flight arrive. So a second build with the same generator, poems, seed and settings makes no
call, and an interrupted build resumes paying only for the lines it has not got yet. The lines
are always read back from the store, so a pairs file is the same whether they came from the API
or from the cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from poemetric.probes.last_line import LineRequest, first_line
from poemetric.providers.base import Completion, ModelSpec
from poemetric.runner.jobs import Job, cache_key, settings_json, user_request
from poemetric.runner.preflight import refuse_before_new_store
from poemetric.runner.report import ModelReport
from poemetric.runner.rows import error_row, response_columns, unanswered
from poemetric.runner.runner import RunnerOptions, run_stage
from poemetric.store.db import RunStore, stable_id

STAGE = "probe-lines"
TABLE = "probe_lines"
PROMPT = (
    "Here is a poem with its last line missing:\n\n{context}\n"
    "Write the missing last line. It must rhyme with \u201c{partner}\u201d. "
    "Answer with that one line only."
)


def candidate_line(text: str) -> str:
    """The line an answer offers: its first non-empty line, without quotes around it."""
    return first_line(text).strip("\"'\u201c\u201d")


class LineRows:
    """Result rows of the `probe_lines` table: any answer is 'ok' (its line is judged later)."""

    table = TABLE
    natural_key = ("line_id",)

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        return {
            **response_columns(job, completion, cost_usd=cost_usd, batch_id=batch_id),
            "status": "ok",
            "error": None,
        }

    def error_row(self, job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]:
        return error_row(job, error, batch_id=batch_id)


class ChatLineGenerator:
    """Asks any provider, through its chat interface, for the poem's last line.

    A failed call gives no candidate; after `candidates`, `calls`, `failed` and `first_error`
    (redacted) say how many lines were asked for, how many are missing and why the first one is;
    `report` is the runner's account of the model (calls made, answers from the store).
    """

    def __init__(
        self,
        spec: ModelSpec,
        run_dir: Path = Path("runs/probes"),
        *,
        attempts: int = 4,
        options: RunnerOptions | None = None,
    ) -> None:
        self.spec = spec
        self.run_dir = run_dir
        self.attempts = attempts
        self.options = options or RunnerOptions()
        self.description = f"{spec.name} (chat, {attempts} samples)"
        self.calls = 0
        self.failed = 0
        self.first_error: str | None = None
        self.report: ModelReport | None = None

    def jobs(self, requests: Sequence[LineRequest]) -> list[Job]:
        """One job per (request, sample), in order."""
        from poemetric.providers.registry import provider_class

        spec = self.spec
        # Each poem's seed only where the provider takes one, as the judge stage does: the
        # Anthropic API has none, and its adapter refuses every request that carries one.
        seeded = provider_class(spec.provider).takes_seed
        jobs = []
        for r in requests:
            settings = (
                spec.settings.model_copy(update={"seed": r.seed}) if seeded else spec.settings
            )
            for sample in range(self.attempts):
                text = PROMPT.format(context=r.context, partner=r.partners[0])
                request = user_request(text, settings, sample)
                # The poem and its seed in the key: two poems with the same prompt, or one poem
                # built with another --seed, get their own samples (also from a seedless API).
                key = cache_key(spec, request, scope=f"last_line:{r.poem_id}:{r.seed}")
                line_id = stable_id(spec.name, key)
                row = {
                    "line_id": line_id,
                    "poem_id": r.poem_id,
                    "generator": spec.name,
                    "sample_index": sample,
                    "seed": r.seed,
                    "provider": spec.provider,
                    "settings": settings_json(request.settings),
                }
                jobs.append(Job(line_id, spec, request, key, row))
        return jobs

    def candidates(self, requests: Sequence[LineRequest]) -> list[list[str]]:
        jobs = self.jobs(requests)
        unique = list({job.key: job for job in jobs}.values())
        refuse_before_new_store(self.spec, self.run_dir)  # no empty store for a model without a key
        with RunStore(self.run_dir) as store:

            def jobs_for(spec: ModelSpec) -> tuple[list[Job], dict[str, str]]:
                return unique, _statuses(store, self.spec.name)

            report = run_stage(
                store,
                STAGE,
                [self.spec],
                jobs_for=jobs_for,
                handler_for=lambda spec: LineRows(),
                options=self.options,
                answers_kept_across_models=False,  # a line's id covers its model and settings
            )
            rows = {
                str(r["line_id"]): r
                for r in store.query(
                    f"SELECT line_id, status, response_text, error FROM {TABLE} "
                    "WHERE generator = ?",
                    (self.spec.name,),
                )
            }
        self.report = report.models[0]
        answered = [rows.get(job.key) for job in jobs]
        self.calls = len(jobs)
        self.failed, self.first_error = unanswered(self.report, answered)
        texts = [
            str(row["response_text"] or "") if row is not None and row["status"] == "ok" else ""
            for row in answered
        ]
        return [
            [candidate_line(t) for t in texts[i : i + self.attempts]]
            for i in range(0, len(texts), self.attempts)
        ]


def _statuses(store: RunStore, generator: str) -> dict[str, str]:
    return {
        str(r["line_id"]): str(r["status"])
        for r in store.query(
            f"SELECT line_id, status FROM {TABLE} WHERE generator = ?", (generator,)
        )
    }
