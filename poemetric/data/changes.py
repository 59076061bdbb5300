"""What changed in a dataset file since a run was prepared from it: the message of a run that
refuses the changed file names the poems (and fields) that differ, not only two hashes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.data.dataset import Dataset

#: How many poems `poem_differences` names per kind of difference (the rest are counted).
NAMED = 5


def stored_poems(conn: sqlite3.Connection) -> dict[str, tuple[int, str]]:
    """A run store's poems as the functions here take them: poem id -> (position, record JSON)."""
    rows = conn.execute("SELECT poem_id, position, record FROM poems")
    return {str(poem_id): (int(position), str(record)) for poem_id, position, record in rows}


def poem_differences(stored: Mapping[str, tuple[int, str]], dataset: Dataset) -> str | None:
    """`1 poem changed: ID (rhyme_pattern); 2 no longer in the file: ...; 1 new: ...`, or that
    only the order differs; None when the file reads as the same poems in the same order (only
    bytes the loader does not read differ: line endings, a byte-order mark, quoting, a column it
    ignores). `stored`: poem id -> (position, record JSON), as a run's `poems` table holds them;
    `dataset`: the file as it reads now."""
    now = {
        poem.poem_id: (index, poem.model_dump(mode="json")) for index, poem in enumerate(dataset)
    }
    return _differences(_parsed(stored), now, "no longer in the file", "new in the file")


def stored_differences(
    first: Mapping[str, tuple[int, str]],
    other: Mapping[str, tuple[int, str]],
    first_name: str,
    other_name: str,
) -> str | None:
    """`poem_differences` between two runs' stored poems (e.g. shards to merge, prepared from
    copies of a file with other line endings): `1 poem changed: ID (theme); 1 poem only in
    FIRST_NAME: ID`, or None when both hold the same poems in the same order."""
    return _differences(
        _parsed(first), _parsed(other), f"only in {first_name}", f"only in {other_name}"
    )


def _parsed(stored: Mapping[str, tuple[int, str]]) -> dict[str, tuple[int, dict[str, Any]]]:
    return {
        poem_id: (position, json.loads(record)) for poem_id, (position, record) in stored.items()
    }


def _differences(
    stored: Mapping[str, tuple[int, dict[str, Any]]],
    current: Mapping[str, tuple[int, dict[str, Any]]],
    removed_as: str,
    added_as: str,
) -> str | None:
    before = {poem_id: record for poem_id, (_, record) in stored.items()}
    now = {poem_id: record for poem_id, (_, record) in current.items()}
    changed = {
        poem_id: fields
        for poem_id in before.keys() & now.keys()
        if (fields := _fields(before[poem_id], now[poem_id]))
    }
    removed = [poem_id for poem_id in before if poem_id not in now]
    added = [poem_id for poem_id in now if poem_id not in before]
    # A poem whose text or form changed got another derived id: a removed and an added poem of
    # the same author and title, one of each, are that poem changed.
    for old_id in list(removed):
        same = [new_id for new_id in added if _identity(now[new_id]) == _identity(before[old_id])]
        if len(same) == 1:
            changed[f"{old_id} (now {same[0]})"] = _fields(before[old_id], now[same[0]])
            removed.remove(old_id)
            added.remove(same[0])
    parts = [
        _named(
            "changed", [f"{poem_id} ({', '.join(changed[poem_id])})" for poem_id in sorted(changed)]
        ),
        _named(removed_as, sorted(removed)),
        _named(added_as, sorted(added)),
    ]
    if found := [part for part in parts if part]:
        return "; ".join(found)
    if any(current[poem_id][0] != position for poem_id, (position, _) in stored.items()):
        return "the same poems, in another order"
    return None


def _fields(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    return [key for key in before if key != "poem_id" and before[key] != now.get(key)]


def _identity(record: dict[str, Any]) -> tuple[Any, ...]:
    return record.get("author"), record.get("title")


def _named(what: str, items: list[str]) -> str:
    """`2 poems changed: a, b` (the first `NAMED`, then `and N more`), or "" for none."""
    if not items:
        return ""
    shown = ", ".join(items[:NAMED]) + (
        f", and {len(items) - NAMED} more" if len(items) > NAMED else ""
    )
    return f"{counted(len(items), 'poem')} {what}: {shown}"
