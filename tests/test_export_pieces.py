"""`poemetric export` writes a table a piece of rows at a time, and the file is the one a frame of
the whole table made.

The export read the whole table into Python objects and a frame, 4 to 5 times the table's text
in memory (a 90 MB judgments CSV took 420 MB at 44,000 judgments), so a study's 450,000
judgments with a reasoning judge's raw answers did not fit in a laptop's memory. Each piece's
columns must be typed as the whole frame types them: a piece of NULLs in a text column, a piece
of whole numbers in an INTEGER column that holds 2.5 further down, a bare carriage return that
quotes the whole CSV, found in the last piece.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store import frames as frames_module
from poemetric.store.export_file import csv_quoting, write_jsonl_rows, write_parquet_frames
from poemetric.store.frames import export_frame

#: The call log: INTEGER, REAL and TEXT columns, rows whose kinds change down the table.
CALLS = [
    # cache_key, attempt, http_status, detail, latency_s
    ("k0", 1, None, None, None),
    ("k1", 1, None, None, None),
    ("k2", 2, 200, None, 1),  # an integer in a REAL column
    ("k3", 1, 429, "slow down", 0.25),
    ("k4", 3, 4.0, None, None),  # a whole real in an INTEGER column: still Int64
    ("k5", 1, 2.5, "x", 1.5),  # a fraction: the whole column is float then
    ("k6", 1, None, "mixed", None),
    ("k7", 1, 500, "line\rbreak", 2),  # a bare carriage return: every field quoted
    ("k8", 1, None, None, None),
]
#: Text in a REAL column: an object column of the values as they are (no Parquet file: pyarrow
#: cannot convert it, a piece or the whole).
MIXED = [*CALLS[:6], ("k6", 1, None, "mixed", "fast"), *CALLS[7:]]


def _store(tmp_path: Path, rows: list[tuple[object, ...]]) -> Path:
    with RunStore(tmp_path / "run") as store, store.transaction() as conn:
        conn.executemany(
            "INSERT INTO calls (cache_key, provider, model, attempt, outcome, http_status, "
            "detail, latency_s, created_at) VALUES (?, 'p', 'm', ?, 'ok', ?, ?, ?, 't')",
            rows,
        )
        return store.path


def _whole_table_files(conn: sqlite3.Connection, table: str, folder: Path) -> dict[str, Path]:
    """The files a frame of the whole table makes (what `export` wrote before it wrote pieces)."""
    frame = export_frame(conn, table)
    folder.mkdir()
    paths = {suffix: folder / f"{table}{suffix}" for suffix in (".csv", ".jsonl", ".parquet")}
    frame.to_csv(paths[".csv"], index=False, quoting=csv_quoting(frame))
    with paths[".jsonl"].open("w", encoding="utf-8", newline="\n") as out:
        write_jsonl_rows(frame, out)
    try:
        write_parquet_frames(iter([frame]), paths[".parquet"])
    except pa.ArrowInvalid:
        del paths[".parquet"]
    return paths


@pytest.mark.parametrize(
    "rows", [CALLS, CALLS[:7], CALLS[:2], MIXED], ids=["cr", "no-cr", "nulls", "mixed"]
)
@pytest.mark.parametrize("piece", [1, 2, 3, 100])
def test_pieces_make_the_whole_tables_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: list[tuple[object, ...]], piece: int
) -> None:
    path = _store(tmp_path, rows)
    with sqlite3.connect(path) as conn:
        whole = _whole_table_files(conn, "calls", tmp_path / "whole")
    monkeypatch.setattr(frames_module, "EXPORT_CHUNK_ROWS", piece)
    for suffix, expected in whole.items():
        written = tmp_path / f"calls{suffix}"
        with RunStore(tmp_path / "run", create=False) as store:
            store.export("calls", written)
        if suffix == ".parquet":
            got, want = pq.read_table(written), pq.read_table(expected)
            assert got.schema.equals(want.schema, check_metadata=True)
            assert got.equals(want)
            assert got.to_pandas().equals(want.to_pandas())
        else:
            assert written.read_bytes() == expected.read_bytes(), suffix
    assert (".parquet" in whole) == (rows is not MIXED)
    if rows is CALLS:  # quoted whole although the carriage return is in the last pieces
        with (tmp_path / "calls.csv").open(encoding="utf-8", newline="") as handle:
            assert [r["detail"] for r in csv.DictReader(handle)][7] == "line\rbreak"
        assert (tmp_path / "calls.csv").read_text(encoding="utf-8").startswith('"call_id",')


def test_no_frame_holds_more_than_a_piece(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is never read whole into one frame: every frame built is a piece or smaller."""
    _store(tmp_path, [(f"k{i}", 1, 200, "ok", 0.5) for i in range(50)])
    monkeypatch.setattr(frames_module, "EXPORT_CHUNK_ROWS", 7)
    built: list[int] = []
    from_records = pd.DataFrame.from_records

    def counted(data: object, *args: object, **kwargs: object) -> pd.DataFrame:
        frame = from_records(data, *args, **kwargs)
        built.append(len(frame))
        return frame

    monkeypatch.setattr(pd.DataFrame, "from_records", counted)
    for suffix in (".csv", ".jsonl", ".parquet"):
        built.clear()
        with RunStore(tmp_path / "run", create=False) as store:
            store.export("calls", tmp_path / f"calls{suffix}")
        assert built and max(built) <= 7, (suffix, built)
    assert len(pd.read_csv(tmp_path / "calls.csv")) == 50
    assert pq.read_table(tmp_path / "calls.parquet").num_rows == 50


