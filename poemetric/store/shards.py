"""Which shards of a stage ran in a run store (meta key `shards`), so `merge` can tell a complete
set of `--shard K/N` stores from one that lacks a shard (a failed or never-run array task).

The value maps a stage to the shards that ran it, as "K/N" strings; a run without `--shard`
records "0/1" (the whole stage). Recording is a read-modify-write in one IMMEDIATE transaction,
so shards sharing one store never lose each other's entries, and running again adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from poemetric.store.db import RunStore

SHARDS_META_KEY = "shards"

#: stage -> sorted "K/N" strings
ShardRecord = dict[str, list[str]]


def record_shard(store: RunStore, stage: str, index: int, count: int) -> None:
    """Add shard `index` of `count` to the stage's entry (idempotent, atomic)."""
    added = {stage: [f"{index}/{count}"]}
    store.update_meta(SHARDS_META_KEY, lambda held: union_shards([parse_shards(held), added]))


def parse_shards(value: object) -> ShardRecord:
    """The stored JSON (or its parsed value) as a record; empty for stores made before shards
    were recorded."""
    data = json.loads(value) if isinstance(value, str) else value
    if not isinstance(data, dict):
        return {}
    return {str(stage): sorted({str(s) for s in shards}) for stage, shards in data.items()}


def union_shards(records: Iterable[ShardRecord]) -> ShardRecord:
    union: dict[str, set[str]] = {}
    for record in records:
        for stage, shards in record.items():
            union.setdefault(stage, set()).update(shards)
    return {stage: sorted(shards) for stage, shards in sorted(union.items())}


def missing_shards(record: ShardRecord) -> list[tuple[str, int, list[int]]]:
    """(stage, N, missing K's) for each stage run with `--shard K/N` without all N shards; a
    stage that also ran without `--shard` ("0/1") is complete."""
    missing: list[tuple[str, int, list[int]]] = []
    for stage, shards in record.items():
        seen: dict[int, set[int]] = {}
        for shard in shards:
            k, _, n = shard.partition("/")
            if k.isdigit() and n.isdigit():
                seen.setdefault(int(n), set()).add(int(k))
        if 1 in seen:
            continue
        for count, indexes in sorted(seen.items()):
            if lacking := sorted(set(range(count)) - indexes):
                missing.append((stage, count, lacking))
    return missing
