"""`poemetric export` keeps integer columns integers in every format.

pandas read an INTEGER column with a NULL as float64, so a blank beside a number made every number
of the column a float: `survey_assignments.check_expected` (blank where a poem carries no
attention check) was written `4.0` in CSV and JSONL and as a double in Parquet, and so were judge
scores beside an unparsable answer, token counts beside the human poems. Each
column declared INTEGER is now written `4` (empty / null for NULL) and stays int64 in Parquet;
REAL columns (form scores 0-1, costs, latencies) stay floats. `survey_answers.score`, declared
REAL but a whole number (1-5, 0 for N/A, blank beside a comment), was still written `4.0`; it is
written as the INTEGER columns are. In CSV an N/A answer (imagery, literary devices) is `NA`
(tests/test_export_na.py); JSONL and Parquet keep the stored 0.
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER, openai_spec
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.judge.stage import run_judging
from poemetric.questionnaire import COMMENTS
from poemetric.store import RunStore
from poemetric.store.export_file import CSV_NA, NA_ITEMS
from poemetric.store.schema import EXPORTABLE_TABLES
from poemetric.survey.db import import_answers
from poemetric.testing.servers import ChatCall, OpenAIServer

#: Columns of the run below that hold both NULLs and numbers: the ones the bug turned to floats.
MIXED = {
    ("survey_assignments", "check_expected"),
    ("judgments", "form"),
    ("judgments", "overall_quality"),
    ("generations", "input_tokens"),
    ("survey_answers", "score"),
}


#: Columns where CSV writes an N/A answer (stored 0) as `CSV_NA`.
NA_COLUMNS = {("judgments", key) for key in NA_ITEMS} | {("survey_answers", "score")}

#: Columns declared REAL that hold whole numbers only, written as integers too.
WHOLE_NUMBERS = {("survey_answers", "score")}


def _integers(table: str, name: str, declared: str) -> bool:
    return "INT" in declared.upper() or (table, name) in WHOLE_NUMBERS


class OneGarbled:
    """Valid answers (literary devices N/A), but the first one cannot be read: an error row,
    its scores NULL."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.garbled = 1

    def __call__(self, call: ChatCall) -> str:
        with self.lock:
            if self.garbled:
                self.garbled -= 1
                return "I would rate this poem highly overall."
        return VALID_JUDGE_ANSWER