def test_generations_pieces_whose_poems_have_no_metre_make_the_whole_tables_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The requested metre and rhyme pattern of a generations file: a first piece of poems
    without them typed its columns of NULLs as no text (Parquet's pandas metadata said
    'empty', the whole table's 'str')."""
    with RunStore(tmp_path / "run") as store, store.transaction() as conn:
        conn.execute(
            "INSERT INTO poems(poem_id, dataset, position, form, content, record) "
            "VALUES ('p1', 'd', 0, 'ghazal', 'a poem', '{}')"
        )
        conn.execute(
            "INSERT INTO poems(poem_id, dataset, position, form, meter, rhyme, content, record) "
            "VALUES ('p2', 'd', 1, 'ballad', 'iambic', 'ABAB', 'a poem', '{}')"
        )
        conn.execute("INSERT INTO templates VALUES ('t', 'default', 'Write a {form}.')")
        conn.executemany(
            "INSERT INTO prompts VALUES (?, ?, 't', 'Write one.')", [("q1", "p1"), ("q2", "p2")]
        )
        conn.executemany(
            "INSERT INTO generations (generation_id, prompt_id, poem_id, author, sample_index, "
            "status, poem, created_at) VALUES (?, ?, ?, 'm', ?, 'ok', 'a poem', 't')",
            [(f"g{i}", f"q{1 + i // 3}", f"p{1 + i // 3}", i) for i in range(6)],
        )
    with sqlite3.connect(tmp_path / "run" / "poemetric.sqlite") as conn:
        whole = _whole_table_files(conn, "generations", tmp_path / "whole")
    monkeypatch.setattr(frames_module, "EXPORT_CHUNK_ROWS", 3)
    for suffix, expected in whole.items():
        written = tmp_path / f"generations{suffix}"
        with RunStore(tmp_path / "run", create=False) as store:
            store.export("generations", written)
        if suffix == ".parquet":
            got, want = pq.read_table(written), pq.read_table(expected)
            assert got.schema.equals(want.schema, check_metadata=True)
            assert got.equals(want)
        else:
            assert written.read_bytes() == expected.read_bytes(), suffix


def test_a_column_of_numbers_and_text_is_refused_for_parquet_by_name_and_row(
    tmp_path: Path,
) -> None:
    """Parquet holds one type per column: text in an INTEGER column, late in the table, is
    said by column and row before the file is begun (it was pyarrow's error, as a crash);
    CSV and JSONL write it as stored."""
    rows = [(f"k{i}", 1, 200, None, 0.5) for i in range(12)]
    rows[9] = ("k9", 1, "n/a", None, 0.5)
    _store(tmp_path, rows)
    result = CliRunner().invoke(
        app, ["export", "calls", "--run", str(tmp_path / "run"), "-o", str(tmp_path / "c.parquet")]
    )
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ")
    # Row 12 of the CSV and JSONL files, ordered by key (k0, k1, k10, k11, k2, ...): below.
    assert "column 'http_status' of calls holds numbers and text (row 12: 'n/a')" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "c.parquet").exists()
    for suffix in (".csv", ".jsonl"):
        done = CliRunner().invoke(
            app,
            ["export", "calls", "--run", str(tmp_path / "run"), "-o", str(tmp_path / f"c{suffix}")],
        )
        assert done.exit_code == 0, done.output
    lines = (tmp_path / "c.jsonl").read_text(encoding="utf-8").splitlines()
    assert '"http_status":"n/a"' in lines[11]  # the row the refusal named
    with (tmp_path / "c.csv").open(encoding="utf-8", newline="") as handle:
        assert list(csv.DictReader(handle))[11]["http_status"] == "n/a"
