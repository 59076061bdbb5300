"""CSV files as Excel saves them: Windows-1252 text ("CSV (Comma delimited)" on Windows) was
refused as "not valid UTF-8"; a first line `sep=;` (Excel's separator hint) was read as the
header; a ratings file with `;` between fields and decimal commas (`3,5`) was refused by `agree`,
`survey import` and `analyze --experts`; a row of nothing but separators was skipped without a
word. The poems here were written for these tests."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.data import load_dataset
from poemetric.store import RunStore

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
HEADER = ["form", "title", "author", "content", "meter_pattern", "rhyme_pattern", "theme"]
ROWS = [
    [
        "limerick",
        "The Café’s Kettle",
        "Renée Example",
        "A kettle that sang in the night\nkept the café’s cat up in fright;\n"
        "it whistled a tune\nto the pale yellow moon,\nand went quiet at dawn, out of spite.",
        "anapestic",
        "AABBA",
        "a “noisy” kitchen",
    ],
    [
        "limerick",
        "The Ladder",
        "Bo Test",
        "A ladder once leaned on a wall,\nand dreamed, as it stood there, of fall;\n"
        "it slid with a clack,\nlay flat on its back,\nand found it preferred that to all.",
        "anapestic",
        "AABBA",
        "rest",
    ],
]
CP1252_NOTE = "read as Windows-1252"


def _csv_text(delimiter: str = ",", rows: list[list[str]] = ROWS) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return buffer.getvalue()


def _validate(path: Path) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["dataset", "validate", str(path)], env=WIDE)
    return result.exit_code, result.output.splitlines()


def _dumps(path: Path) -> list[dict[str, object]]:
    return [poem.model_dump() for poem in load_dataset(path).poems]


def test_a_windows_1252_dataset_is_read_with_a_warning_naming_file_and_encoding(
    tmp_path: Path,
) -> None:
    cp1252 = tmp_path / "excel.csv"
    cp1252.write_bytes(_csv_text().encode("cp1252"))  # ’ is 0x92, é is 0xE9
    status, lines = _validate(cp1252)
    assert status == 0, lines  # was 1: "not valid UTF-8 (byte 0xe9 at offset 61)"
    assert lines[0].startswith(f"warning: {cp1252}:2: not UTF-8 (byte 0xe9): ")
    assert CP1252_NOTE in lines[0] and "2 valid poems" in lines
    utf8 = tmp_path / "utf8.csv"
    utf8.write_text(_csv_text(), encoding="utf-8")
    assert _dumps(cp1252) == _dumps(utf8)  # the same letters, quotes and ids
    assert any(CP1252_NOTE in warning for warning in load_dataset(cp1252).warnings)
    bom = tmp_path / "bom.csv"  # Excel's "CSV UTF-8": read as before, without a warning
    bom.write_bytes(b"\xef\xbb\xbf" + _csv_text().encode("utf-8"))
    assert _dumps(bom) == _dumps(utf8)
    assert not any("UTF-8" in warning for warning in load_dataset(bom).warnings)


@pytest.mark.parametrize(
    ("data", "where", "reason"),
    [
        # 0x81 is no character in Windows-1252 either.
        (b"form,title\nsonnet,T\x81\n", 2,
         "nor Windows-1252 (byte 0x81 on line 2 is not a character there)"),
        # A UTF-8 file with one Windows-1252 line would read garbled ("cafÃ©"): refused.
        ("form,title,author\nsonnet,Café,A\n".encode() + "sonnet,T,Bö\n".encode("cp1252"), 3,
         "while line 2 has UTF-8 letters: the file mixes two encodings"),
        (b"form,content\n\x00\x00\xe9\n", 2, "nor text in Windows-1252 (control byte 0x00"),
    ],
    ids=["undefined byte", "mixed", "binary"],
)  # fmt: skip
def test_bytes_of_neither_encoding_are_an_error_naming_file_and_line(
    tmp_path: Path, data: bytes, where: int, reason: str
) -> None:
    path = tmp_path / "poems.csv"
    path.write_bytes(data)
    status, lines = _validate(path)
    assert status == 1
    assert lines[0].startswith(f"{path}:{where}: -: not valid UTF-8 (byte 0x"), lines
    assert reason in lines[0] and lines[0].endswith("; save the file as UTF-8")


def test_excels_sep_line_sets_the_separator_and_is_no_row(tmp_path: Path) -> None:
    comma = tmp_path / "comma.csv"
    comma.write_text(_csv_text(), encoding="utf-8")
    semi = tmp_path / "semi.csv"
    semi.write_text("sep=;\r\n" + _csv_text(";"), encoding="utf-8")
    status, lines = _validate(semi)
    assert status == 0, lines  # was 1: a header `sep=;` without any required column
    assert lines[0] == (
        f"warning: {semi}: the first line `sep=;` (a spreadsheet's separator hint) sets the "
        "separator: the file is read with ';' between fields"
    )
    assert _dumps(semi) == _dumps(comma)
    hinted = tmp_path / "hinted.csv"  # `sep=,` in a comma-separated file: no word needed
    hinted.write_text("sep=,\r\n" + _csv_text(), encoding="utf-8")
    assert _dumps(hinted) == _dumps(comma)
    assert not [w for w in load_dataset(hinted).warnings if "sep=" in w]
    # Lines are still the file's own: the bad record of line 3 is line 3.
    bad = tmp_path / "bad.csv"
    bad.write_text("sep=|\n" + "|".join(HEADER) + "\nsonnet|T|A\n", encoding="utf-8")
    status, lines = _validate(bad)
    assert status == 1 and f"{bad}:3: -: expected 7 fields (as in the header), found 3" in lines


def test_rows_of_only_separators_are_skipped_with_a_warning(tmp_path: Path) -> None:
    empty = ",,,,,,\r\n"  # a spreadsheet's formatted but empty rows
    header, first, second = _csv_text().split("\r\n")[:3]  # each record is 5 lines
    path = tmp_path / "poems.csv"
    path.write_text(f"{header}\r\n{empty}{first}\r\n{empty}{empty}{second}\r\n", encoding="utf-8")
    status, lines = _validate(path)
    assert status == 0, lines
    assert lines[0] == (
        f"warning: {path}:2: only commas, no value (a spreadsheet's empty rows): skipped (also "
        "lines 8-9)"
    )  # was skipped without a word; `file:LINE:` as the errors are written
    assert len(load_dataset(path).poems) == 2
    one = tmp_path / "one.csv"
    one.write_text(_csv_text() + empty, encoding="utf-8")
    assert load_dataset(one).warnings[0] == (
        f"{one}:12: only commas, no value (a spreadsheet's empty row): skipped"
    )


RATINGS = [("u1", "A", "3,5"), ("u1", "B", "4"), ("u2", "A", "2"), ("u2", "B", "2,5"),
           ("u3", "A", "5"), ("u3", "B", "4,5"), ("u4", "A", "1"), ("u4", "B", "1")]  # fmt: skip


def _agree(path: Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["agree", str(path), "--format", "json", "--bootstrap", "0"])
    return result.exit_code, result.stdout, result.stderr


def test_agree_reads_a_semicolon_ratings_file_with_decimal_commas(tmp_path: Path) -> None:
    semi = tmp_path / "ratings.csv"
    semi.write_bytes(
        ("unit;rater;score;comment\r\n" + "".join(f"{u};{r};{s};trés\r\n" for u, r, s in RATINGS))
        .encode("cp1252")
    )  # fmt: skip
    status, out, err = _agree(semi)
    assert status == 0, err  # was 2: "missing columns unit, rater, score; found unit;rater;..."
    warnings = err.splitlines()
    assert warnings[0].startswith(f"warning: {semi}:2: not UTF-8 (byte 0xe9): ")
    assert warnings[1] == (
        f"warning: {semi}: the header is semicolon-separated (a spreadsheet's CSV with ';' as its "
        "list separator): the file is read with ';' between fields"
    )
    assert warnings[2] == (
        f"warning: {semi}:2: scores with a decimal comma (first '3,5') are read as decimal "
        "numbers (3.5), the file being semicolon-separated"
    )
    points = tmp_path / "points.csv"
    points.write_text(
        "unit,rater,score\n" + "".join(f"{u},{r},{s.replace(',', '.')}\n" for u, r, s in RATINGS),
        encoding="utf-8",
    )
    same, expected, quiet = _agree(points)
    assert same == 0 and quiet == "" and json.loads(out) == json.loads(expected)
    # A decimal comma only where `;` separates fields: in a comma-separated file "3,5" is a
    # quoted text, not 3.5.
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('unit,rater,score\nu1,A,"3,5"\nu1,B,4\n', encoding="utf-8")
    status, _, err = _agree(quoted)
    assert status == 2 and f"{quoted}:2: score '3,5' is not a number (or N/A)" in err


def _a_poem(run: Path) -> str:
    with RunStore(run, create=False) as store:
        return str(store.query("SELECT generation_id FROM generations WHERE status = 'ok'")[0][0])


def test_expert_ratings_with_semicolons_are_imported_and_analyzed(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    poem = _a_poem(run)
    ratings = tmp_path / "R1.csv"
    ratings.write_bytes(
        f"sep=;\r\npoem;rater;item;score;comment\r\n{poem};R1;form;4,0;\r\n"
        f"{poem};R1;overall_quality;3;très “bien”\r\n;;;;\r\n".encode("cp1252")
    )
    result = runner.invoke(app, ["survey", "import", str(ratings), "--run", str(run)])
    assert result.exit_code == 0, result.output  # was 2: "not valid UTF-8 (byte 0xe8 ...)"
    *warnings, started = result.stderr.splitlines()
    assert len(warnings) == 4 and all(w.startswith(f"warning: {ratings}:") for w in warnings)
    assert started == "started survey 'experts': the run had no survey of that name"
    assert "read as Windows-1252" in warnings[0] and "`sep=;`" in warnings[1]
    assert warnings[2].startswith(f"warning: {ratings}:5: only semicolons")
    assert warnings[3].startswith(
        f"warning: {ratings}:3: scores with a decimal comma (first '4,0')"
    )
    with RunStore(run, create=False) as store:
        answers = store.query("SELECT question, score, text FROM survey_answers ORDER BY question")
    assert [(a["question"], a["score"], a["text"]) for a in answers] == [
        ("comment_overall_quality", None, "très “bien”"),
        ("form", 4.0, None),
        ("overall_quality", 3.0, None),
    ]
    analyzed = runner.invoke(app, ["analyze", "--run", str(run), "--experts", str(ratings)])
    assert analyzed.exit_code == 0, analyzed.output
    notes = (run / "analysis" / "NOTES.txt").read_text(encoding="utf-8")
    assert f"{ratings}:4: not UTF-8 (byte 0xe8): read as Windows-1252" in notes
