"""Which poems a judging stage was asked to cover, per model (meta key `selections`), so that
`merge` counts a judge run on part of the poems on purpose (`--authors`, `--limit`) against
those poems only, and a judge asked for `--samples 3` against three samples of each.

The entry maps a stage to each model's selections, each {"authors": [names] or null,
"limit": N or null, "samples": N}, and with a limit "poems": [poem ids]: the poems `--authors`
and `--limit` pick (null: no such option) and the samples asked of each. `--authors` (or no
option) means the same poems in any store, so it is read again in the merged run by the stage's
own rule; a `--limit` means the first N poems *of the store it ran in* (one shard of a run holds
other poems than the merged run), so the poems it picked there are recorded (`poems`) and the
merged run counts the stage over those poems, of its authors. A limit recorded without its
poems (an older POEMetric) is read again in the merged run, as before.
A stage records its models' selection as it starts (a dry run records nothing), as `models` is
recorded; style-match records its `--trials` per poem too ("trials", when above 1), each
asked `--samples` answers. Running the stage again adds its selection: the poems asked for are the union, each
asked its highest sample count; a selection that another covers (a later run without
`--authors` and `--limit`, with as many samples) is dropped. Recording is a read-modify-write
in one transaction, as the shard records' (`poemetric.store.shards`). Stores written before
selections were recorded have none: their stages are counted over every poem, one sample each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from poemetric.store.db import RunStore
from poemetric.store.merge_tables import attached_meta

SELECTIONS_META_KEY = "selections"


@dataclass(frozen=True)
class Selection:
    """The poems a stage was asked to cover with one model, and the samples of each."""

    authors: tuple[str, ...] | None = None
    limit: int | None = None
    samples: int = 1
    #: The poems `limit` picked in the store the stage ran in (None: no limit, or not recorded).
    poems: tuple[str, ...] | None = None
    #: Style-match's `--trials` per poem (each asked `samples` answers); 1 for the others.
    trials: int = 1

    @property
    def whole(self) -> bool:
        """Every poem of the run (no `--authors`, no `--limit`)."""
        return self.authors is None and self.limit is None

    def covers(self, other: Selection) -> bool:
        """Whether every poem and sample `other` asks for is asked for here, whatever the run
        holds (a `--limit` counts the poems of its authors: only one of the same authors is
        known to hold another's)."""
        if self.samples < other.samples or self.trials < other.trials:
            return False
        wider = self.authors is None or (
            other.authors is not None and set(other.authors) <= set(self.authors)
        )
        if self.poems is not None:  # the poems it picked, of its authors
            return wider and other.poems is not None and set(other.poems) <= set(self.poems)
        if self.limit is None:
            return wider
        if other.poems is not None:  # the first N of another store, or of this one before
            return False
        same_authors = (self.authors is None) == (other.authors is None) and set(
            self.authors or ()
        ) == set(other.authors or ())
        return other.limit is not None and other.limit <= self.limit and same_authors

    def options(self, samples: bool = True) -> tuple[str, ...]:
        """The command's options that ask for this selection (`samples`: with `--samples`, and
        `--trials` where recorded)."""
        given = []
        if self.authors is not None:
            given.append(f"--authors {','.join(self.authors)}")
        if self.limit is not None:
            given.append(f"--limit {self.limit}")
        if samples and self.trials > 1:
            given.append(f"--trials {self.trials}")
        if samples and self.samples > 1:
            given.append(f"--samples {self.samples}")
        return tuple(given)

    def to_json(self) -> dict[str, object]:
        authors = None if self.authors is None else list(self.authors)
        held: dict[str, object] = {"authors": authors, "limit": self.limit, "samples": self.samples}
        if self.poems is not None:
            held["poems"] = list(self.poems)
        if self.trials > 1:
            held["trials"] = self.trials
        return held


#: stage -> model -> selections
SelectionRecord = dict[str, dict[str, list[Selection]]]


def record_selection(
    store: RunStore,
    stage: str,
    models: Iterable[str],
    *,
    authors: Sequence[str] | None = None,
    limit: int | None = None,
    samples: int = 1,
    poems: Iterable[str] | None = None,
    trials: int = 1,
) -> None:
    """Add the selection a stage was started with to each model's entry (atomic); `poems`: with
    a `limit`, the poems it picks in `store` (by the stage's rule), in order."""
    picked = None if limit is None or poems is None else tuple(dict.fromkeys(map(str, poems)))
    chosen = Selection(tuple(authors) if authors else None, limit, samples, picked, trials)
    added = {stage: {name: [chosen] for name in models}}
    if added[stage]:
        store.update_meta(
            SELECTIONS_META_KEY,
            lambda held: to_json(union_selections([parse_selections(held), added])),
        )


def merge_attached_selections(store: RunStore) -> None:
    """Add the selections of the store attached as `src` (`merge`) to `store`'s."""
    value = attached_meta(store.conn, SELECTIONS_META_KEY)
    if value is not None:
        source = parse_selections(value)
        store.update_meta(
            SELECTIONS_META_KEY,
            lambda held: to_json(union_selections([parse_selections(held), source])),
        )


def stage_selections(store: RunStore, stage: str) -> dict[str, list[Selection]]:
    """Model -> the selections recorded for `stage` (a model without any: none recorded)."""
    return parse_selections(store.get_meta(SELECTIONS_META_KEY)).get(stage, {})


def parse_selections(value: object) -> SelectionRecord:
    """The stored JSON (or its parsed value) as a record; empty for older stores."""
    data = json.loads(value) if isinstance(value, str) else value
    record: SelectionRecord = {}
    for stage, by_model in (data if isinstance(data, dict) else {}).items():
        for model, items in (by_model if isinstance(by_model, dict) else {}).items():
            kept = (
                [s for item in items if (s := _selection(item))] if isinstance(items, list) else []
            )
            if kept:
                record.setdefault(str(stage), {})[str(model)] = kept
    return record


def union_selections(records: Iterable[SelectionRecord]) -> SelectionRecord:
    """Each model's selections of all `records`, without those another covers."""
    union: SelectionRecord = {}
    for record in records:
        for stage, by_model in record.items():
            for model, selections in by_model.items():
                held = union.setdefault(stage, {}).setdefault(model, [])
                for selection in selections:
                    if not any(s.covers(selection) for s in held):
                        held[:] = [s for s in held if not selection.covers(s)] + [selection]
    return union


def to_json(record: SelectionRecord) -> dict[str, dict[str, list[dict[str, object]]]]:
    return {
        stage: {model: [s.to_json() for s in items] for model, items in sorted(by.items())}
        for stage, by in sorted(record.items())
    }


def _selection(item: object) -> Selection | None:
    """A stored selection, None if it is not one."""
    if not isinstance(item, dict):
        return None
    authors, limit, samples = item.get("authors"), item.get("limit"), item.get("samples", 1)
    poems, trials = item.get("poems"), item.get("trials", 1)
    if any(value is not None and not isinstance(value, list) for value in (authors, poems)):
        return None
    if (limit is not None and not isinstance(limit, int)) or not isinstance(samples, int):
        return None
    if not isinstance(trials, int):
        return None
    return Selection(
        None if authors is None else tuple(map(str, authors)),
        limit,
        max(samples, 1),
        None if poems is None or limit is None else tuple(map(str, poems)),
        max(trials, 1),
    )
