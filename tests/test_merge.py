"""Merging shard run stores: union, deduplication, ok-beats-error, conflicts, schema check."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.store.db import DB_NAME, RunStore, stable_id
from poemetric.store.merge import MergeError, merge_runs
from poemetric.store.schema import SCHEMA_VERSION

POEMS = ["p1", "p2", "p3", "p4"]


def _poem(poem_id: str, position: int) -> dict[str, Any]:
    return {
        "poem_id": poem_id,
        "dataset": "demo",
        "position": position,
        "form": "limerick",
        "content": f"poem text {poem_id}",
        "record": "{}",
    }


def _generation(
    poem_id: str, author: str, *, status: str = "ok", poem: str | None = None
) -> dict[str, Any]:
    prompt_id = f"prompt-{poem_id}"
    row: dict[str, Any] = {
        "generation_id": stable_id(prompt_id, author, 0),
        "prompt_id": prompt_id,
        "poem_id": poem_id,
        "author": author,
        "sample_index": 0,
        "status": status,
        "provider": "markov",
    }
    if status == "ok":
        row["poem"] = poem if poem is not None else f"{author} wrote about {poem_id}"
        row["response_text"] = row["poem"]
    else:
        row["error"] = "HTTP 503"
    return row


def _make_store(run_dir: Path, poem_ids: list[str], authors: list[str]) -> Path:
    with RunStore(run_dir) as store:
        store.add_poems(_poem(p, POEMS.index(p)) for p in POEMS)  # every shard snapshots all poems
        template = store.add_template("default", "Write a {form}.")
        store.add_prompts(
            {
                "prompt_id": f"prompt-{p}",
                "poem_id": p,
                "template_hash": template,
                "text": f"Write {p}",
            }
            for p in POEMS
        )
        for poem_id in poem_ids:
            for author in authors:
                row = _generation(poem_id, author)
                store.save_generation(row)
                store.save_form_check(
                    {"generation_id": row["generation_id"], "checker_version": "1", "passed": 1}
                )
                store.save_judgment(
                    {
                        "judgment_id": stable_id(row["generation_id"], "judge", 0),
                        "generation_id": row["generation_id"],
                        "judge": "gemini-2.5-pro",
                        "status": "ok",
                        "overall_quality": 3,
                    }
                )
                key = stable_id("cache", poem_id, author)
                store.cache_completion(key, "markov", "markov-ngram", {"text": row["poem"]})
                store.log_call(
                    cache_key=key, provider="markov", model="markov-ngram", attempt=1, outcome="ok"
                )
    return run_dir


def _halves(tmp_path: Path) -> tuple[Path, Path]:
    """Two shards of one run, s1 and s2, that together hold a poem of markov for every prompt
    (a merge of fewer says that the merged run lacks the others)."""
    return (
        _make_store(tmp_path / "s1", ["p1", "p2"], ["markov"]),
        _make_store(tmp_path / "s2", ["p3", "p4"], ["markov"]),
    )


def _count(run_dir: Path, table: str, where: str = "1") -> int:
    with RunStore(run_dir, create=False) as store:
        return store.count(table, where)


def test_two_shards_merge_into_union(tmp_path: Path) -> None:
    shard1 = _make_store(tmp_path / "shard1", ["p1", "p2"], ["markov", "gpt-4o"])
    shard2 = _make_store(tmp_path / "shard2", ["p3", "p4"], ["markov", "gpt-4o"])
    report = merge_runs([shard1, shard2], tmp_path / "merged")
    merged = tmp_path / "merged"
    assert _count(merged, "poems") == 4
    assert _count(merged, "prompts") == 4
    assert _count(merged, "templates") == 1
    assert _count(merged, "generations") == 8
    assert _count(merged, "form_checks") == 8
    assert _count(merged, "judgments") == 8
    assert _count(merged, "response_cache") == 8
    assert _count(merged, "calls") == 8
    assert report.conflicts == []
    # The second shard's poems/prompts/templates are the same rows: counted as identical.
    assert report.tables["poems"].copied == 4 and report.tables["poems"].identical == 4
    assert report.tables["generations"].copied == 8
    with RunStore(merged, create=False) as store:
        assert [entry["source"] for entry in store.get_meta("merged_from")] == [
            str(shard1),
            str(shard2),
        ]


def test_merging_twice_is_idempotent(tmp_path: Path) -> None:
    shard1 = _make_store(tmp_path / "s1", ["p1"], ["markov"])
    merge_runs([shard1], tmp_path / "dest")
    again = merge_runs([shard1], tmp_path / "dest")
    assert _count(tmp_path / "dest", "generations") == 1
    assert _count(tmp_path / "dest", "calls") == 1
    assert again.copied == 0
    assert again.tables["generations"].identical == 1
    assert again.tables["calls"].identical == 1


def test_ok_row_beats_error_row_both_ways(tmp_path: Path) -> None:
    failed = tmp_path / "failed"
    succeeded = tmp_path / "succeeded"
    _make_store(failed, [], [])
    _make_store(succeeded, [], [])
    with RunStore(failed) as store:
        store.save_generation(_generation("p1", "gpt-4o", status="error"))
        store.save_generation(_generation("p2", "gpt-4o"))
    with RunStore(succeeded) as store:
        store.save_generation(_generation("p1", "gpt-4o"))
        store.save_generation(_generation("p2", "gpt-4o", status="error"))
    report = merge_runs([succeeded], failed)
    stats = report.tables["generations"]
    assert stats.replaced_error == 1
    assert stats.kept_ok == 1
    assert _count(failed, "generations", "status = 'ok'") == 2
    assert report.conflicts == []


def test_conflicting_ok_rows_keep_destination_and_are_reported(tmp_path: Path) -> None:
    dest = _make_store(tmp_path / "dest", ["p1"], ["gpt-4o"])
    other = tmp_path / "other"
    _make_store(other, [], [])
    row = _generation("p1", "gpt-4o", poem="a different poem")
    with RunStore(other) as store:
        store.save_generation(row)
        store.save_judgment(
            {
                "judgment_id": stable_id(row["generation_id"], "judge", 0),
                "generation_id": row["generation_id"],
                "judge": "gemini-2.5-pro",
                "status": "ok",
                "overall_quality": 5,
            }
        )
    report = merge_runs([other], dest)
    assert len(report.conflicts) == 1
    conflict = report.conflicts[0]
    assert conflict.table == "generations"
    assert conflict.key == {"prompt_id": "prompt-p1", "author": "gpt-4o", "sample_index": 0}
    assert "poem" in conflict.columns
    assert "differs in" in conflict.describe()
    with RunStore(dest, create=False) as store:
        assert store.query("SELECT poem FROM generations")[0]["poem"] == "gpt-4o wrote about p1"
        # The other version's judgment is not attached to the destination's poem.
        assert store.query("SELECT overall_quality FROM judgments")[0][0] == 3


def test_judgment_for_conflicting_generation_is_skipped_when_absent(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    _make_store(dest, [], [])
    with RunStore(dest) as store:
        store.save_generation(_generation("p1", "gpt-4o"))
    other = _make_store(tmp_path / "other", [], [])
    row = _generation("p1", "gpt-4o", poem="another poem")
    with RunStore(other) as store:
        store.save_generation(row)
        store.save_judgment(
            {
                "judgment_id": "j1",
                "generation_id": row["generation_id"],
                "judge": "gpt-4o",
                "status": "ok",
            }
        )
    report = merge_runs([other], dest)
    assert report.tables["judgments"].skipped == 1
    assert _count(dest, "judgments") == 0


def test_schema_version_mismatch_is_refused(tmp_path: Path) -> None:
    shard = _make_store(tmp_path / "shard", ["p1"], ["markov"])
    conn = sqlite3.connect(shard / DB_NAME)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(MergeError, match="schema version 99"):
        merge_runs([shard], tmp_path / "dest")
    assert not (tmp_path / "dest" / DB_NAME).exists()


def test_a_destination_another_merge_is_making_is_merged_into(tmp_path: Path) -> None:
    """Shards merged into one new destination at once (each array task merging its part as it
    ends): one merge finds the store another is making, its schema not yet complete (version 0
    before the first migration), and merges into it, not refusing it as 'schema version 0'."""
    first = _make_store(tmp_path / "first", ["p1"], ["markov"])
    second = _make_store(tmp_path / "second", ["p1"], ["markov"])
    dest = tmp_path / "dest"
    dest.mkdir()
    sqlite3.connect(dest / DB_NAME).close()  # made, not migrated yet
    merge_runs([first], dest)
    report = merge_runs([second], dest)
    assert not report.conflicts
    with RunStore(dest) as store:
        assert store.schema_version == SCHEMA_VERSION
    assert _count(dest, "generations") == _count(first, "generations")


def test_two_merges_into_one_destination_at_once_keep_both_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second merge into the destination that runs whole while the first is between reading
    the destination's record of merged stores and writing it back: both are recorded (the first
    wrote its own over the second's)."""
    dest = _make_store(tmp_path / "dest", ["p1"], ["markov"])
    first = _make_store(tmp_path / "first", ["p1"], ["markov"])
    second = _make_store(tmp_path / "second", ["p1"], ["markov"])
    read = RunStore.get_meta
    others: list[threading.Thread] = []

    def get_meta(store: RunStore, key: str, default: Any = None) -> Any:
        value = read(store, key, default)
        if key == "merged_from" and not others:  # the first merge, reading its record
            others.append(threading.Thread(target=merge_runs, args=([second], dest)))
            others[0].start()
            others[0].join(timeout=1.0)  # whole, unless this merge holds the store
        return value

    monkeypatch.setattr(RunStore, "get_meta", get_meta)
    merge_runs([first], dest)
    others[0].join()
    with RunStore(dest) as store:
        merged = [Path(entry["source"]) for entry in read(store, "merged_from")]
    assert sorted(merged) == sorted([first, second])


