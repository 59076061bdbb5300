"""Which shards of a stage ran in a run store, and for which models, so `merge` can tell a
complete set of `--shard K/N` stores from one that lacks a shard (a failed or never-run array
task, or a task run with other `--models`).

Two meta entries hold shards as "K/N" strings (a run without `--shard` records "0/1", the whole
stage): `shards` maps a stage to the shards that ran it; `model_shards` maps a stage to each
model's shards. A model's shard is recorded once the model ran the shard's jobs through
(`poemetric.runner.model_run.ran_whole_shard`), not when the stage starts: a model refused or
stopped in an array task lacks that shard at `merge`. Stores written before models were
recorded have `shards` only: a shard of a stage that no model's entry holds is kept under the
model "*" ("any model"), which counts for every model of the stage (so a stage's shard is
never recorded without a model's). Recording is a read-modify-write in one IMMEDIATE
transaction, so shards sharing one store never lose each other's entries, and running again
adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from poemetric.store.db import RunStore
from poemetric.store.models import recorded_models

SHARDS_META_KEY = "shards"
MODEL_SHARDS_META_KEY = "model_shards"
#: The model of shards recorded without model names (by POEMetric before they were recorded).
ANY_MODEL = "*"
#: The meta entries `merge_shard_records` reads from each merged store, in its order.
SHARD_META_KEYS = (SHARDS_META_KEY, MODEL_SHARDS_META_KEY)

#: stage -> sorted "K/N" strings
ShardRecord = dict[str, list[str]]
#: stage -> model -> sorted "K/N" strings
ModelShardRecord = dict[str, dict[str, list[str]]]


@dataclass(frozen=True)
class MissingShards:
    """Shards K in `indexes` of `--shard K/count` that ran `stage` for `model` in none of the
    merged stores (`model` None: no model is known for the stage's shards, checked as one)."""

    stage: str
    model: str | None
    count: int
    indexes: tuple[int, ...]
    #: Set by `merge` (`poemetric.store.merge_started`): the stores where the model stopped
    #: partway (part of its results stored), where it was only started (nothing stored), and
    #: where a process was at work on the stage (job leases held).
    partway_in: tuple[Path, ...] = ()
    started_in: tuple[Path, ...] = ()
    busy_in: tuple[Path, ...] = ()


def record_shard(
    store: RunStore, stage: str, index: int, count: int, models: Iterable[str]
) -> None:
    """Add shard `index` of `count` to the stage's entry and to each model's (idempotent,
    atomic); nothing without a model, which would count as every model's ("*")."""
    shard = f"{index}/{count}"
    added = {stage: {name: [shard] for name in models}}
    if not added[stage]:
        return
    with store.transaction():
        # Shards recorded without models first become "*", not this model's.
        stages = parse_shards(store.get_meta(SHARDS_META_KEY))
        store.update_meta(
            MODEL_SHARDS_META_KEY,
            lambda held: (
                union_model_shards([with_unattributed(stages, parse_model_shards(held)), added])
                or held
            ),
        )
        store.update_meta(
            SHARDS_META_KEY, lambda held: union_shards([parse_shards(held), {stage: [shard]}])
        )


def merge_shard_records(
    store: RunStore, sources: Iterable[Sequence[object]], at_work: Collection[str] = ()
) -> list[MissingShards]:
    """Add the shard records of merged stores (each: its values of SHARD_META_KEYS) to
    `store`'s, and return the shards of each stage and model that are in none of them
    (`at_work`: the stages a merged store holds job leases of, `missing_shards`)."""
    held = [store.get_meta(key) for key in SHARD_META_KEYS]
    stage_records: list[ShardRecord] = []
    model_records: list[ModelShardRecord] = []
    for stage_value, model_value in [held, *sources]:
        stage_records.append(parse_shards(stage_value))
        model_records.append(with_unattributed(stage_records[-1], parse_model_shards(model_value)))
    stages, models = union_shards(stage_records), union_model_shards(model_records)
    if stages:
        store.set_meta(SHARDS_META_KEY, stages)
    if models:
        store.set_meta(MODEL_SHARDS_META_KEY, models)
    return missing_shards(models, recorded_models(store), at_work)


def parse_shards(value: object) -> ShardRecord:
    """The stored JSON (or its parsed value) as a record; empty for stores made before shards
    were recorded."""
    data = json.loads(value) if isinstance(value, str) else value
    if not isinstance(data, dict):
        return {}
    return {str(stage): sorted({str(s) for s in shards}) for stage, shards in data.items()}


def parse_model_shards(value: object) -> ModelShardRecord:
    """The stored JSON (or its parsed value) as a record; empty for stores made before shards
    were recorded per model."""
    data = json.loads(value) if isinstance(value, str) else value
    if not isinstance(data, dict):
        return {}
    return {
        str(stage): {str(model): sorted({str(s) for s in shards}) for model, shards in by.items()}
        for stage, by in data.items()
        if isinstance(by, dict)
    }


def with_unattributed(stages: ShardRecord, models: ModelShardRecord) -> ModelShardRecord:
    """`models` with each stage's shards that no model's entry holds (recorded without model
    names) added under "*"."""
    record = {stage: dict(by_model) for stage, by_model in models.items()}
    for stage, shards in stages.items():
        named = {s for held in record.get(stage, {}).values() for s in held}
        if unattributed := set(shards) - named:
            by_model = record.setdefault(stage, {})
            by_model[ANY_MODEL] = sorted(unattributed | set(by_model.get(ANY_MODEL, [])))
    return record


def union_shards(records: Iterable[ShardRecord]) -> ShardRecord:
    union: dict[str, set[str]] = {}
    for record in records:
        for stage, shards in record.items():
            union.setdefault(stage, set()).update(shards)
    return {stage: sorted(shards) for stage, shards in sorted(union.items())}


def union_model_shards(records: Iterable[ModelShardRecord]) -> ModelShardRecord:
    union: dict[str, dict[str, set[str]]] = {}
    for record in records:
        for stage, by_model in record.items():
            for model, shards in by_model.items():
                if shards:
                    union.setdefault(stage, {}).setdefault(model, set()).update(shards)
    return {
        stage: {model: sorted(shards) for model, shards in sorted(by_model.items())}
        for stage, by_model in sorted(union.items())
    }


def missing_shards(
    record: ModelShardRecord,
    known: Mapping[str, Iterable[str]] | None = None,
    at_work: Collection[str] = (),
) -> list[MissingShards]:
    """The shards each model of each stage lacks: for every N it ran with `--shard K/N`, the K's
    in neither its entry nor "*" (a model that also ran without `--shard`, "0/1", lacks none).
    Models are those of the record and those `known` to have been run with the stage (the
    `models` meta entry); a known model that ran none of the stage's shards (refused in every
    array task) lacks every K of each N > 1 the stage ran with, or the whole stage ("0/1") when
    the stage ran without `--shard` only (refused, stopped, cut at --max-cost), as does each
    known model of a stage that no model ran through (still running, or stopped before any
    model was through; only when `record` is not empty: a store made before shards were
    recorded has none, or for a stage of `at_work`, which a store holds job leases of: a store
    that new records shards, and its first stage at work has none yet); a stage with "*"
    shards and no known model is checked as one."""
    missing: list[MissingShards] = []
    for stage, by_model in record.items():
        anyone = set(by_model.get(ANY_MODEL, []))
        names = sorted((set(by_model) | set((known or {}).get(stage, ()))) - {ANY_MODEL})
        models: list[str | None] = [*names] or [None]
        counts = sorted({count for held in by_model.values() for count in _counts(held)} - {1})
        # A stage run without --shard only: a model that ran none of it lacks "0/1".
        counts = counts or [1]
        for model in models:
            shards = anyone | set(by_model.get(model, []) if model else [])
            if not shards:  # a model named in `known` alone: it ran no shard of the stage
                missing.extend(
                    MissingShards(stage, model, count, tuple(range(count))) for count in counts
                )
                continue
            for count, lacking in _lacking(shards):
                missing.append(MissingShards(stage, model, count, lacking))
    # Stores that record shards: a stage none of whose models is through yet.
    for unchecked, held in (known or {}).items():
        if unchecked not in record and (record or unchecked in at_work):
            missing.extend(MissingShards(unchecked, name, 1, (0,)) for name in sorted(held))
    return missing


def _counts(shards: Iterable[str]) -> set[int]:
    """The N's of the "K/N" strings `shards`."""
    return set(_by_count(shards))


def _by_count(shards: Iterable[str]) -> dict[int, set[int]]:
    """N -> the K's of the "K/N" strings `shards` (others ignored)."""
    seen: dict[int, set[int]] = {}
    for shard in shards:
        k, _, n = shard.partition("/")
        if k.isdigit() and n.isdigit():
            seen.setdefault(int(n), set()).add(int(k))
    return seen


def _lacking(shards: Iterable[str]) -> list[tuple[int, tuple[int, ...]]]:
    """(N, missing K's) for each N of `shards` without all N (none when "0/1" is there)."""
    seen = _by_count(shards)
    if 1 in seen:
        return []
    return [
        (count, tuple(sorted(set(range(count)) - indexes)))
        for count, indexes in sorted(seen.items())
        if set(range(count)) - indexes
    ]
