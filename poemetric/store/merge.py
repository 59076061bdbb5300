"""Merge run stores, e.g. the shards of one run produced on several machines (`--shard K/N`).

Rules, table by table (rows are matched on their natural key):

* a row missing from the destination is copied;
* identical rows are counted once (bookkeeping columns such as `created_at`, `attempts` and
  `latency_s` are ignored when comparing);
* for results (generations, judgments, form checks) an 'ok' row replaces an 'error' row, and an
  error never replaces a success;
* two different successful rows for the same key are a conflict: the destination's row stays and
  the conflict is reported (it usually means two shards overlapped); but two that differ only
  in the provider's raw response (its ids and times: one request answered alike, bought in both
  stores) are one answer, the destination's kept and counted (`TableMerge.bought_twice`);
* batches take the row updated last (it is the newer view of the same provider job), except
  that a collected batch, then an abandoned one, is never replaced by a batch in flight (such as
  'not found (404)', polled later with another key), as within one store;
* line annotations take the row updated last too, with the grades that only the other row
  gave (an empty grade is one not given yet: a line survey stores each line of a poem, empty,
  at its first save, so a poem graded half on each machine keeps both halves);
* the call log is a union of distinct rows;
* surveys (their raters, pages, answers and edit times) are merged by
  `poemetric.store.merge_surveys`: a survey built alike in two stores is one survey, and a
  survey that cannot be merged, or answers that differ, are named (`SurveyConflict`). Which
  answers complete a page is the survey task's rule, above the store: `merge_runs` takes it as
  `complete_pages` (`poemetric merge` passes `poemetric.survey.db.complete_merged`); without it
  a page is complete only where one store had it complete.

After the rows, the merged run is read for what a stage covers only in part (a judge run on one
store whose other stores' poems it never saw), by the stages' rule passed as `coverage`
(`poemetric.store.merge_coverage`).

Sources are attached read-only (`ATTACH DATABASE`), each merged in one transaction, and must have
exactly the destination's schema version.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from poemetric.data.changes import stored_differences, stored_poems
from poemetric.store.connect import (
    StoreWriteError,
    lock_failure,
    note_opened,
    open_failure,
    primary_code,
)
from poemetric.store.db import DB_NAME, RunStore, StoreError, not_a_store, utc_now
from poemetric.store.merge_checks import (
    FormRule,
    MixedModel,
    Templates,
    check_one_template,
    mixed_form_rules,
    mixed_models,
    read_templates,
)
from poemetric.store.merge_coverage import StageCoverage, StageGap, sort_gaps
from poemetric.store.merge_started import StartedOnly, StoreActivity, sort_missing, store_activity
from poemetric.store.merge_surveys import SurveyConflict, carry_secret, merge_surveys
from poemetric.store.merge_tables import (
    TABLE_RULES,
    CheckerVersion,
    MergeConflict,
    TableMerge,
    attached_meta,
    merge_table,
)
from poemetric.store.models import MODELS_META_KEY, merge_attached_records
from poemetric.store.probe_pairs import PROBE_PAIRS_META_KEY, merge_attached_probe_pairs
from poemetric.store.schema import SCHEMA_VERSION
from poemetric.store.selections import SELECTIONS_META_KEY, merge_attached_selections
from poemetric.store.shards import SHARD_META_KEYS, MissingShards, merge_shard_records

__all__ = ["MergeError", "MergeReport", "PageCompletion", "merge_runs"]

#: Marks the pages of a survey (by id) in the destination store that their answers, united by
#: the merge, complete; returns how many (`poemetric.survey.db.complete_merged`).
PageCompletion = Callable[[RunStore, str], int]


class MergeError(StoreError):
    pass


@dataclass
class MergeReport:
    destination: Path
    sources: list[Path]
    tables: dict[str, TableMerge] = field(default_factory=dict)
    conflicts: list[MergeConflict] = field(default_factory=list)
    skipped_sources: list[Path] = field(default_factory=list)
    #: The shards of `--shard K/N` of a stage and model that none of the stores merged.
    missing_shards: list[MissingShards] = field(default_factory=list)
    #: Models a stage was started with that stored nothing in any store (not missing).
    started_only: list[StartedOnly] = field(default_factory=list)
    #: Stages (and models) that cover only part of the merged run's poems, not named above.
    uncovered: list[StageGap] = field(default_factory=list)
    #: Models that ran a stage under one name in other configurations in the merged stores.
    mixed_models: list[MixedModel] = field(default_factory=list)
    #: The rules (checker version, threshold) of the merged run's form checks, when several.
    form_rules: list[FormRule] = field(default_factory=list)
    #: Surveys of a source left out, or with answers differing from the destination's.
    survey_conflicts: list[SurveyConflict] = field(default_factory=list)
    #: (survey, source folder): surveys merged from a folder whose survey secret is not the
    #: destination's, so the rater links made there do not open the merged run.
    relinked: list[tuple[str, Path]] = field(default_factory=list)

    @property
    def copied(self) -> int:
        return sum(t.copied + t.replaced_error + t.updated for t in self.tables.values())


@dataclass(frozen=True)
class _Probed:
    """A store's schema version, `dataset` meta entry (name, path, sha256; {} if not recorded),
    poems (id -> (position, record JSON)), `models` meta entry and templates, read before
    merging."""

    path: Path
    version: int
    dataset: dict[str, Any]
    poems: dict[str, tuple[int, str]]
    models: dict[str, Any] = field(default_factory=dict)
    templates: Templates = field(default_factory=lambda: Templates(None, {}))


def _probe(db_path: Path) -> _Probed:
    """`_Probed` of the store at `db_path`, read in one read-only connection; a full disk (SQLite
    writes the -shm file beside it even to read it) is said naming that store, one of several
    the merge opens."""
    try:
        return _read_probe(db_path)
    except sqlite3.OperationalError as error:
        if (failure := open_failure(db_path, error)) is not None:
            raise failure from None
        raise


def _read_probe(db_path: Path) -> _Probed:
    note_opened(db_path)
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
        models = conn.execute("SELECT value FROM meta WHERE key = ?", (MODELS_META_KEY,)).fetchone()
        templates = read_templates(conn)
    finally:
        conn.close()
    dataset = {} if row is None else dict(json.loads(row[0]))
    recorded = {} if models is None else json.loads(models[0])
    return _Probed(
        db_path, version, dataset, poems, recorded if isinstance(recorded, dict) else {}, templates
    )


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


def merge_runs(
    sources: list[Path],
    destination: Path,
    *,
    complete_pages: PageCompletion | None = None,
    coverage: StageCoverage | None = None,
    checker_version: CheckerVersion | None = None,
) -> MergeReport:
    """Merge the run stores in `sources` (run directories) into `destination` (created if new).
    `complete_pages` marks the survey pages that answers from two stores complete (a survey
    page answered half on each machine); without it they stay as each store had them.
    `coverage` finds what each stage lacks in the merged run (`MergeReport.uncovered`); without
    it nothing is looked for (`poemetric.merging.merge_stores` passes the stages' rule, and
    the others, as `poemetric merge` does). `checker_version` gives the version of form check `form run`
    makes now (`poemetric merge` passes `poemetric.form.user_lexicon.default_version`): of two
    checks of one poem by different versions, that one's is kept; without it they conflict."""
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
        if found.version < SCHEMA_VERSION:
            # A store another process is making this moment (merges of the shards into one new
            # destination, each as its array task ends), or an older one: opening it waits for
            # the other's migrations, or makes them, as any command's does.
            RunStore(destination).close()
            found = _probe(dest_file)
        if found.version != SCHEMA_VERSION:
            raise MergeError(
                f"destination {dest_file} has schema version {found.version}, this POEMetric "
                f"writes {SCHEMA_VERSION}; refusing to merge into it"
            )
        probed.append(found)

    _check_one_dataset(probed)
    named = [*report.sources, destination][: len(probed)]  # as the user gave them
    check_one_template([(name, s.templates) for name, s in zip(named, probed, strict=True)])
    report.mixed_models = mixed_models(
        [(name, s.models, s.templates) for name, s in zip(named, probed, strict=True)]
    )

    shard_records: list[list[str | None]] = []
    surveys: list[tuple[Path, list[str]]] = []  # (source folder, surveys merged from it)
    done: list[Path] = []  # sources merged and committed, for a disk-full message
    try:
        with RunStore(destination) as store:
            before = store_activity(store.conn, "main", destination, store.path)  # before the merge
            activity: list[StoreActivity] = []
            for source, path in zip(report.sources, source_files, strict=True):
                if path.resolve() == store.path.resolve():
                    report.skipped_sources.append(source)
                    continue
                records, merged, stages = _merge_one(
                    store, source, path, report, complete_pages, checker_version
                )
                activity.append(stages)
                shard_records.append(records)
                surveys.append((path.parent, merged))
                done.append(source)
            merged_at = utc_now()  # one time for the merge: the report says its sources as one
            sources_merged = [
                {"source": str(source), "merged_at": merged_at}
                for source in report.sources
                if source not in report.skipped_sources
            ]
            # The destination's own records (a source that is the destination) are held.
            # A stage at work in a source with no model through yet records no shard: its
            # models are missing all the same (not "started only", nor "stopped partway").
            at_work = {stage for source in activity for stage in source.busy}
            # Read and written in one transaction: merges into one destination at once (array
            # tasks each merging their part) lost each other's entries between the two.
            with store.transaction():
                store.update_meta("merged_from", lambda held: [*(held or []), *sources_merged])
                missing = merge_shard_records(store, shard_records, at_work)
            report.missing_shards, report.started_only = sort_missing(
                store.conn, missing, before, activity
            )
            if coverage is not None:
                said: list[MissingShards | StartedOnly] = [
                    *report.missing_shards,
                    *report.started_only,
                ]
                report.uncovered = sort_gaps(store, coverage(store), said, before, activity)
            report.form_rules = mixed_form_rules(store.conn)
        report.relinked = carry_secret(destination, surveys)
    except sqlite3.OperationalError as error:
        if (locked := lock_failure(destination / DB_NAME, error)) is not None:
            raise StoreWriteError(locked) from None  # the store it writes: the one it waited on
        # A full disk is SQLITE_FULL; a disk quota (a cluster's home or scratch) or a file size
        # limit that a write runs into is a disk I/O error.
        if primary_code(error) not in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR):
            raise
        left = [s for s in report.sources if s not in done and s not in report.skipped_sources]
        raise MergeError(_disk_full(destination, error, done, left)) from None
    return report


