"""Merge run stores, e.g. the shards of one run produced on several machines (`--shard K/N`).

Rules, table by table (rows are matched on their natural key):

* a row missing from the destination is copied;
* identical rows are counted once (bookkeeping columns such as `created_at`, `attempts` and
  `latency_s` are ignored when comparing);
* for results (generations, judgments, form checks) an 'ok' row replaces an 'error' row, and an
  error never replaces a success;
* two different successful rows for the same key are a conflict: the destination's row stays and
  the conflict is reported (it usually means two shards overlapped);
* batches take the row updated last (it is the newer view of the same provider job), except
  that a collected batch, then an abandoned one, is never replaced by a batch in flight (such as
  'not found (404)', polled later with another key), as within one store;
* the call log is a union of distinct rows.

Sources are attached read-only (`ATTACH DATABASE`), each merged in one transaction, and must have
exactly the destination's schema version.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poemetric.data.changes import stored_differences, stored_poems
from poemetric.store.db import DB_NAME, RunStore, StoreError, not_a_store, to_json, utc_now
from poemetric.store.models import MODELS_META_KEY, merge_attached_records
from poemetric.store.schema import SCHEMA_VERSION
from poemetric.store.shards import SHARD_META_KEYS, MissingShards, merge_shard_records

__all__ = ["MergeConflict", "MergeError", "MergeReport", "TableMerge", "merge_runs"]


class MergeError(StoreError):
    pass


@dataclass(frozen=True)
class _TableRule:
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
_RULES = (
    _TableRule("poems", ("poem_id",), "plain"),
    _TableRule("templates", ("template_hash",), "plain"),
    _TableRule("prompts", ("prompt_id",), "plain"),
    _TableRule(
        "generations", ("prompt_id", "author", "sample_index"), "status", ("generation_id",)
    ),
    _TableRule("form_checks", ("generation_id",), "error"),
    _TableRule("judgments", ("generation_id", "judge", "sample_index"), "status", ("judgment_id",)),
    _TableRule("recognitions", ("poem_id", "judge", "sample_index"), "status", ("recognition_id",)),
    _TableRule("style_matches", ("trial_id", "judge", "sample_index"), "status", ("match_id",)),
    _TableRule(
        "line_annotations", ("sheet_id", "annotator", "generation_id", "line_number"), "latest"
    ),
    _TableRule("response_cache", ("cache_key",), "plain"),
    _TableRule("calls", (), "log"),
    _TableRule("batches", ("batch_id",), "latest"),
    _TableRule("probe_choices", ("pair_id", "scorer", "sample_index"), "status", ("choice_id",)),
    _TableRule("probe_lines", ("line_id",), "status"),
)
MERGED_TABLES = tuple(rule.name for rule in _RULES)


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


@dataclass
class MergeReport:
    destination: Path
    sources: list[Path]
    tables: dict[str, TableMerge] = field(default_factory=dict)
    conflicts: list[MergeConflict] = field(default_factory=list)
    skipped_sources: list[Path] = field(default_factory=list)
    #: The shards of `--shard K/N` of a stage and model that none of the stores merged.
    missing_shards: list[MissingShards] = field(default_factory=list)

    @property
    def copied(self) -> int:
        return sum(t.copied + t.replaced_error + t.updated for t in self.tables.values())


@dataclass(frozen=True)
class _Probed:
    """A store's schema version, `dataset` meta entry (name, path, sha256; {} if not recorded)
    and poems (id -> (position, record JSON)), read before merging."""

    path: Path
    version: int
    dataset: dict[str, Any]
    poems: dict[str, tuple[int, str]]


def _probe(db_path: Path) -> _Probed:
    """`_Probed` of the store at `db_path`, read in one read-only connection."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.DatabaseError as error:
            if isinstance(error, sqlite3.OperationalError):
                raise
            raise MergeError(not_a_store(db_path, error)) from None
        if version != SCHEMA_VERSION:
            return _Probed(db_path, version, {}, {})
        row = conn.execute("SELECT value FROM meta WHERE key = 'dataset'").fetchone()
        poems = stored_poems(conn)
    finally:
        conn.close()
    return _Probed(db_path, version, {} if row is None else dict(json.loads(row[0])), poems)


