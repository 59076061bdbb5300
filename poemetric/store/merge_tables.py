"""How one table of a source store (attached as `src`) is merged into the destination: the
per-table rules (natural key, and what makes a row a failure or the newer one), the row comparison
and the replacement of a row. `poemetric.store.merge` states the rules and merges whole stores.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from poemetric.store.db import to_json

#: `() -> version`: the checker version `form run` records now, None when it cannot check.
CheckerVersion = Callable[[], str | None]

__all__ = [
    "MERGED_TABLES",
    "TABLE_RULES",
    "MergeConflict",
    "TableMerge",
    "TableRule",
    "merge_table",
]


@dataclass(frozen=True)
class TableRule:
    name: str
    key: tuple[str, ...]
    #: "status": has a status column; "error": a non-null `error` column marks a failure;
    #: "plain": no notion of failure; "latest": newest `updated_at` wins; "log": append-only.
    kind: str
    #: Columns that must also be unique (a second UNIQUE constraint besides `key`).
    also_unique: tuple[str, ...] = ()


_BOOKKEEPING = frozenset(
    {"created_at", "updated_at", "attempts", "latency_s", "request_id", "batch_id", "call_id"}
)
TABLE_RULES = (
    TableRule("poems", ("poem_id",), "plain"),
    TableRule("templates", ("template_hash",), "plain"),
    TableRule("prompts", ("prompt_id",), "plain"),
    TableRule("generations", ("prompt_id", "author", "sample_index"), "status", ("generation_id",)),
    TableRule("form_checks", ("generation_id",), "error"),
    TableRule("judgments", ("generation_id", "judge", "sample_index"), "status", ("judgment_id",)),
    TableRule("recognitions", ("poem_id", "judge", "sample_index"), "status", ("recognition_id",)),
    TableRule("style_matches", ("trial_id", "judge", "sample_index"), "status", ("match_id",)),
    TableRule(
        "line_annotations", ("sheet_id", "annotator", "generation_id", "line_number"), "latest"
    ),
    TableRule("response_cache", ("cache_key",), "plain"),
    TableRule("calls", (), "log"),
    TableRule("batches", ("batch_id",), "latest"),
    TableRule("probe_choices", ("pair_id", "scorer", "sample_index"), "status", ("choice_id",)),
    TableRule("probe_lines", ("line_id",), "status"),
)
MERGED_TABLES = tuple(rule.name for rule in TABLE_RULES)


@dataclass
class TableMerge:
    """What happened to one table's rows from one source."""

    copied: int = 0
    identical: int = 0
    replaced_error: int = 0
    kept_ok: int = 0
    kept_error: int = 0
    updated: int = 0
    conflicts: int = 0
    #: Rows depending on a conflicting generation (form checks, judgments), left out.
    skipped: int = 0
    #: Of `identical`: answers bought in both stores (one request answered alike, only the
    #: provider's raw response, its ids and times, differing); the destination's kept.
    bought_twice: int = 0

    def add(self, other: TableMerge) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True)
class MergeConflict:
    table: str
    key: dict[str, Any]
    source: Path
    columns: tuple[str, ...]

    def describe(self) -> str:
        key = ", ".join(f"{k}={v!r}" for k, v in self.key.items())
        return f"{self.table} [{key}] from {self.source}: differs in {', '.join(self.columns)}"


