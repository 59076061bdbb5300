"""`poemetric export --format jsonl` writes every stored number as stored.

pandas' `to_json` rounds floats to 10 decimal places: a call's latency 0.30109589300263906 s was
written 0.301095893, a cost of 1.5e-11 dollars (a cheap call's share) 0.0, and 2**60 as
1.152921505e+18, while the CSV and Parquet files of the same table kept them whole.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pyarrow.parquet as pq
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

#: Latencies that 10 decimal places change: tiny, many significant digits, large.
LATENCIES = [1.5e-11, 0.30109589300263906, 0.1 + 0.2, float(2**60) + 2**8, 2.5e-7]


def _store_calls(run: Path) -> list[float]:
    with RunStore(run) as store:
        for number, latency in enumerate(LATENCIES, start=1):
            store.log_call(
                cache_key=f"k{number}", provider="p", model="m", attempt=1, outcome="ok",
                http_status=200, latency_s=latency,
            )  # fmt: skip
        # logged last, and last by cache key: the export's order (its time, then its key)
        store.log_call(cache_key="k9", provider="p", model="m", attempt=1, outcome="error")
        return [row[0] for row in store.query("SELECT latency_s FROM calls ORDER BY call_id")]


def _export(run: Path, destination: Path) -> None:
    result = CliRunner().invoke(
        app, ["export", "calls", "--run", str(run), "--to", str(destination)]
    )
    assert result.exit_code == 0, result.output


def test_jsonl_keeps_every_digit_of_a_float(tmp_path: Path) -> None:
    run = tmp_path / "run"
    stored = _store_calls(run)
    assert stored[:-1] == LATENCIES and stored[-1] is None
    _export(run, tmp_path / "calls.jsonl")
    lines = (tmp_path / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [record["latency_s"] for record in records] == stored
    assert [record["http_status"] for record in records] == [200] * len(LATENCIES) + [None]
    assert all(type(record["call_id"]) is int for record in records)


def test_every_format_reads_back_the_stored_floats(tmp_path: Path) -> None:
    run = tmp_path / "run"
    stored = _store_calls(run)
    for suffix in ("csv", "jsonl", "parquet"):
        _export(run, tmp_path / f"calls.{suffix}")
    with (tmp_path / "calls.csv").open(encoding="utf-8", newline="") as handle:
        from_csv = [
            float(row["latency_s"]) if row["latency_s"] else None for row in csv.DictReader(handle)
        ]
    text = (tmp_path / "calls.jsonl").read_text(encoding="utf-8")
    from_jsonl = [json.loads(line)["latency_s"] for line in text.splitlines()]
    from_parquet = pq.read_table(tmp_path / "calls.parquet")["latency_s"].to_pylist()
    assert from_csv == from_jsonl == from_parquet == stored
    assert not any(isinstance(v, float) and math.isnan(v) for v in from_jsonl)
