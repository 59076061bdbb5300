"""What a call's estimate rests on: the answers the model already gave in this stage, else the
documented typical length (`cost.TYPICAL_OUTPUT_TOKENS`).

The default (800 output tokens) is about 25 times a judge's short JSON answer, so a dry run
overstated a judge's cost and `--max-cost` skipped calls that would have fitted. Once the model
has stored answers of this stage (their usage is in the response cache, under the cache keys of
this stage's jobs), the remaining calls are estimated from them:

- a plan (`--dry-run`, the estimated cost) uses a high percentile of the answers so far, not
  their mean, so that it errs on the side of cost;
- a reservation before a call (`--max-cost`) uses the longest answer so far with headroom, so
  that the cap stays safe: a call settles at its real cost, and only an answer longer than
  `RESERVE_HEADROOM` times every answer so far could spend past its reservation (as one longer
  than the default could before; `max_tokens` in the model file stays the hard bound).

Input tokens are estimated from the prompt length (`cost.CHARS_PER_TOKEN`), scaled by the ratio
of the reported input tokens to that estimate over the answers so far (the same percentile; the
largest ratio for a reservation).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from poemetric.providers.base import ModelSpec
from poemetric.runner.cost import estimate_input_tokens, estimate_output_tokens
from poemetric.runner.jobs import Job
from poemetric.store.db import RunStore
from poemetric.text.plural import plural

#: Stored answers (with reported usage) a model needs in a stage before they replace the default.
MIN_ANSWERS = 10
#: A plan's output (and input ratio) estimate: this percentile of the answers so far.
PLAN_PERCENTILE = 95.0
#: A reservation's output estimate: the longest answer so far times this.
RESERVE_HEADROOM = 1.5

T = TypeVar("T", int, float)


@dataclass(frozen=True)
class EstimateBasis:
    """Per-call estimates of one model in one stage; `answers` 0: the documented default."""

    answers: int = 0
    plan_output_tokens: int = 0
    reserve_output_tokens: int = 0
    plan_input_ratio: float = 1.0
    reserve_input_ratio: float = 1.0

    @property
    def observed(self) -> bool:
        return self.answers > 0

    def output_tokens(self, spec: ModelSpec, override: int | None, *, reserve: bool) -> int:
        """Output tokens of one call: the override, else from the answers so far, else the
        default (`estimate_output_tokens`)."""
        if override is not None or not self.observed:
            return estimate_output_tokens(spec, override)
        return self.reserve_output_tokens if reserve else self.plan_output_tokens

    def input_tokens(self, job: Job, override: int | None, *, reserve: bool) -> int:
        tokens = estimate_input_tokens(job.request.messages)
        if override is not None or not self.observed:
            return tokens
        return math.ceil(tokens * (self.reserve_input_ratio if reserve else self.plan_input_ratio))

    def describe(self, spec: ModelSpec, override: int | None) -> str:
        """The dry run's words: `31 tokens, from 40 answers so far` or `default 800 tokens`."""
        tokens = self.output_tokens(spec, override, reserve=False)
        if override is not None:
            return f"{tokens:,} tokens (set)"
        if not self.observed:
            return f"default {tokens:,} tokens"
        return f"{tokens:,} tokens, from {self.answers:,} {plural(self.answers, 'answer')} so far"


def observe(store: RunStore, spec: ModelSpec, jobs: Sequence[Job]) -> EstimateBasis:
    """The basis of `spec`'s estimates in a stage whose jobs (all of them, any shard) are `jobs`:
    the usage of their first-turn answers in the response cache (paid ones, parsed or not).
    Answers without reported usage tell nothing; fewer than `MIN_ANSWERS`: the default."""
    wanted = {job.cache_key: job for job in jobs}
    outputs: list[int] = []
    ratios: list[float] = []
    for cache_key, input_tokens, output_tokens in _usages(store, spec, list(wanted)):
        job = wanted[cache_key]
        if not (input_tokens or output_tokens):
            continue
        outputs.append(int(output_tokens or 0))
        if input_tokens:
            ratios.append(int(input_tokens) / estimate_input_tokens(job.request.messages))
    if len(outputs) < MIN_ANSWERS:
        return EstimateBasis()
    cap = spec.settings.max_tokens
    longest = math.ceil(max(outputs) * RESERVE_HEADROOM)
    return EstimateBasis(
        answers=len(outputs),
        plan_output_tokens=percentile(outputs, PLAN_PERCENTILE),
        reserve_output_tokens=min(longest, cap) if cap else longest,
        plan_input_ratio=percentile(ratios, PLAN_PERCENTILE) if ratios else 1.0,
        reserve_input_ratio=max(ratios) if ratios else 1.0,
    )


#: Cache keys looked up per query (SQLite's default limit is 999 bound parameters).
_KEYS_PER_QUERY = 500


def _usages(store: RunStore, spec: ModelSpec, keys: Sequence[str]) -> Iterator[sqlite3.Row]:
    """(cache key, input tokens, output tokens) of the cached answers under `keys`, looked up by
    key: the cache holds every model's and stage's answers and has no index on the model, so
    reading all of a model's rows made `observe` take 3.0-3.2 s for 30 models of 6,300 cached
    answers each (189,000 rows), against 0.48-0.52 s by key, with the same bases."""
    for start in range(0, len(keys), _KEYS_PER_QUERY):
        chunk = keys[start : start + _KEYS_PER_QUERY]
        yield from store.query(
            "SELECT cache_key, json_extract(completion, '$.usage.input_tokens'), "
            "json_extract(completion, '$.usage.output_tokens') FROM response_cache "
            f"WHERE provider = ? AND model = ? AND cache_key IN ({','.join('?' * len(chunk))})",
            (spec.provider, spec.model, *chunk),
        )


def percentile(values: Sequence[T], percent: float) -> T:
    """The nearest-rank percentile: the smallest value with `percent`% of `values` at or below
    it (a value that occurred, never one interpolated below it)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]