def _skip_clause(columns: list[str]) -> str:
    """Rows that depend on a conflicting generation are not copied next to the other version."""
    if "generation_id" not in columns:
        return ""
    return " AND s.generation_id NOT IN (SELECT generation_id FROM temp.merge_skip)"


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The column names of `table` in the main (destination) database."""
    return [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]


def merge_table(
    conn: sqlite3.Connection,
    rule: TableRule,
    source: Path,
    conflicts: list[MergeConflict],
    current_version: CheckerVersion | None = None,
) -> TableMerge:
    """Merge `src`'s rows of `rule.name` into `main`'s by `rule`, adding its conflicts to
    `conflicts`; what happened to the rows is returned. Of two form checks by different
    checker versions, the one of `current_version()` is kept (`_current_checker`)."""
    stats = TableMerge()
    columns = table_columns(conn, rule.name)
    column_list = ", ".join(columns)
    if rule.kind == "log":
        data_columns = [c for c in columns if c != "call_id"]
        cols = ", ".join(data_columns)
        # EXCEPT compares whole rows through a sorted temporary index: no quadratic scan.
        cursor = conn.execute(
            f"INSERT INTO main.{rule.name} ({cols}) SELECT {cols} FROM src.{rule.name} "
            f"EXCEPT SELECT {cols} FROM main.{rule.name}"
        )
        stats.copied = cursor.rowcount
        total = conn.execute(f"SELECT COUNT(*) FROM src.{rule.name}").fetchone()[0]
        stats.identical = total - stats.copied
        return stats

    key_match = " AND ".join(f"d.{k} = s.{k}" for k in rule.key)
    unique_match = " OR ".join([f"({key_match})"] + [f"d.{c} = s.{c}" for c in rule.also_unique])
    dependent = rule.name != "generations"
    skip = _skip_clause(columns) if dependent else ""
    if skip:
        stats.skipped = conn.execute(
            f"SELECT COUNT(*) FROM src.{rule.name} s WHERE NOT ({skip.removeprefix(' AND ')})"
        ).fetchone()[0]
    # Rows already in the destination are marked before the new ones are copied in, and read
    # one at a time after (all of them in memory at once: a study's judgments merged again).
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS merge_overlap (source_row INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.merge_overlap")
    conn.execute(
        f"INSERT INTO temp.merge_overlap SELECT s.rowid FROM src.{rule.name} s WHERE EXISTS "
        f"(SELECT 1 FROM main.{rule.name} d WHERE {unique_match}){skip}"
    )
    cursor = conn.execute(
        f"INSERT INTO main.{rule.name} ({column_list}) SELECT {column_list} FROM src.{rule.name} s "
        f"WHERE NOT EXISTS (SELECT 1 FROM main.{rule.name} d WHERE {unique_match}){skip}"
    )
    stats.copied = cursor.rowcount
    overlapping = conn.execute(
        f"SELECT s.* FROM temp.merge_overlap o JOIN src.{rule.name} s ON s.rowid = o.source_row "
        "ORDER BY o.source_row"
    )

    compared = [c for c in columns if c not in _BOOKKEEPING]
    for row in overlapping:
        incoming = dict(zip(columns, row, strict=True))
        key = {k: incoming[k] for k in rule.key}
        where = " AND ".join(f"{k} = ?" for k in rule.key)
        found = conn.execute(
            f"SELECT {column_list} FROM main.{rule.name} WHERE {where}", list(key.values())
        ).fetchone()
        if found is None:
            # The key is new but a second unique column (generation_id / judgment_id) is taken.
            conflicts.append(MergeConflict(rule.name, key, source, rule.also_unique))
            stats.conflicts += 1
            continue
        current = dict(zip(columns, found, strict=True))
        # A cached completion holds the machine's own bookkeeping (latency_s, ...) inside it.
        cached = rule.name == "response_cache"
        differing = tuple(
            c for c in compared if not same_value(current[c], incoming[c], bookkeeping=cached)
        )
        if not differing:
            stats.identical += 1
            continue
        if _bought_twice(rule, differing, current, incoming):
            stats.identical += 1
            stats.bought_twice += rule.name != "response_cache"  # counted once, by its row
            continue
        if rule.name == "form_checks" and "checker_version" in differing:
            current_checker = _current_checker(current_version, current, incoming)
            if current_checker is not None:
                # This POEMetric's checker made one of the two: `form run` keeps that one.
                replaced = current_checker is incoming and _replace(
                    conn, rule, columns, incoming, key
                )
                stats.updated += replaced
                stats.identical += not replaced
                continue
        if rule.kind == "latest":
            newer, older = (
                (incoming, current) if _newer(rule, incoming, current) else (current, incoming)
            )
            kept = _with_grades(rule, newer, older)
            if kept != current and _replace(conn, rule, columns, kept, key):
                stats.updated += 1
            else:
                stats.identical += 1
            continue
        current_ok, incoming_ok = _is_ok(rule, current), _is_ok(rule, incoming)
        if incoming_ok and not current_ok:
            if _replace(conn, rule, columns, incoming, key):
                stats.replaced_error += 1
            else:
                conflicts.append(MergeConflict(rule.name, key, source, ("(foreign key)",)))
                stats.conflicts += 1
        elif current_ok and not incoming_ok:
            stats.kept_ok += 1
        elif not current_ok and not incoming_ok:
            stats.kept_error += 1
        else:
            conflicts.append(MergeConflict(rule.name, key, source, differing))
            stats.conflicts += 1
            if rule.name == "generations":
                conn.execute(
                    "INSERT OR IGNORE INTO temp.merge_skip VALUES (?)", (incoming["generation_id"],)
                )
    return stats


def _current_checker(
    current_version: CheckerVersion | None, *rows: dict[str, Any]
) -> dict[str, Any] | None:
    """Of two form checks by different checker versions, the one by this POEMetric's checker as
    `form run` would make it now (`current_version()`: the command line passes
    `poemetric.form.user_lexicon.default_version`; None, or a version of None: neither)."""
    version = None if current_version is None else current_version()
    current = [row for row in rows if row["checker_version"] == version]
    return current[0] if version is not None and len(current) == 1 else None


#: A result row's and a cached completion's copy of the provider's whole response: for the same
#: answer bought twice, its ids ("chatcmpl-...", "msg_...") and times differ.
_RAW_RESPONSE = "raw_response"
_CACHED_RAW = "raw"


def _bought_twice(
    rule: TableRule, differing: tuple[str, ...], current: dict[str, Any], incoming: dict[str, Any]
) -> bool:
    """Whether two successful rows of one key are one answer bought in both stores: one request
    (its cache key is compared with the rest) answered alike, every stored part of the answer
    (text, reasoning, tokens, cost, parse) equal, only the provider's raw response differing."""
    if rule.name == "response_cache":
        if differing != ("completion",):
            return False
        texts = (current["completion"], incoming["completion"])
        try:
            completions = [json.loads(text) for text in texts]
        except (TypeError, ValueError):
            return False
        if not all(isinstance(completion, dict) for completion in completions):
            return False
        kept = [{k: v for k, v in c.items() if k != _CACHED_RAW} for c in completions]
        usages = [u for c in kept if isinstance(u := c.get("usage"), dict)]
        if len(usages) == 2 and _zero_or_unknown(*(u.get(_REASONING) for u in usages)):
            kept = [{**c, "usage": {**c["usage"], _REASONING: None}} for c in kept]
        return _comparable(kept[0], True) == _comparable(kept[1], True)
    if _REASONING in differing and _zero_or_unknown(current[_REASONING], incoming[_REASONING]):
        differing = tuple(c for c in differing if c != _REASONING)
    return differing == (_RAW_RESPONSE,) and _is_ok(rule, current) and _is_ok(rule, incoming)


