"""`poemetric form check -o checks.csv`: a CSV/TSV table a poet can read in a spreadsheet, with
the same numbers as the JSON lines; a Parquet name is refused. Before, `-o checks.csv` and
`-o checks.parquet` wrote JSON lines under those names."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from tests.test_form_messages import REPEATS
from tests.test_form_scan_verdict import SONNET

runner = CliRunner()

ROWS = [
    {"id": "s", "form": "sonnet", "response": "Here is your sonnet:\n\n" + SONNET},
    {"id": "l", "form": "limerick", "text": REPEATS},
    {"id": "x", "form": "rondeau", "text": SONNET},
]


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "answers.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    return source


def _check(source: Path, out: Path) -> None:
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 1, result.output  # the rondeau could not be checked


def test_a_csv_output_is_a_table_with_the_json_lines_numbers(tmp_path: Path) -> None:
    source = _source(tmp_path)
    _check(source, tmp_path / "checks.jsonl")
    _check(source, tmp_path / "checks.csv")
    records = [json.loads(line) for line in (tmp_path / "checks.jsonl").read_text().splitlines()]
    with (tmp_path / "checks.csv").open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [row["id"] for row in table] == ["s", "l", "x"]
    for record, row in zip(records, table, strict=True):
        for key in ("meter_score", "rhyme_score", "form_score"):
            expected = record[key]
            assert row[key] == ("" if expected is None else str(expected))
        assert row["passed"] == str(record["passed"]).lower()
        assert row["summary"] == record["summary"]
    sonnet = table[0]
    assert sonnet["passed"] == "true" and sonnet["rhyme_score"] == "0.8952"
    assert sonnet["explanation"].startswith("[rhyme] lines 6 and 13: line 13 (G) rhymes with")
    assert sonnet["facts"].splitlines()[0] == "scheme: Shakespearean ABABCDCDEFEFGG"
    assert sonnet["extraction"] == "removed preamble: 'Here is your sonnet:'"
    assert table[1]["passed"] == "false"  # its one finding: the partial (same-word) rhymes
    assert table[1]["explanation"].startswith("[rhyme] lines 1, 2, 3, 4 and 5: partial rhymes")
    assert table[2]["error_kind"] == "request" and table[2]["meter_score"] == ""


def test_a_tsv_output_is_tab_separated_and_a_parquet_name_is_refused(tmp_path: Path) -> None:
    source = _source(tmp_path)
    _check(source, tmp_path / "checks.tsv")
    header = (tmp_path / "checks.tsv").read_text(encoding="utf-8").splitlines()[0]
    assert header.split("\t")[:4] == ["id", "line", "form", "passed"]
    parquet = tmp_path / "checks.parquet"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(parquet)])
    assert result.exit_code == 2 and not parquet.exists()
    assert "not Parquet" in " ".join(result.stderr.split())


def test_every_row_says_the_threshold_its_verdict_was_judged_by(tmp_path: Path) -> None:
    """`passed` depends on --threshold, which the rows did not give: a file of checks made at 0.9
    read like one made at 0.7."""
    source = _source(tmp_path)
    for name in ("checks.jsonl", "checks.csv"):
        out = tmp_path / name
        result = runner.invoke(
            app, ["form", "check", str(source), "-o", str(out), "-t", "0.9", "-j", "1"]
        )
        assert result.exit_code == 1, result.output
    records = [json.loads(line) for line in (tmp_path / "checks.jsonl").read_text().splitlines()]
    assert [record["threshold"] for record in records] == [0.9, 0.9, 0.9]
    assert records[0]["passed"] is False  # rhyme 0.8952 passes at 0.7, not at 0.9
    with (tmp_path / "checks.csv").open(encoding="utf-8", newline="") as handle:
        assert [row["threshold"] for row in csv.DictReader(handle)] == ["0.9", "0.9", "0.9"]


def test_check_help_shows_an_input_row_and_points_one_poem_to_scan() -> None:
    """The help named columns but showed no row, nor what a poet with one poem's text runs."""
    shown = runner.invoke(app, ["form", "check", "--help"], env={"COLUMNS": "80"})
    flat = " ".join(shown.stdout.replace("│", " ").split())
    assert 'A row of answers.jsonl: {"id": "a1", "form": "sonnet", "rhyme": "ABAB CDCD EFEF' in flat
    assert "One poem in a text file: poemetric form scan poem.txt --form sonnet." in flat
    assert "poemetric form check answers.jsonl -o checks.csv" in flat
