"""Empty, unnamed columns after the data, as a spreadsheet saves them, are ignored columns.

A CSV whose header ended `...,imagery,,` (Excel keeps columns that once held a value or a format)
was refused whole: "-: column appears more than once", naming no column, with every record left
unchecked ("0 of 2 records valid"), though an unnamed column is ignored and two of them lose
nothing. The warning listed them as `'', ''`.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app

HEADER = (
    "form,title,author,content,meter_pattern,rhyme_pattern,theme,source,poem_link-href,year,imagery"
)
LIMERICK = (
    '"A tinker who came from Dundee\r\nWould mend every pot for a fee;\r\nHe hammered all day\r\n'
    'In a rattling way,\r\nAnd was paid in a barrel of tea."'
)


def _write(path: Path, extra: str) -> Path:
    rows = [
        HEADER + extra,
        f"limerick,Dundee,Ann Example,{LIMERICK},,AABBA,trade,,,,{extra}",
        f"limerick,Dundee 2,Ann Example,{LIMERICK.replace('tea', 'rye')},,AABBA,trade,,,,{extra}",
    ]
    path.write_bytes(("\ufeff" + "\r\n".join(rows) + "\r\n").encode("utf-8"))
    return path


def test_two_empty_unnamed_columns_are_ignored_with_a_warning(tmp_path: Path) -> None:
    data = _write(tmp_path / "poems.csv", ",,")
    result = CliRunner().invoke(app, ["dataset", "validate", str(data)])
    assert result.exit_code == 0, result.output
    assert "2 valid poems" in result.output
    assert (
        f"warning: {data}: ignored columns (not part of the POEMetric schema): 2 unnamed columns "
        "(columns 12, 13 of the header)"
    ) in result.output
    run = CliRunner().invoke(
        app, ["generate", "--run", str(tmp_path / "run"), "-d", str(data), "--no-progress"]
    )
    assert run.exit_code == 0, run.output


def test_a_named_column_twice_is_still_an_error(tmp_path: Path) -> None:
    data = _write(tmp_path / "poems.csv", ",theme")
    result = CliRunner().invoke(app, ["dataset", "validate", str(data)])
    assert result.exit_code == 1, result.output
    assert f"{data}:1: theme: column appears more than once" in result.output