def _disk_full(destination: Path, error: sqlite3.Error, done: list[Path], left: list[Path]) -> str:
    """What to say when the merge could not write the destination (a full disk, a quota)."""
    merged = ", ".join(map(str, done))
    kept = f"{merged} {'is' if len(done) == 1 else 'are'} merged already; " if done else ""
    lost = (
        f"nothing of {', '.join(map(str, left))} was written (a store is merged whole or not at "
        "all)"
        if left
        else "which shards the stores ran was not recorded"
    )
    # SQLITE_IOERR may also be a source that cannot be read (a failing disk, a network
    # folder gone): the message names both.
    full = primary_code(error) == sqlite3.SQLITE_FULL
    what = (
        f"could not write {destination} ({error}: is its disk full, or your disk quota used up?)"
        if full
        else f"could not write {destination} or read a source ({error}: is the destination's "
        "disk full, or your disk quota used up? or a source's disk or network folder failing?)"
    )
    return (
        f"{what}; the merge stopped; {kept}{lost}. Free space there (SQLite needs room for "
        "the rows it copies, and as much again while it writes them) and run the same merge "
        "again: rows merged already are kept once"
    )


def _merge_one(
    store: RunStore,
    source: Path,
    path: Path,
    report: MergeReport,
    complete_pages: PageCompletion | None,
    checker_version: CheckerVersion | None = None,
) -> tuple[list[str | None], list[str], StoreActivity]:
    """Merge the store at `path` into `store`; returns its values of SHARD_META_KEYS, the
    surveys merged from it and what its stages left (`store_activity`)."""
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
            for rule in TABLE_RULES:
                stats = merge_table(conn, rule, source, report.conflicts, checker_version)
                report.tables.setdefault(rule.name, TableMerge()).add(stats)
            complete = None if complete_pages is None else partial(complete_pages, store)
            by_table, merged = merge_surveys(conn, source, report.survey_conflicts, complete)
            for name, stats in by_table.items():  # shown for stores with surveys only
                if any(vars(stats).values()) or name in report.tables:
                    report.tables.setdefault(name, TableMerge()).add(stats)
            found = store_activity(conn, "src", source, path)
            return [attached_meta(conn, key) for key in SHARD_META_KEYS], merged, found
    finally:
        conn.execute("DETACH DATABASE src")


def _merge_meta(store: RunStore) -> None:
    store.conn.execute(
        "INSERT OR IGNORE INTO main.meta(key, value) SELECT key, value FROM src.meta "
        "WHERE key NOT IN ('merged_from', ?, ?, ?, ?, ?)",  # combined, not first-come
        (*SHARD_META_KEYS, MODELS_META_KEY, SELECTIONS_META_KEY, PROBE_PAIRS_META_KEY),
    )
    merge_attached_records(store)
    merge_attached_selections(store)
    merge_attached_probe_pairs(store)