def _store_file(run_dir: Path) -> Path:
    path = run_dir / DB_NAME if run_dir.is_dir() else run_dir
    if not path.is_file():
        raise MergeError(f"no run store at {run_dir} (expected {run_dir / DB_NAME})")
    return path


def _check_one_dataset(stores: list[_Probed]) -> None:
    """Refuse to mix runs of different datasets (as `prepare_run` refuses for one run), compared
    by the poems the stores hold: shards prepared from copies of one file with other bytes (CRLF
    line endings, a byte-order mark) have other sha256s and merge."""
    recorded = [store for store in stores if store.dataset.get("sha256")]
    for other in recorded[1:]:
        first = recorded[0]
        was, now = first.dataset, other.dataset
        if was["sha256"] == now["sha256"]:
            continue
        hashes = f"sha256 {str(was['sha256'])[:12]}… and {str(now['sha256'])[:12]}…"
        if was.get("name") != now.get("name"):
            what = f"({was.get('name')!r} and {now.get('name')!r}, {hashes})"
        elif found := stored_differences(
            first.poems, other.poems, str(first.path), str(other.path)
        ):
            what = f"(two versions of {was.get('name')!r}, {hashes}): {found}"
        else:
            continue
        raise MergeError(
            f"{first.path} and {other.path} were prepared from different datasets {what}; only "
            "runs of one dataset can be merged"
        )


def merge_runs(sources: list[Path], destination: Path) -> MergeReport:
    """Merge the run stores in `sources` (run directories) into `destination` (created if new)."""
    destination = Path(destination)
    report = MergeReport(destination=destination, sources=[Path(s) for s in sources])
    if not sources:
        raise MergeError("nothing to merge: give at least one source run directory")
    source_files: list[Path] = []
    probed: list[_Probed] = []
    for source in report.sources:
        path = _store_file(source)
        found = _probe(path)  # the only connection of its own a source gets
        if found.version != SCHEMA_VERSION:
            raise MergeError(
                f"{path} has schema version {found.version}, this POEMetric writes "
                f"{SCHEMA_VERSION}: open it with the same POEMetric version as the other stores "
                "(any command migrates an older store), or upgrade POEMetric"
            )
        source_files.append(path)
        probed.append(found)
    dest_file = destination / DB_NAME
    if dest_file.is_file():
        found = _probe(dest_file)
        if found.version != SCHEMA_VERSION:
            raise MergeError(
                f"destination {dest_file} has schema version {found.version}, this POEMetric "
                f"writes {SCHEMA_VERSION}; refusing to merge into it"
            )
        probed.append(found)

    _check_one_dataset(probed)

    shard_records: list[list[str | None]] = []
    with RunStore(destination) as store:
        for source, path in zip(report.sources, source_files, strict=True):
            if path.resolve() == store.path.resolve():
                report.skipped_sources.append(source)
                continue
            shard_records.append(_merge_one(store, source, path, report))
        merged_from = list(store.get_meta("merged_from", []))
        merged_from.extend(
            {"source": str(source), "merged_at": utc_now()}
            for source in report.sources
            if source not in report.skipped_sources
        )
        store.set_meta("merged_from", merged_from)
        # The destination's own records (a source that is the destination) are already held.
        report.missing_shards = merge_shard_records(store, shard_records)
    return report


