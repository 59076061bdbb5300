"""`poemetric form check` on a researcher's own files: list and struct columns in Parquet, poems
stored as lists of lines, and where the rows that could not be checked are named.

The poems and answers here were written for these tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.data.io import read_table
from poemetric.data.validation import validate_file

runner = CliRunner()

BALLAD = """The miller's daughter rose at dawn
and tied her cloak of grey;
she crossed the bridge above the ford
and would not turn or stay.

She walked the road to Carlisle town
where soldiers drilled and drank;
she asked for William at the gate,
a boy without a rank."""


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_parquet_list_and_struct_columns_are_read_as_python_values(tmp_path: Path) -> None:
    path = tmp_path / "answers.parquet"
    table = pa.table(
        {
            "id": ["a", "b"],
            "text": [BALLAD, BALLAD],
            "form": ["ballad", "ballad"],
            "tags": [["folk", "war"], []],
            "usage": [{"input": 12, "output": 80}, {"input": 3, "output": 5}],
        }
    )
    pq.write_table(table, path)
    records = read_table(path).records
    assert records[0].values["tags"] == ["folk", "war"]
    assert records[1].values["tags"] == []
    assert records[0].values["usage"] == {"input": 12, "output": 80}
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(path), "-o", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert [record["passed"] for record in _records(out)] == [True, True]


def test_dataset_validate_reads_a_parquet_file_with_a_list_column(tmp_path: Path) -> None:
    path = tmp_path / "poems.parquet"
    pq.write_table(
        pa.table(
            {
                "form": ["Ballad"],
                "title": ["The Miller's Daughter"],
                "author": ["test"],
                "theme": ["waiting"],
                "content": [BALLAD],
                "meter_pattern": ["common meter"],
                "rhyme_pattern": ["ABCB"],
                "tags": [["bridge", "river"]],
            }
        ),
        path,
    )
    report = validate_file(path)
    assert len(report.poems) == 1, report.issues
    assert f"{path}: ignored columns (not part of the POEMetric schema): 'tags'" in report.warnings


def test_a_poem_stored_as_a_list_of_lines_is_checked_line_by_line(tmp_path: Path) -> None:
    lines = BALLAD.split("\n")
    jsonl = tmp_path / "answers.jsonl"
    jsonl.write_text(
        json.dumps({"id": "j", "form": "ballad", "rhyme": "ABCB", "text": lines}) + "\n",
        encoding="utf-8",
    )
    parquet = tmp_path / "answers.parquet"
    pq.write_table(
        pa.table({"id": ["p"], "form": ["ballad"], "rhyme": ["ABCB"], "text": [lines]}), parquet
    )
    for source in (jsonl, parquet):
        out = tmp_path / f"{source.stem}-{source.suffix[1:]}.jsonl"
        result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
        assert result.exit_code == 0, result.output
        (record,) = _records(out)
        assert record["error"] is None, record["error"]
        assert record["passed"] is True
        assert record["facts"]["scheme"] == "ABCB"


def test_rows_that_could_not_be_checked_are_named_with_file_and_line(tmp_path: Path) -> None:
    source = tmp_path / "answers.csv"
    quoted = '"' + BALLAD.replace('"', '""') + '"'
    source.write_text(
        "id,form,rhyme,response\n"
        f"ok,ballad,ABCB,{quoted}\n"
        f"nf,,ABCB,{quoted}\n"
        f"hk,haiku,,{quoted}\n"
        f"bad,ballad,AB?!,{quoted}\n"
        'em,sonnet,,""\n'
        'ru,ballad,,"Я помню чудное мгновенье:\nПередо мной явилась ты"\n'
        'uq,limerick,,"There once was a quote never closed\n',
        encoding="utf-8",
    )
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 1, result.output
    listed = [line.strip() for line in result.stderr.splitlines()]
    assert listed == [
        "2 rows failed as text that is not a poem:",
        f"{source}:38: id em: empty poem text",
        f"{source}:39: id ru: the text is not in Latin script (English expected)",
        "4 rows could not be checked:",
        f"{source}:11: id nf: missing form",
        f"{source}:20: id hk: unknown form 'haiku': the checker knows ballad, ghazal, limerick, "
        "pantoum, sestina, sonnet, villanelle (and ballade, double sestina); it cannot check "
        "this one",
        f"{source}:29: id bad: rhyme pattern 'AB?!' must contain only letters (A-Z) and spaces",
        f"{source}:41: -: malformed CSV: unexpected end of data; line 41 could not be read as a "
        "record (an unclosed quote?), it runs to the end of the file, so the rest of the file "
        "could not be read",
    ]
    # Nothing is lost: one output row per record, the unreadable one included.
    assert [record["id"] for record in _records(out)] == [
        "ok", "nf", "hk", "bad", "em", "ru", "7"
    ]  # fmt: skip


def test_a_parquet_row_is_named_by_its_row_number(tmp_path: Path) -> None:
    source = tmp_path / "answers.parquet"
    pq.write_table(
        pa.table(
            {"poem_id": ["a", "b"], "response_text": [BALLAD, BALLAD], "form": ["ballad", None]}
        ),
        source,
    )
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 1, result.output
    assert f"{source}:row 2: id b: missing form" in result.stderr.splitlines()[1]


def test_a_missing_form_is_null_from_csv_jsonl_and_parquet_alike(tmp_path: Path) -> None:
    csv_source = tmp_path / "answers.csv"
    quoted = '"' + BALLAD.replace('"', '""') + '"'
    csv_source.write_text(f"id,form,response\na,,{quoted}\n", encoding="utf-8")
    jsonl_source = tmp_path / "answers.jsonl"
    jsonl_source.write_text(json.dumps({"id": "a", "form": "", "response": BALLAD}) + "\n")
    parquet_source = tmp_path / "answers.parquet"
    pq.write_table(pa.table({"id": ["a"], "form": pa.array([None], pa.string()),
                             "response": [BALLAD]}), parquet_source)  # fmt: skip
    for source in (csv_source, jsonl_source, parquet_source):
        out = tmp_path / f"{source.suffix[1:]}.jsonl"
        result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
        assert result.exit_code == 1, result.output
        [record] = _records(out)
        assert record["form"] is None and record["error"] == "missing form", source.name


def test_only_the_first_rows_are_named_then_a_count(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    source.write_text(
        "".join(json.dumps({"id": n, "form": "haiku", "text": BALLAD}) + "\n" for n in range(25))
    )
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == "25 rows could not be checked:"
    assert len(lines) == 22 and lines[-1].strip().startswith("... and 5 more")


def test_a_bad_json_line_says_where_in_the_line(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    good = json.dumps({"id": "a", "form": "ballad", "text": BALLAD})
    source.write_text(
        f'{good}\n{{"id": "b", "form": "sonnet", "text": "truncated\n{{"id": "c",, "form": 1}}\n',
        encoding="utf-8",
    )
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 1, result.output
    errors = [record["error"] for record in _records(out)]
    assert errors[1:] == [
        f"{source}:2: -: bad JSON: Unterminated string starting at column 39",
        f"{source}:3: -: bad JSON: Expecting property name enclosed in double quotes at column 12",
    ]


def test_output_dash_is_refused_rather_than_written_to_a_file_named_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "answers.jsonl"
    source.write_text(json.dumps({"form": "ballad", "text": BALLAD}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["form", "check", str(source), "-o", "-"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: -o -: form check writes its rows to a file")
    assert not (tmp_path / "-").exists()


def test_one_poems_text_or_standard_input_points_to_form_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`form check sonnet.txt` named the file types but not the command for a text file, and
    `form check -` said "-: no such file"; both now point to `form scan`."""
    monkeypatch.chdir(tmp_path)
    poem = tmp_path / "ballad.txt"
    poem.write_text(BALLAD, encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(poem), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    flat = " ".join(result.stderr.split())
    assert flat.startswith(f"error: {poem}: unsupported file type '.txt'; form check reads")
    assert flat.endswith(f"to check one poem's text, use `poemetric form scan {poem} --form FORM`")
    piped = runner.invoke(app, ["form", "check", "-", "-o", str(out)], input=BALLAD)
    assert piped.exit_code == 2 and not out.exists()
    flat = " ".join(piped.stderr.split())
    assert "no such file" not in flat
    assert flat.startswith("error: -: form check reads a file of poems")
    assert "`poemetric form scan - --form FORM`" in flat


def test_a_clean_file_is_not_sent_to_the_error_field(tmp_path: Path) -> None:
    """Every row checked: the summary said "0 could not be checked (see the `error` field)"."""
    source = tmp_path / "poems.jsonl"
    source.write_text(json.dumps({"form": "ballad", "text": BALLAD}) + "\n", encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "1 row, 0 could not be checked"
    assert "`error`" not in result.stdout


def test_a_poem_that_is_not_text_is_a_row_error(tmp_path: Path) -> None:
    """`"response": 42` was checked as the poem "42" (a failed, empty-looking check), a list
    with a number in it as its Python repr, `true` as "True"."""
    source = tmp_path / "answers.jsonl"
    rows = [
        {"id": "a", "form": "ballad", "response": 42},
        {"id": "b", "form": "ballad", "text": [*BALLAD.splitlines()[:3], 7]},
        {"id": "c", "form": "ballad", "text": True},
        {"id": "d", "form": "ballad", "text": BALLAD.splitlines()},
    ]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 1, result.output
    assert [line.strip() for line in result.stderr.splitlines()] == [
        "3 rows could not be checked:",
        f"{source}:1: id a: response: expected text, found a number",
        f"{source}:2: id b: text: expected text or a list of lines, found a list with a number "
        "in it",
        f"{source}:3: id c: text: expected text, found true or false",
    ]
    records = _records(out)
    assert [r["error_kind"] for r in records[:3]] == ["input"] * 3
    assert records[0]["form"] == "ballad" and records[3]["error"] is None