def test_missing_source_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MergeError, match="no run store"):
        merge_runs([tmp_path / "nowhere"], tmp_path / "dest")


def test_destination_among_sources_is_skipped(tmp_path: Path) -> None:
    dest = _make_store(tmp_path / "dest", ["p1"], ["markov"])
    report = merge_runs([dest], dest)
    assert report.skipped_sources == [dest]
    assert _count(dest, "generations") == 1


def test_batches_take_the_newest_row(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for run_dir, status, updated in [
        (old, "in_progress", "2025-01-01"),
        (new, "completed", "2025-01-02"),
    ]:
        with RunStore(run_dir) as store, store.transaction() as conn:
            conn.execute(
                "INSERT INTO batches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ("b1", "openai", "gpt-4o", "generate", status, "[]", None, "2025-01-01", updated),
            )
    report = merge_runs([new], old)
    assert report.tables["batches"].updated == 1
    with RunStore(old, create=False) as store:
        assert store.query("SELECT status FROM batches")[0][0] == "completed"


def test_a_collected_batch_is_not_replaced_by_a_later_not_found(tmp_path: Path) -> None:
    """Two stores of one run with two API keys: key A's store collected the batch (its results
    stored); key B's store polled it later and the provider, which knows no batch of another
    key, answered 404. The merge took the row updated last: the merged run had the batch 'not
    found (404)', in flight, so every run polled it and stopped the model. A collected batch
    (then an abandoned one) now stays so, whichever store comes first, as within one store."""
    from poemetric.runner.batch_table import abandon_batch, record_batch, update_batch
    from poemetric.runner.batch_unknown import mark_not_found

    stores = {name: tmp_path / name for name in ("a", "b", "c")}
    for run_dir in stores.values():
        with RunStore(run_dir) as store:
            record_batch(store, "batch_1", ("openai", "gpt-4o", "generate"), {"c1": "k1"}, {})
    with RunStore(stores["a"]) as store:
        update_batch(store, "batch_1", "collected", {"state": "completed"})
    with RunStore(stores["c"]) as store:
        abandon_batch(store, "batch_1", "given up")
    with RunStore(stores["b"]) as store:  # polled last, with another key
        mark_not_found(store, "batch_1", 404, "No batch found with id 'batch_1'.")
    for order, expected in (("ab", "collected"), ("ba", "collected"), ("bc", "abandoned"),
                            ("cb", "abandoned"), ("ca", "collected")):  # fmt: skip
        into = tmp_path / f"merged-{order}"
        result = CliRunner().invoke(
            app, ["merge", *(str(stores[name]) for name in order), "--into", str(into)]
        )
        assert result.exit_code == 0, result.output
        with RunStore(into, create=False) as store:
            (status,) = store.query("SELECT status FROM batches")[0]
        assert status == expected, order  # "ab" and "bc" were 'not found (404)'


def test_merge_cli(tmp_path: Path) -> None:
    shard1, shard2 = _halves(tmp_path)
    result = CliRunner().invoke(
        app, ["merge", str(shard1), str(shard2), "--into", str(tmp_path / "all")]
    )
    assert result.exit_code == 0, result.output
    assert "generations" in result.output
    assert _count(tmp_path / "all", "generations") == 4
    missing = CliRunner().invoke(
        app, ["merge", str(tmp_path / "none"), "--into", str(tmp_path / "x")]
    )
    assert missing.exit_code != 0
    assert "no run store" in missing.output


def test_the_merge_table_keeps_its_headers_whole_in_an_80_column_log(tmp_path: Path) -> None:
    """A batch job's log is 80 columns wide: the headers were cut to `ok>e…`, `confl…`."""
    shard1, shard2 = _halves(tmp_path)
    args = ["merge", str(shard1), str(shard2), "--into", str(tmp_path / "all")]
    result = CliRunner().invoke(app, args, env={"COLUMNS": None})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    header = next(line for line in result.output.splitlines() if line.startswith("table"))
    assert header.split() == ["table", "┃", "new", "┃", "same"]
    assert "left out at this width: ok>error, kept ok, both err, updated" in result.output
    assert max(len(line) for line in result.output.splitlines() if "│" in line) <= 80


ALL_HEADERS = ["table", "new", "same", "ok>error", "kept ok", "both err", "updated", "conflicts"]


@pytest.mark.parametrize(
    ("columns", "headers"), [(88, [*ALL_HEADERS, "skipped"]), (24, ["table", "new", "same"])]
)
def test_the_merge_table_wraps_its_headers_before_it_leaves_columns_out(
    tmp_path: Path, columns: int, headers: list[str]
) -> None:
    """At 86 to 92 columns the merge left out the columns that are 0 for every table, where
    wrapping `kept ok` and `both err` (as the stages' summaries wrap theirs) shows them all.
    Narrower than the table without them, the columns that do not fit go to a second table
    (the lines ran over), rather than cut a header to `s…`."""
    shard1, shard2 = _halves(tmp_path)
    args = ["merge", str(shard1), str(shard2), "--into", str(tmp_path / "all")]
    result = CliRunner().invoke(app, args, env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    shown: list[str] = []
    for table in result.output.split("\n\n"):  # a second table after an empty line
        lines = [line.split("┃") for line in table.splitlines() if "┃" in line]
        shown += [
            " ".join(filter(None, (line[i].strip() for line in lines)))
            for i in range(1 if shown else 0, len(lines[0]) if lines else 0)
        ]
    assert shown == headers
    assert ("left out at this width" in result.output) == (len(headers) < 9)
    assert max(len(line) for line in result.output.splitlines() if "│" in line) <= columns


def test_a_paper_scale_merge_keeps_every_count_whole_at_80_columns() -> None:
    """Counts in the hundreds of thousands for every column: the lines ran over 80 columns (93
    wide); the columns that do not fit go to a second table with the table names again, and
    counts have a thousands separator, as the run summaries'."""
    from io import StringIO

    from rich.console import Console

    from poemetric.cli.merge_cmd import _print_report
    from poemetric.store.merge import MergeReport
    from poemetric.store.merge_tables import MERGED_TABLES, TableMerge

    report = MergeReport(destination=Path("runs/paper"), sources=[Path("a"), Path("b")])
    counts = TableMerge(1_234_567, 765_432, 12_345, 43_210, 9_870, 56_789, 1_234, 34_567)
    report.tables = {name: counts for name in MERGED_TABLES}
    out = StringIO()
    _print_report(Console(file=out, width=80, emoji=False, highlight=False), report)
    text = out.getvalue()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines() if "│" in line) <= 80
    cells = [cell.strip() for line in text.splitlines() for cell in line.split("│")]
    for count in ("1,234,567", "765,432", "12,345", "43,210", "9,870", "56,789", "1,234"):
        assert cells.count(count) == len(MERGED_TABLES), count
    assert cells.count("34,567") == len(MERGED_TABLES)


def test_the_legend_explains_every_column() -> None:
    """The legend under the table left out `updated` (a newer batch or line annotation replaced
    the older) and `conflicts`: each column's header is explained."""
    from io import StringIO

    from rich.console import Console

    from poemetric.cli.merge_cmd import _COLUMNS, _print_report
    from poemetric.store.merge import MergeReport
    from poemetric.store.merge_tables import MERGED_TABLES, TableMerge

    report = MergeReport(destination=Path("runs/paper"), sources=[Path("a")])
    report.tables = {name: TableMerge(*range(1, 9)) for name in MERGED_TABLES}
    out = StringIO()
    _print_report(Console(file=out, width=400, emoji=False, highlight=False), report)
    legend = next(line for line in out.getvalue().splitlines() if line.startswith("new: "))
    for _, header in _COLUMNS:
        assert f"{header}: " in legend, header
    assert "updated: a newer version replaced the older (batches, line annotations, " in legend


def test_a_file_as_destination_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    """`merge --into FILE` ended in mkdir's FileExistsError traceback."""
    shard = _make_store(tmp_path / "s1", ["p1"], ["markov"])
    a_file = tmp_path / "all.sqlite"
    a_file.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["merge", str(shard), "--into", str(a_file)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == (
        f"error: --into {a_file}: a file name (.sqlite), but the output is a folder (its files "
        f"are written into it); give a folder, e.g. --into {tmp_path / 'all'}/\n"
    )
    plain_file = tmp_path / "notes"
    plain_file.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["merge", str(shard), "--into", str(plain_file)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == f"error: --into {plain_file}: not a folder; give a folder\n"


def test_runs_of_different_datasets_are_refused(tmp_path: Path) -> None:
    for name, digest in (("a", "1" * 64), ("b", "2" * 64)):
        _make_store(tmp_path / name, ["p1"], ["markov"])
        with RunStore(tmp_path / name) as store:
            store.set_meta("dataset", {"name": name, "path": name, "sha256": digest})
    with pytest.raises(MergeError, match="different datasets"):
        merge_runs([tmp_path / "a", tmp_path / "b"], tmp_path / "merged")
    assert not (tmp_path / "merged" / DB_NAME).exists()
    with pytest.raises(MergeError, match="different datasets"):
        merge_runs([tmp_path / "b"], tmp_path / "a")
    with RunStore(tmp_path / "a") as store:
        assert store.count("generations", "author = 'markov'") == 1


def test_each_source_store_is_opened_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source was opened four times besides its ATTACH (schema version, dataset, and once per
    shard record after the merge): everything after the first look is read through `src`."""
    from poemetric.store.shards import MissingShards, record_shard

    sources = [
        _make_store(tmp_path / name, [poem], ["markov"])
        for name, poem in (("a", "p1"), ("b", "p2"))
    ]
    for index, source in enumerate(sources):
        with RunStore(source) as store:
            record_shard(store, "generate", index, 3, ["markov"])
    opened: list[str] = []
    connect = sqlite3.connect

    def counted(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(str(database))
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", counted)
    report = merge_runs(sources, tmp_path / "all")
    assert [sum(str(s / DB_NAME) in name for name in opened) for s in sources] == [1, 1]
    # The shard records still come through, read from the attached store.
    assert report.missing_shards == [MissingShards("generate", "markov", 3, (2,))]
