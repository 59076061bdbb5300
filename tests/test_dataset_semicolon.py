"""A European Excel saves "CSV" with `;` between fields (the system's list separator). Such a
`.csv` file was refused ("the header is semicolon-separated ...: save it comma-separated"),
advice Excel cannot follow without changing a system setting. A `.csv` whose header is clearly
semicolon-separated (`;` between a `form` and a poem-text column, no comma outside quotes) is
now read so, with a warning; every other guarantee of the reader holds. Poems written for these
tests."""

from __future__ import annotations

import csv
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.data import load_dataset

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
HEADER = ["form", "title", "author", "content", "meter_pattern", "rhyme_pattern", "theme"]
ROWS = [
    [
        "limerick",
        "The Kettle",
        "Ann Example",
        "A kettle that sang in the night,\nkept the cat and the dog up in fright;\n"
        "it whistled a tune\nto the pale yellow moon,\nand went quiet at dawn, out of spite.",
        "anapestic",
        "AABBA",
        "a noisy kitchen; a tired household",
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
NOTE = (
    "the header is semicolon-separated (a spreadsheet's CSV with ';' as its list separator): "
    "the file is read with ';' between fields"
)


def _write(path: Path, delimiter: str) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter, lineterminator="\r\n")
        writer.writerow(HEADER)
        writer.writerows(ROWS)
    return path


def test_a_semicolon_separated_csv_is_read_with_a_warning(tmp_path: Path) -> None:
    semi = _write(tmp_path / "semi.csv", ";")
    result = runner.invoke(app, ["dataset", "validate", str(semi)], env=WIDE)
    assert result.exit_code == 0, result.output  # was 1: "save it comma-separated"
    assert result.output.splitlines()[0] == f"warning: {semi}: {NOTE}"
    assert "2 valid poems" in result.output
    # Nothing lost: the same poems, ids and values as the comma-separated file.
    comma = load_dataset(_write(tmp_path / "comma.csv", ","))
    semis = load_dataset(semi)
    assert [p.model_dump() for p in semis.poems] == [p.model_dump() for p in comma.poems]
    assert semis.warnings[0] == f"{semi}: {NOTE}"
    assert not any(NOTE in warning for warning in comma.warnings)


def test_malformed_rows_of_a_semicolon_csv_name_file_and_line(tmp_path: Path) -> None:
    semi = tmp_path / "semi.csv"
    semi.write_text(
        ";".join(HEADER) + "\n"
        'limerick;One;Ann;"a, b\nc";anapestic;AABBA;x;extra\n'
        'sonnet;"Two;Bo;x;y;;\n'
        'sonnet;Three;Cy;"one\ntwo";;;\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["dataset", "validate", str(semi)], env=WIDE)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert (
        f"{semi}:2: -: expected 7 fields (as in the header), found 8 (an unquoted semicolon "
        "in a text field? put such fields in double quotes)"
    ) in lines
    assert any(line.startswith(f"{semi}:4: -: malformed CSV: ") for line in lines), lines
    assert lines[-1] == f"2 problems in {semi}: 1 of 3 records valid (2 could not be read)"


def test_a_header_with_a_comma_outside_quotes_is_not_read_as_semicolons(tmp_path: Path) -> None:
    """Only a clear header switches the separator: `;` and `,` mixed is still refused."""
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("form;title,author;content;meter_pattern;rhyme_pattern;theme\n")
    result = runner.invoke(app, ["dataset", "validate", str(mixed)], env=WIDE)
    assert result.exit_code == 1 and "save it comma-separated" in result.output
    assert NOTE not in result.output


def test_form_check_reads_a_semicolon_separated_csv(tmp_path: Path) -> None:
    semi = tmp_path / "answers.csv"
    semi.write_text(
        '"form";"text"\r\nlimerick;"' + ROWS[1][3].replace("\n", "\r\n") + '"\r\n',
        encoding="utf-8",
    )
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(semi), "-o", str(out)], env=WIDE)
    assert result.exit_code == 0, result.output  # was 2: "missing required columns"
    assert f"warning: {semi}: {NOTE}" in result.stderr
    assert "1 row, 0 could not be checked" in result.output
    assert '"form": "limerick"' in out.read_text(encoding="utf-8")
