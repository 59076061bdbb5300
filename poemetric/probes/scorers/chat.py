"""`chat:<model>`: forced choice for models that give no log-probabilities (API models).

The model sees both poems of a pair, labelled 1 and 2, and must answer which is the original.
The original's position is a fair coin per pair, drawn from the seed and the pair's own id (so
about half of the pairs show it first), never from the other pairs: `--limit`, `--tasks` or a
longer pairs file leave every pair's prompt, and so its cached answer, as it was. A pair already
stored keeps the position it was asked with. The answer is parsed strictly: ``1`` or ``2``
(optionally "Poem 1", with surrounding punctuation), nothing else. An answer that does not parse
is kept as an error row with its text; the next run re-parses it from the cache for free, like a
judge answer. Calls go through the batch runner, so they are cached in the run store given by
`--run` and an interrupted run resumes without paying twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console

from poemetric.probes.pairs import Pair
from poemetric.probes.scorers.base import ScoreRecord, Verdict
from poemetric.providers.base import Completion, ModelSpec
from poemetric.runner.jobs import Job, cache_key, settings_json, user_request
from poemetric.runner.preflight import refuse_before_new_store
from poemetric.runner.rows import error_row, response_columns, stored_statuses, unanswered
from poemetric.runner.runner import RunnerOptions, run_stage
from poemetric.store.db import RunStore, stable_id
from poemetric.store.probe_pairs import PairRequest, record_probe_pairs

STAGE = "probe"
TABLE = "probe_choices"
PROMPT = (
    "One of the two poems below is an original poem; the other is a copy that was altered "
    "slightly (words swapped, replaced or removed, lines swapped or rewritten).\n\n"
    "Poem 1:\n{first}\n\nPoem 2:\n{second}\n\n"
    "Which poem is the original? Answer with the number only: 1 or 2."
)
_ANSWER = re.compile(r"^\W*(?:poem\s*)?([12])\W*$", re.IGNORECASE)


def parse_choice(text: str) -> int | None:
    match = _ANSWER.match(text.strip())
    return int(match.group(1)) if match else None


def original_position(pair_id: str, seed: int) -> int:
    """Position (1 or 2) of a pair's original: a seeded coin of the pair's own id.

    It depends on nothing else, so a pair is shown the same way whichever other pairs are scored
    with it (`--limit`, `--tasks`): a balanced shuffle of the scored pairs moved pairs between
    positions when the selection changed, and their prompts, so a later run missed their cached
    answers and paid for them again."""
    return 1 + int(stable_id(seed, "chat-order", pair_id), 16) % 2


def original_positions(pairs: Sequence[Pair], seed: int) -> dict[str, int]:
    """Position (1 or 2) of each pair's original (`original_position`)."""
    return {pair.id: original_position(pair.id, seed) for pair in pairs}


class ChoiceRows:
    table = TABLE

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        choice = parse_choice(completion.text)
        return {
            **response_columns(job, completion, cost_usd=cost_usd, batch_id=batch_id),
            "status": "ok" if choice is not None else "error",
            "choice": choice,
            "error": None
            if choice is not None
            else f"unparsable answer (expected 1 or 2): {completion.text[:80]!r}",
        }

    def error_row(self, job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]:
        return error_row(job, error, batch_id=batch_id)


class ChatScorer:
    def __init__(
        self,
        spec: ModelSpec,
        run_dir: Path,
        *,
        seed: int = 0,
        options: RunnerOptions | None = None,
        request: PairRequest | None = None,
    ) -> None:
        self.spec = spec
        self.run_dir = run_dir
        self.seed = seed
        self.options = options or RunnerOptions()
        self.name = f"chat:{spec.name}"
        self.request = request

    def jobs(self, store: RunStore, pairs: Sequence[Pair]) -> tuple[list[Job], dict[str, str]]:
        # A stored pair (an unparsable answer, a failed call) is asked as it was before, so its
        # cached answer is found again, even in a store made when positions were drawn otherwise.
        stored = {
            r["pair_id"]: int(r["original_position"])
            for r in store.query(
                f"SELECT pair_id, original_position FROM {TABLE} "
                "WHERE scorer = ? AND sample_index = 0 AND original_position IS NOT NULL",
                (self.name,),
            )
        }
        positions = {**original_positions(pairs, self.seed), **stored}
        jobs = []
        for pair in pairs:
            position = positions[pair.id]
            first, second = (
                (pair.original, pair.corrupted)
                if position == 1
                else (pair.corrupted, pair.original)
            )
            request = user_request(PROMPT.format(first=first, second=second), self.spec.settings, 0)
            choice_id = stable_id(pair.id, self.name, 0)
            row: dict[str, Any] = {
                "choice_id": choice_id,
                "pair_id": pair.id,
                "scorer": self.name,
                "sample_index": 0,
                "task": pair.task,
                "poem_id": pair.poem_id,
                "original_position": position,
                "provider": self.spec.provider,
                "settings": settings_json(self.spec.settings),
            }
            key = cache_key(self.spec, request, scope=pair.id)
            jobs.append(Job(choice_id, self.spec, request, key, row))
        statuses = stored_statuses(
            store, jobs, table=TABLE, parent="pair_id", owner="scorer", name=self.name
        )
        return jobs, statuses

    def score(self, pairs: Sequence[Pair]) -> list[ScoreRecord]:
        refuse_before_new_store(self.spec, self.run_dir)  # no empty store for a model without a key
        with RunStore(self.run_dir) as store:
            if self.request is not None:  # before any answer: a stop leaves it recorded
                asked = {pair.id: pair.task for pair in pairs}
                record_probe_pairs(store, self.name, replace(self.request, pairs=asked))
            self.report = run_stage(
                store,
                STAGE,
                [self.spec],
                jobs_for=lambda spec: self.jobs(store, pairs),
                handler_for=lambda spec: ChoiceRows(),
                options=self.options,
                # Progress on stderr (as hf:'s): stdout is the tables (`probe run ... > out.md`).
                console=Console(emoji=False, stderr=True),
            )
            rows = {
                r["pair_id"]: dict(r)
                for r in store.query(
                    f"SELECT * FROM {TABLE} WHERE scorer = ? AND sample_index = 0", (self.name,)
                )
            }
        self.unanswered, self.first_error = unanswered(
            self.report.models[0], [rows.get(pair.id) for pair in pairs]
        )
        records = []
        for pair in pairs:
            row = rows.get(pair.id)
            verdict: Verdict = "unanswered"
            details: dict[str, Any] = {"model": self.spec.model}
            if row is not None:
                details.update(original_position=row["original_position"], choice=row["choice"])
                if row["status"] == "ok":
                    verdict = "correct" if row["choice"] == row["original_position"] else "wrong"
                else:
                    details["error"] = row["error"]
            records.append(
                ScoreRecord(
                    pair_id=pair.id,
                    poem_id=pair.poem_id,
                    task=pair.task,
                    scorer=self.name,
                    verdict_sum=verdict,
                    verdict_mean=verdict,
                    details=details,
                    pair_digest=pair.digest,
                )
            )
        return records
