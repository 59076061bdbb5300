"""What `merge` says of a model that a stage was run with but that is through in no merged store
(`poemetric.store.shards.missing_shards`): it tells a model that left part of its results from
one that stored nothing at all.

A stage records each of its models as it starts (the `models` meta entry; a dry run records
nothing) and a model's shard once the model ran it through. A model recorded without a shard
was, in the store that records it:

* at work there: the store holds job leases of the stage of a process at work on it (the runner
  leases each job it runs and releases them as the command ends; a holder killed there, or one
  at work on the run the store was copied from, holds nothing: `leases.holder_at_work`;
  `busy_in`);
* stopped partway: results of it (ok or error rows) are stored there, not all (`partway_in`);
* only started: refused before its first call (no key, no engine), or stopped or cut at
  --max-cost before its first answer, so nothing of it is stored there (`started_in`).

A model missing in the merged run that no store holds anything of, with no store at work on the
stage, contributes nothing: the merged run is complete without it, so it is named
(`StartedOnly`) but does not make the merge incomplete. A model with part of its results in the
merged run, or a stage at work, stays missing, named with the stores concerned.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from poemetric.runner.leases import holder_at_work
from poemetric.store.models import MODELS_META_KEY, STAGE_RESULTS
from poemetric.store.shards import (
    ANY_MODEL,
    MODEL_SHARDS_META_KEY,
    SHARDS_META_KEY,
    MissingShards,
    parse_model_shards,
    parse_shards,
    with_unattributed,
)

__all__ = ["STAGE_RESULTS", "StartedOnly", "StoreActivity", "sort_missing", "store_activity"]

#: The stage of each result table: the runner leases a stage's jobs under the table its rows go
#: to (`leases.stage` holds 'judgments', not 'judge'); the probes' chat scorer's stage too.
LEASED_STAGES = {table: stage for stage, (table, _) in STAGE_RESULTS.items()} | {
    "probe_choices": "probe"
}


@dataclass(frozen=True)
class StartedOnly:
    """A model that `stage` was started with in `stores` but that stored nothing there, nor in
    any merged store, no store being at work on the stage: the merged run holds nothing of it."""

    stage: str
    model: str
    stores: tuple[Path, ...]


@dataclass(frozen=True)
class StoreActivity:
    """Of one store: the (stage, model)s it records without a shard of their own, by whether
    results of them are stored there, and the stages it holds job leases of."""

    path: Path
    started: frozenset[tuple[str, str]]
    partway: frozenset[tuple[str, str]]
    busy: frozenset[str]


def store_activity(
    conn: sqlite3.Connection, schema: str, path: Path, store_file: Path
) -> StoreActivity:
    """`StoreActivity` of the store `path` (as named), the file `store_file` attached to `conn`
    as `schema` ('main' or 'src')."""
    meta = dict(conn.execute(f"SELECT key, value FROM {schema}.meta").fetchall())
    models = json.loads(meta.get(MODELS_META_KEY) or "{}")
    through = with_unattributed(
        parse_shards(meta.get(SHARDS_META_KEY)), parse_model_shards(meta.get(MODEL_SHARDS_META_KEY))
    )
    started: set[tuple[str, str]] = set()
    partway: set[tuple[str, str]] = set()
    for stage, by_model in (models if isinstance(models, dict) else {}).items():
        ran = through.get(stage, {})
        if not isinstance(by_model, dict) or ANY_MODEL in ran:  # a store that did not say who
            continue
        for model in set(by_model) - set(ran):
            stored = _has_results(conn, schema, stage, model)
            if stored is not None:
                (partway if stored else started).add((stage, model))
    stages = frozenset(
        LEASED_STAGES.get(stage, stage) for stage in _leased(conn, schema, store_file)
    )
    return StoreActivity(path, frozenset(started), frozenset(partway), stages)


def _leased(conn: sqlite3.Connection, schema: str, store_file: Path) -> set[str]:
    """The stages (result tables) of which the store at `store_file` holds job leases of a
    process at work on it (`leases.holder_at_work`): a holder killed there, or one that ran on
    the run this store was copied from, holds nothing."""
    holders = conn.execute(
        f"SELECT holder, pid, host, process_start, heartbeat_at FROM {schema}.holders"
    ).fetchall()
    at_work = [
        str(holder)
        for holder, pid, host, started, heartbeat in holders
        if holder_at_work(store_file, int(pid), str(host), started, heartbeat)
    ]
    if not at_work:
        return set()
    rows = conn.execute(
        f"SELECT DISTINCT stage FROM {schema}.leases "
        f"WHERE holder IN ({', '.join('?' * len(at_work))})",
        at_work,
    ).fetchall()
    return {str(row[0]) for row in rows}


def _has_results(conn: sqlite3.Connection, schema: str, stage: str, model: str) -> bool | None:
    """Whether rows of `model` are stored for `stage` (None: a stage whose rows are unknown)."""
    if stage not in STAGE_RESULTS:
        return None
    table, column = STAGE_RESULTS[stage]
    sql = f"SELECT 1 FROM {schema}.{table} WHERE {column} = ? LIMIT 1"
    return conn.execute(sql, (model,)).fetchone() is not None


def sort_missing(
    conn: sqlite3.Connection,
    missing: Sequence[MissingShards],
    destination: StoreActivity,
    sources: Sequence[StoreActivity],
) -> tuple[list[MissingShards], list[StartedOnly]]:
    """`missing` (of the merged store open on `conn` as 'main') without the models that stored
    nothing in any store, and those models; each missing model with the stores that stopped it
    partway, only started it, or are at work on its stage. The destination (as it was before
    the merge) is named only where no source is: it also records what it merged before."""
    kept: list[MissingShards] = []
    started_only: dict[tuple[str, str], StartedOnly] = {}
    for lack in missing:
        key = (lack.stage, lack.model or "")
        busy = _holding(None, sources, "busy", lack.stage)  # work in the destination goes on
        # A store at work on the stage has not stopped there (nothing stored yet, or part), and
        # the destination's records (of earlier merges) are not named beside it.
        idle = [store for store in sources if store.path not in busy]
        here = None if busy else destination
        started = _holding(here, idle, "started", key)
        partway = _holding(here, idle, "partway", key)
        # Nothing of it in the merged run either (a store may record it under "*" shards).
        nothing = lack.model and started and not busy and not partway
        if nothing and _has_results(conn, "main", lack.stage, key[1]) is False:
            started_only[key] = StartedOnly(lack.stage, key[1], started)
            continue
        kept.append(replace(lack, started_in=started, partway_in=partway, busy_in=busy))
    return kept, list(started_only.values())


def _holding(
    destination: StoreActivity | None, sources: Sequence[StoreActivity], field: str, item: object
) -> tuple[Path, ...]:
    """The sources whose `field` holds `item`, else the destination if its does."""
    found = tuple(store.path for store in sources if item in getattr(store, field))
    if found or destination is None or item not in getattr(destination, field):
        return found
    return (destination.path,)