#: Reasoning tokens: stored as 0 before 2026-11-28 where the provider gave no figure, NULL
#: (unknown) since; the same answer bought in a store of each kind differs only so.
_REASONING = "reasoning_tokens"


def _zero_or_unknown(left: Any, right: Any) -> bool:
    """Whether two stored reasoning counts are 0 and NULL (in either order, or alike)."""
    return left in (0, None) and right in (0, None)


def _is_ok(rule: TableRule, row: dict[str, Any]) -> bool:
    if rule.kind == "status":
        return bool(row.get("status") == "ok")
    if rule.kind == "error":
        return row.get("error") in (None, "")
    return True


def same_value(left: Any, right: Any, *, bookkeeping: bool = False) -> bool:
    """Equal values; two JSON objects or arrays (texts opening with `{` or `[`) are compared
    parsed, as columns written by different code paths may differ only in key order or spacing.
    With `bookkeeping`, an object's bookkeeping keys (`_BOOKKEEPING`) are left out: the same
    cached completion stored on two machines took another `latency_s` on each. Other texts
    (a rater's comment, a poem) are compared as they are."""
    if left == right:
        return True
    if not (isinstance(left, str) and isinstance(right, str)):
        return False
    if not (left.lstrip()[:1] in ("{", "[") and right.lstrip()[:1] in ("{", "[")):
        return False
    try:
        parsed = json.loads(left), json.loads(right)
    except ValueError:
        return False
    return _comparable(parsed[0], bookkeeping) == _comparable(parsed[1], bookkeeping)


def _comparable(value: Any, bookkeeping: bool) -> str:
    """A parsed JSON value as compared by `same_value`: with `bookkeeping`, an object without
    its bookkeeping keys."""
    if bookkeeping and isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in _BOOKKEEPING}
    return to_json(value)


#: A batch's standing, as in one store (`update_batch`, `mark_not_found`): collected, then
#: abandoned, before any state in flight ('not found (404)' included); then the latest row.
_BATCH_STANDING = {"collected": 2, "abandoned": 1}


def _newer(rule: TableRule, incoming: dict[str, Any], current: dict[str, Any]) -> bool:
    """Whether `incoming` replaces `current` in a "latest" table (a batch: by standing first)."""
    if rule.name == "batches":
        rank_in, rank_now = (_BATCH_STANDING.get(str(r["status"]), 0) for r in (incoming, current))
        if rank_in != rank_now:
            return rank_in > rank_now
    return (incoming.get("updated_at") or "") > (current.get("updated_at") or "")


#: A line's grades (`line_annotations`): NULL is a grade not given yet, not an answer.
_GRADES = ("fluency", "coherence")


def _with_grades(rule: TableRule, newer: dict[str, Any], older: dict[str, Any]) -> dict[str, Any]:
    """The row a "latest" table keeps: the newer, with a line's grades that only the older gave
    (a line survey's first save on a poem stores each line, ungraded ones NULL: a page graded
    half on each machine lost the first machine's half to the other's newer, empty rows)."""
    if rule.name != "line_annotations":
        return newer
    return newer | {g: older[g] for g in _GRADES if newer[g] is None and older[g] is not None}


def _replace(
    conn: sqlite3.Connection,
    rule: TableRule,
    columns: list[str],
    incoming: dict[str, Any],
    key: dict[str, Any],
) -> bool:
    """Overwrite the destination's row; False when a foreign key forbids it (nothing changes)."""
    updates = [c for c in columns if c not in rule.key]
    where = " AND ".join(f"{k} = ?" for k in rule.key)
    conn.execute("SAVEPOINT merge_replace")
    try:
        conn.execute(
            f"UPDATE main.{rule.name} SET {', '.join(f'{c} = ?' for c in updates)} WHERE {where}",
            [incoming[c] for c in updates] + list(key.values()),
        )
    except sqlite3.IntegrityError:
        conn.execute("ROLLBACK TO merge_replace")
        conn.execute("RELEASE merge_replace")
        return False
    conn.execute("RELEASE merge_replace")
    return True


def attached_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """A meta value of the store attached as `src` (`merge`), or None."""
    row = conn.execute("SELECT value FROM src.meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])