def _merge_one(store: RunStore, source: Path, path: Path, report: MergeReport) -> list[str | None]:
    """Merge the store at `path` into `store`; returns its values of SHARD_META_KEYS."""
    conn = store.conn
    # A plain path: the store's connection is not opened in URI mode. Only SELECTs touch `src`.
    conn.execute("ATTACH DATABASE ? AS src", (str(path),))
    try:
        with store.transaction():
            conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS merge_skip (generation_id TEXT PRIMARY KEY)"
            )
            conn.execute("DELETE FROM temp.merge_skip")
            _merge_meta(store)
            for rule in _RULES:
                stats = _merge_table(conn, rule, source, report.conflicts)
                report.tables.setdefault(rule.name, TableMerge()).add(stats)
            return [_source_meta(conn, key) for key in SHARD_META_KEYS]
    finally:
        conn.execute("DETACH DATABASE src")


def _source_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """A meta value of the store attached as `src`."""
    row = conn.execute("SELECT value FROM src.meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _skip_clause(columns: list[str]) -> str:
    """Rows that depend on a conflicting generation are not copied next to the other version."""
    if "generation_id" not in columns:
        return ""
    return " AND s.generation_id NOT IN (SELECT generation_id FROM temp.merge_skip)"


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]


def _merge_meta(store: RunStore) -> None:
    store.conn.execute(
        "INSERT OR IGNORE INTO main.meta(key, value) SELECT key, value FROM src.meta "
        "WHERE key NOT IN ('merged_from', ?, ?, ?)",  # combined, not first-come
        (*SHARD_META_KEYS, MODELS_META_KEY),
    )
    merge_attached_records(store)


def _merge_table(
    conn: sqlite3.Connection, rule: _TableRule, source: Path, conflicts: list[MergeConflict]
) -> TableMerge:
    stats = TableMerge()
    columns = _columns(conn, rule.name)
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
    # Rows already in the destination are read before the new ones are copied in.
    overlapping = conn.execute(
        f"SELECT s.* FROM src.{rule.name} s WHERE EXISTS "
        f"(SELECT 1 FROM main.{rule.name} d WHERE {unique_match}){skip}"
    ).fetchall()
    cursor = conn.execute(
        f"INSERT INTO main.{rule.name} ({column_list}) SELECT {column_list} FROM src.{rule.name} s "
        f"WHERE NOT EXISTS (SELECT 1 FROM main.{rule.name} d WHERE {unique_match}){skip}"
    )
    stats.copied = cursor.rowcount

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
        differing = tuple(c for c in compared if not _same(current[c], incoming[c]))
        if not differing:
            stats.identical += 1
            continue
        if rule.kind == "latest":
            if _newer(rule, incoming, current) and _replace(conn, rule, columns, incoming, key):
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


def _is_ok(rule: _TableRule, row: dict[str, Any]) -> bool:
    if rule.kind == "status":
        return bool(row.get("status") == "ok")
    if rule.kind == "error":
        return row.get("error") in (None, "")
    return True


def _same(left: Any, right: Any) -> bool:
    if left == right:
        return True
    if isinstance(left, str) and isinstance(right, str):
        # JSON columns written by different code paths may differ only in key order or spacing.
        try:
            return bool(to_json(json.loads(left)) == to_json(json.loads(right)))
        except ValueError:
            return False
    return False


#: A batch's standing, as in one store (`update_batch`, `mark_not_found`): collected, then
#: abandoned, before any state in flight ('not found (404)' included); then the latest row.
_BATCH_STANDING = {"collected": 2, "abandoned": 1}


def _newer(rule: _TableRule, incoming: dict[str, Any], current: dict[str, Any]) -> bool:
    """Whether `incoming` replaces `current` in a "latest" table (a batch: by standing first)."""
    if rule.name == "batches":
        rank_in, rank_now = (_BATCH_STANDING.get(str(r["status"]), 0) for r in (incoming, current))
        if rank_in != rank_now:
            return rank_in > rank_now
    return (incoming.get("updated_at") or "") > (current.get("updated_at") or "")


def _replace(
    conn: sqlite3.Connection,
    rule: _TableRule,
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