def _declared(run: Path) -> dict[str, dict[str, str]]:
    """Each exportable table's columns with their declared SQLite type."""
    conn = sqlite3.connect(run / "poemetric.sqlite")
    try:
        return {
            table: dict(conn.execute(f"SELECT name, type FROM pragma_table_info('{table}')"))
            for table in EXPORTABLE_TABLES
        }
    finally:
        conn.close()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A demo run judged (one answer unparsable) with a survey of attention checks, exported in
    every format to OUT/FORMAT."""
    base = tmp_path_factory.mktemp("export-types")
    run, out = base / "run", base / "out"
    runner = CliRunner()
    demo = runner.invoke(app, ["demo", "--run", str(run), "--limit", "3", "--no-progress"])
    assert demo.exit_code == 0, demo.output
    with pytest.MonkeyPatch.context() as patch, OpenAIServer(OneGarbled(), api_key=TEST_KEY) as s:
        patch.setenv(TEST_KEY_ENV, TEST_KEY)
        judge = openai_spec(s.base_url, name="test-judge", max_concurrency=1)
        with RunStore(run) as store:
            report = run_judging(store, judge.model_copy(update={"reask": 0}), options=FAST)
    assert report.errors == 1 and report.models[0].ok > 0
    survey = ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "3"]
    built = runner.invoke(app, [*survey, "--attention-checks", "1"])
    assert built.exit_code == 0, built.output
    with RunStore(run) as store:  # an expert's Likert answers (N/A is 0) beside a comment
        (gid,) = store.query("SELECT generation_id FROM generations LIMIT 1")[0]
        rows = [("E1", gid, "form", 4.0, None), ("E1", gid, "imagery", 0.0, None),
                ("E1", gid, COMMENTS[0].key, None, "Plain, but it scans.")]  # fmt: skip
        import_answers(store, "paper-sheets", rows, source="sheets.csv", config={})
    for fmt in ("csv", "jsonl", "parquet"):
        args = ["export", "--run", str(run), "--to", str(out / fmt), "--format", fmt]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    return run, out


def test_csv_writes_integers_without_a_decimal_point(exported: tuple[Path, Path]) -> None:
    run, out = exported
    whole = re.compile(r"-?[0-9]+")
    seen: dict[tuple[str, str], set[bool]] = {}
    for table, columns in _declared(run).items():
        with (out / "csv" / f"{table}.csv").open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        for name, declared in columns.items():
            cells = [row[name] for row in rows]
            if _integers(table, name, declared):
                na = {CSV_NA} if (table, name) in NA_COLUMNS else set()
                assert all(c in {"", *na} or whole.fullmatch(c) for c in cells), (table, name)
                seen[(table, name)] = {c == "" for c in cells}
    assert all(seen[column] == {True, False} for column in MIXED)  # blanks beside numbers
    with (out / "csv" / "survey_assignments.csv").open(encoding="utf-8", newline="") as handle:
        checks = [row["check_expected"] for row in csv.DictReader(handle)]
    assert sorted(c for c in checks if c) == sorted(str(int(c)) for c in checks if c)
    with (out / "csv" / "form_checks.csv").open(encoding="utf-8", newline="") as handle:
        scores = [row["meter_score"] for row in csv.DictReader(handle)]
    assert any("." in score for score in scores)  # real-valued columns stay floats


def test_jsonl_writes_integers_and_nulls(exported: tuple[Path, Path]) -> None:
    run, out = exported
    for table, columns in _declared(run).items():
        text = (out / "jsonl" / f"{table}.jsonl").read_text(encoding="utf-8")
        records = [json.loads(line) for line in text.splitlines()]
        for name, declared in columns.items():
            values = [record[name] for record in records]
            if _integers(table, name, declared):
                assert all(v is None or type(v) is int for v in values), (table, name, values)
    judgments = (out / "jsonl" / "judgments.jsonl").read_text(encoding="utf-8").splitlines()
    forms = [json.loads(line)["form"] for line in judgments]
    assert None in forms and 4 in forms
    answers = (out / "jsonl" / "survey_answers.jsonl").read_text(encoding="utf-8").splitlines()
    scores = [json.loads(line)["score"] for line in answers]
    assert None in scores and sorted(s for s in scores if s is not None) == [0, 4]
    assert all(s is None or type(s) is int for s in scores)


def test_parquet_keeps_integer_and_float_types(exported: tuple[Path, Path]) -> None:
    """Every table, the empty ones too (their columns were pyarrow's `null` type)."""
    run, out = exported
    for table, columns in _declared(run).items():
        schema = pq.read_schema(out / "parquet" / f"{table}.parquet")
        for name, declared in columns.items():
            kind = str(schema.field(name).type)
            if _integers(table, name, declared):
                assert kind == "int64", (table, name, kind)
            elif declared.upper() == "REAL":
                assert kind == "double", (table, name, kind)
    checks = pq.read_table(out / "parquet" / "survey_assignments.parquet")["check_expected"]
    assert checks.null_count > 0 and set(checks.drop_null().to_pylist()) <= set(range(1, 6))


def test_stored_values_are_written_as_stored(tmp_path: Path) -> None:
    """A whole number above 2**53 beside a NULL is written whole (a float would round it), and
    a column holding what its type does not describe (SQLite keeps 2.5 in an INTEGER column)
    keeps the type pandas gives it, rather than losing the fraction."""
    big = 2**53 + 1
    with RunStore(tmp_path / "run") as store:
        for attempt, status, latency in ((1, big, 0.25), (2.5, None, None)):
            store.log_call(
                cache_key="k", provider="p", model="m", attempt=attempt, outcome="error",
                http_status=status, latency_s=latency,
            )  # fmt: skip
        frame = store.frame("calls")
        path = store.export("calls", tmp_path / "calls.csv")
    assert str(frame["http_status"].dtype) == "Int64" and frame["http_status"][0] == big
    assert str(frame["attempt"].dtype) == "float64"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["http_status"] for row in rows] == [str(big), ""]
    assert [row["attempt"] for row in rows] == ["1.0", "2.5"]
    assert [row["latency_s"] for row in rows] == ["0.25", ""]
    assert [row["call_id"] for row in rows] == ["1", "2"]
