"""A problem of the whole file (wrong separator, not UTF-8, not Parquet) is said once: `dataset
validate` of a semicolon-separated 19-poem CSV printed the separator hint, then one field-count
error per line and "0 of 95 records valid"; a UTF-16 file ended "0 of 0 records valid"; `form
check` of it wrote one error row and said "1 rows, 1 could not be checked". The poems here were
written for these tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.data import DatasetError, load_dataset

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
THINGS = ("stone", "river", "lantern", "harbor", "meadow", "candle", "orchard", "winter",
          "sparrow", "window", "thimble", "ladder", "compass", "willow", "ember", "garden",
          "kettle", "mirror", "pebble")  # fmt: skip


def _write(path: Path, delimiter: str = ",", encoding: str = "utf-8") -> Path:
    with path.open("w", encoding=encoding, newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(["form", "title", "author", "content", "meter_pattern", "rhyme_pattern",
                         "theme"])  # fmt: skip
        for thing in THINGS:
            content = (
                f"There once was a {thing}, it is said,\nWho wished it could travel instead;\n"
                "It rolled down the lane,\nGot caught in the rain,\nAnd came back, and went "
                "early to bed."
            )
            writer.writerow(["limerick", f"The {thing}", "Test Author", content, "anapestic",
                             "AABBA", f"a {thing} that travels"])  # fmt: skip
    return path


def _validate(path: Path) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["dataset", "validate", str(path)], env=WIDE)
    return result.exit_code, result.output.splitlines()


@pytest.mark.parametrize(
    ("name", "delimiter", "kind", "fix"),
    [
        ("poems.csv", "|", "pipe", "save it comma-separated"),
        ("poems.csv", "\t", "tab", "rename the file to .tsv"),
        # A .csv file with a semicolon-separated header is read (test_dataset_semicolon.py).
        ("poems.tsv", ";", "semicolon", "rename the file to .csv"),
        ("poems.tsv", "|", "pipe", "save it tab-separated"),
    ],
)
def test_a_file_with_another_separator_is_one_problem(
    tmp_path: Path, name: str, delimiter: str, kind: str, fix: str
) -> None:
    path = _write(tmp_path / name, delimiter)
    status, lines = _validate(path)
    assert status == 1
    assert len(lines) == 2, lines  # was the hint, then one error per line of the file
    assert lines[0].startswith(f"{path}:1: form, title, author, content, ")
    assert lines[0].endswith(f"the header is {kind}-separated, and a {path.suffix} file is read "
                             f"as {'tab' if name.endswith('tsv') else 'comma'}-separated: {fix}")  # fmt: skip
    assert lines[1] == (
        f"1 problem in {path}, with the whole file: it is {kind}-separated, so none of its 19 "
        "records was checked"
    )  # was "58 problem(s) in poems.csv: 0 of 95 records valid (57 could not be read)"
    with pytest.raises(DatasetError) as raised:  # generate, show: the same one problem
        load_dataset(path)
    message = str(raised.value).splitlines()
    assert message[0].endswith("1 problem; fix it or run `poemetric dataset validate "
                               f"{path}`:") and message[1:] == lines[:1]  # fmt: skip


def _not_utf8(path: Path, encoding: str) -> None:
    """The file in `encoding`; "neither": UTF-8 but for a byte that is no Windows-1252 character
    either (a Windows-1252 file is read, with a warning: test_csv_spreadsheet_files.py)."""
    text = path.read_text(encoding="utf-8").replace("stone", "stoné")
    if encoding == "neither":
        path.write_bytes(text.encode("utf-8").replace(b"ston", b"st\x81on"))
    else:
        path.write_bytes(text.encode(encoding))


@pytest.mark.parametrize("encoding", ["utf-16", "neither"])
def test_a_file_that_is_not_utf8_is_not_counted_as_records(tmp_path: Path, encoding: str) -> None:
    path = _write(tmp_path / "poems.csv")
    _not_utf8(path, encoding)
    status, lines = _validate(path)
    assert status == 1
    assert (
        len(lines) == 2 and "not valid UTF-8" in lines[0] and "save the file as UTF-8" in lines[0]
    )
    assert lines[1] == (
        f"1 problem in {path}, with the whole file: it could not be read, so no record was checked"
    )  # was "1 problem(s) in poems.csv: 0 of 0 records valid"


def test_a_file_that_is_not_parquet_is_not_counted_as_records(tmp_path: Path) -> None:
    path = tmp_path / "poems.parquet"
    path.write_bytes(b"form,title\nsonnet,T\n")
    status, lines = _validate(path)
    assert status == 1 and "not a Parquet file" in lines[0]
    assert lines[-1].endswith("with the whole file: it could not be read, so no record was checked")


@pytest.mark.parametrize("encoding", ["utf-16", "neither"])
def test_form_check_of_a_file_that_is_not_utf8_is_unusable_not_a_row(
    tmp_path: Path, encoding: str
) -> None:
    path = _write(tmp_path / "poems.csv")
    _not_utf8(path, encoding)
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(path), "-o", str(out)], env=WIDE)
    assert result.exit_code == 2, result.output  # was 1, "1 rows, 1 could not be checked"
    assert result.stderr.startswith(f"error: {path}:")
    assert "not valid UTF-8" in result.stderr and "save the file as UTF-8" in result.stderr
    if encoding == "utf-16":
        assert "the file is UTF-16" in result.stderr
    assert "rows" not in result.output and not out.exists()


def test_form_check_of_a_pipe_separated_file_names_the_separator(tmp_path: Path) -> None:
    path = _write(tmp_path / "poems.csv", "|")
    result = runner.invoke(app, ["form", "check", str(path), "-o", str(tmp_path / "o.jsonl")],
                           env=WIDE)  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(
        "the header is pipe-separated, and a .csv file is read as comma-separated: save it "
        "comma-separated"
    )


def test_form_check_counts_one_row_as_one_row(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    poem = "There once was a test\nthat did its best\nto rhyme\nin time\nand then it could rest"
    path.write_text(json.dumps({"form": "limerick", "text": poem}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["form", "check", str(path), "-o", str(tmp_path / "o.jsonl")],
                           env=WIDE)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "1 row, 0 could not be checked" in result.output  # was "1 rows"


def _records(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize(
    ("indent", "records", "said", "counted"),
    [
        (None, 19, "a JSON list of 19 objects", "none of its 19 records was checked"),
        (2, 19, "a JSON list of 19 objects", "none of its 19 records was checked"),
        (2, 1, "one JSON object written over several lines", "its one record was not checked"),
    ],
    ids=["one-line list", "indented list", "indented object"],
)
def test_a_json_document_saved_as_jsonl_is_one_problem(
    tmp_path: Path, indent: int | None, records: int, said: str, counted: str
) -> None:
    """`json.dump(records, f, indent=2)` into a .jsonl file was one "bad JSON" error per line
    of the file (173 here), a one-line list "expected a JSON object per line", and neither
    said how to write JSON Lines."""
    rows = _records(_write(tmp_path / "poems.csv"))
    path = tmp_path / "poems.jsonl"
    document = rows if records > 1 else rows[0]
    path.write_text(json.dumps(document, indent=indent), encoding="utf-8")
    status, lines = _validate(path)
    assert status == 1
    assert lines == [
        f"{path}:1: -: the file is {said}, not one object per line: write one JSON object per "
        "line to a .jsonl file (pandas: df.to_json(path, orient='records', lines=True))",
        f"1 problem in {path}, with the whole file: it is not JSON Lines, so {counted}",
    ]


def test_json_lines_with_a_bad_first_line_still_reads_the_others(tmp_path: Path) -> None:
    rows = _records(_write(tmp_path / "poems.csv"))
    path = tmp_path / "poems.jsonl"
    lines = ['{"form": "limerick",', *(json.dumps(row) for row in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out = _validate(path)
    assert status == 1 and out[0].startswith(f"{path}:1: -: bad JSON:")
    assert out[1] == f"1 problem in {path}: 19 of 20 records valid (1 could not be read)"


def test_a_json_file_is_told_how_to_write_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "poems.json"
    path.write_text(json.dumps(_records(_write(tmp_path / "poems.csv"))), encoding="utf-8")
    result = runner.invoke(app, ["dataset", "validate", str(path)], env=WIDE)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {path}: unsupported file type '.json': write one JSON object per line to a "
        ".jsonl file (pandas: df.to_json(path, orient='records', lines=True))"
    )


def test_a_header_repeated_where_two_files_were_joined_is_one_problem(tmp_path: Path) -> None:
    """`cat a.csv b.csv`: the second header was three errors on its line (form 'form', the
    rhyme pattern 'rhyme_pattern', ...), none saying what the line is."""
    text = _write(tmp_path / "a.csv").read_text(encoding="utf-8")
    path = tmp_path / "poems.csv"
    path.write_text(text + text.replace("The ", "Another "), encoding="utf-8")
    header_line = text.count("\n") + 1
    status, output = _validate(path)
    lines = [line for line in output if not line.startswith("warning: ")]
    assert status == 1
    assert lines == [
        f"{path}:{header_line}: -: the header again (files joined, each with its header?): "
        "delete the line",
        f"1 problem in {path}: 38 of 39 records valid",
    ]


def test_a_broken_json_document_is_parsed_whole_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every bad line is still its own error; the whole text is tried as one JSON document only
    at the first record's line, not once per bad line (quadratic in a large broken document)."""
    from poemetric.data import json_document

    rows = _records(_write(tmp_path / "poems.csv"))
    path = tmp_path / "poems.jsonl"
    path.write_text(json.dumps(rows, indent=2)[:-1], encoding="utf-8")  # its closing ] lost
    whole = json_document.json_document
    calls: list[int] = []

    def counted(text: str) -> json_document.JsonDocument | None:
        calls.append(len(text))
        return whole(text)

    monkeypatch.setattr(json_document, "json_document", counted)
    status, lines = _validate(path)
    assert status == 1 and len(calls) == 1
    assert lines[-1] == f"172 problems in {path}: 0 of 172 records valid (172 could not be read)"
