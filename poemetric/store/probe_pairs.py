"""Which pairs `probe run --scorer chat:MODEL` was asked to score in a store (meta key
`probe_pairs`), so that `merge` can tell a scorer that lacks some of them (stopped partway on
one machine) or that was run on other pairs than the run's other scorers (another pairs file,
`--tasks`, `--limit`), which `probe report` would compare over different pairs.

The entry maps each scorer to its requests, each {"file": the pairs file as given, "options":
[`--tasks`, `--limit`, `--seed` as given], "output": the scores file, "pairs": {pair id:
task}}. A request is recorded as the scorer starts, before any answer is stored; running it
again with the same file and options adds its pairs to that request (the latest output kept).
Stores written before requests were recorded have none: their scorers are counted against the
pairs that any scorer of the merged run holds, whether they were asked for them being unknown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from poemetric.store.db import RunStore
from poemetric.store.merge_tables import attached_meta

__all__ = [
    "PROBE_PAIRS_META_KEY",
    "PairRequest",
    "ProbeRecord",
    "merge_attached_probe_pairs",
    "probe_requests",
    "record_probe_pairs",
]

PROBE_PAIRS_META_KEY = "probe_pairs"


@dataclass(frozen=True)
class PairRequest:
    """One `probe run` of a scorer: its pairs file, options and output, and the pairs it asked
    for (pair id -> task, in the file's order)."""

    file: str
    options: tuple[str, ...] = ()
    output: str | None = None
    pairs: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        return (self.file, self.options)

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "options": list(self.options),
            "output": self.output,
            "pairs": dict(self.pairs),
        }


#: scorer -> its requests
ProbeRecord = dict[str, list[PairRequest]]


def record_probe_pairs(store: RunStore, scorer: str, request: PairRequest) -> None:
    """Add `request` to `scorer`'s entry (atomic, as the stage selections are recorded)."""
    added = {scorer: [request]}
    store.update_meta(PROBE_PAIRS_META_KEY, lambda held: _to_json(_union([_parse(held), added])))


def merge_attached_probe_pairs(store: RunStore) -> None:
    """Add the requests of the store attached as `src` (`merge`) to `store`'s."""
    value = attached_meta(store.conn, PROBE_PAIRS_META_KEY)
    if value is not None:
        source = _parse(value)
        store.update_meta(
            PROBE_PAIRS_META_KEY, lambda held: _to_json(_union([_parse(held), source]))
        )


def probe_requests(store: RunStore) -> ProbeRecord:
    """Scorer -> the requests recorded for it (empty for stores older than the record)."""
    return _parse(store.get_meta(PROBE_PAIRS_META_KEY))


def _union(records: Iterable[ProbeRecord]) -> ProbeRecord:
    """Each scorer's requests of all `records`, one per pairs file and options: their pairs
    united, the last output named kept."""
    union: dict[str, dict[tuple[str, tuple[str, ...]], PairRequest]] = {}
    for record in records:
        for scorer, requests in record.items():
            held = union.setdefault(scorer, {})
            for request in requests:
                before = held.get(request.key)
                if before is None:
                    held[request.key] = request
                    continue
                held[request.key] = PairRequest(
                    request.file,
                    request.options,
                    request.output or before.output,
                    {**before.pairs, **request.pairs},
                )
    return {scorer: list(by_key.values()) for scorer, by_key in union.items()}


def _to_json(record: ProbeRecord) -> dict[str, list[dict[str, object]]]:
    return {scorer: [r.to_json() for r in requests] for scorer, requests in sorted(record.items())}


def _parse(value: object) -> ProbeRecord:
    """The stored JSON (or its parsed value) as a record; what is not a request is left out."""
    data = json.loads(value) if isinstance(value, str) else value
    record: ProbeRecord = {}
    for scorer, items in (data if isinstance(data, dict) else {}).items():
        for item in items if isinstance(items, list) else []:
            if request := _request(item):
                record.setdefault(str(scorer), []).append(request)
    return record


def _request(item: object) -> PairRequest | None:
    if not isinstance(item, dict) or not isinstance(item.get("file"), str):
        return None
    options, output, pairs = item.get("options", []), item.get("output"), item.get("pairs", {})
    if not isinstance(options, list) or not isinstance(pairs, dict):
        return None
    return PairRequest(
        item["file"],
        tuple(map(str, options)),
        output if isinstance(output, str) else None,
        {str(k): str(v) for k, v in pairs.items()},
    )
