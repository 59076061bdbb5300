"""A run prepared from a dataset file says what `dataset validate` warns of.

`generate --dataset my.csv` with a `meter_pattern` the form checker cannot read ('iambic
pentametre') prepared the run without a word, and `form run` then left that poem and every
model's poem for it unchecked ("errors 2"); a JSONL record without its `theme` key was read as
empty, and its prompt sent without a theme, as silently. `prompts render` said nothing either.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app

runner = CliRunner()

COLUMNS = ["form", "title", "author", "content", "meter_pattern", "rhyme_pattern", "theme"]
OPTIONAL = ["source", "poem_link-href", "year", "imagery"]
LIMERICK = (
    "A tinker who came from Dundee\n"
    "Would mend every pot for a fee;\n"
    "He hammered all day\n"
    "In a rattling way,\n"
    "And was paid in a barrel of tea."
)
COUPLET_SONNET = "\n".join(
    f"The clock upon the landing counts to {n},\nAnd every stroke is heavier than the last;"
    for n in ("one", "two", "three", "four", "five", "six", "seven")
)


def _csv(path: Path, meter: str) -> Path:
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream, lineterminator="\r\n")
        writer.writerow(COLUMNS + OPTIONAL)
        empty = [""] * len(OPTIONAL)
        writer.writerow(["limerick", "Dundee", "Ann Example", LIMERICK, "", "AABBA", "t", *empty])
        writer.writerow(["sonnet", "Clock", "Ann Example", COUPLET_SONNET, meter, "", "t", *empty])
    return path


def _warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


def test_generate_on_a_new_run_prints_the_files_warnings(tmp_path: Path) -> None:
    data = _csv(tmp_path / "mine.csv", "Accentual")
    run = tmp_path / "run"
    first = runner.invoke(app, ["generate", "--run", str(run), "-d", str(data), "--no-progress"])
    assert first.exit_code == 0, first.output
    (warning,) = _warning_lines(first.stderr)
    assert warning.startswith(
        f"warning: {data}:7: meter_pattern: metre 'Accentual' not scored: it names no foot"
    )
    assert warning.endswith("checks the rhyme and form of this poem (and of every model's poem "
                            "for it) but gives no metre score")  # fmt: skip
    # the run keeps its snapshot: going on with it does not say it again
    again = runner.invoke(app, ["generate", "--run", str(run), "-d", str(data), "--no-progress"])
    assert again.exit_code == 0, again.output
    assert _warning_lines(again.stderr) == []


def test_a_dry_run_of_a_new_run_prints_them_too(tmp_path: Path) -> None:
    data = _csv(tmp_path / "mine.csv", "Iambic 5-foot lines")
    run = tmp_path / "run"
    result = runner.invoke(app, ["generate", "--run", str(run), "-d", str(data), "--dry-run"])
    assert result.exit_code == 0, result.output
    (warning,) = _warning_lines(result.stderr)
    assert warning.endswith("meter_pattern: metre 'Iambic 5-foot lines' read as iambic pentameter")
    assert not run.exists()


def test_a_file_without_warnings_prints_none(tmp_path: Path) -> None:
    data = _csv(tmp_path / "mine.csv", "iambic pentameter")
    result = runner.invoke(
        app, ["generate", "--run", str(tmp_path / "run"), "-d", str(data), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert _warning_lines(result.stderr) == []


def test_prompts_render_says_why_a_prompt_has_no_theme(tmp_path: Path) -> None:
    data = tmp_path / "mine.jsonl"
    values = ["limerick", "Dundee", "Ann Example", LIMERICK, "", "AABBA", "t", "", "", "", ""]
    first = dict(zip(COLUMNS + OPTIONAL, values, strict=True))
    second = {key: value for key, value in first.items() if key != "theme"} | {"title": "Two"}
    data.write_text(
        "".join(json.dumps(record) + "\n" for record in (first, second)), encoding="utf-8"
    )
    result = runner.invoke(app, ["prompts", "render", "-d", str(data)])
    assert result.exit_code == 0, result.output
    (warning,) = _warning_lines(result.stderr)
    assert warning.startswith(f"warning: {data}:2: theme: no 'theme' key")
    assert "read as empty" in warning


def test_warnings_name_file_and_line_as_the_errors_do(tmp_path: Path) -> None:
    """Errors were `file:83: ...` (the compiler form editors jump to), warnings `file: line 83:
    ...`: every warning that has a line is now `file:LINE: ...`, the other lines after its text."""
    data = _csv(tmp_path / "mine.csv", "Accentual")
    with data.open("a", encoding="utf-8", newline="") as stream:
        stream.write(",,,,,,,,,,\r\n")  # a spreadsheet's empty row
        csv.writer(stream, lineterminator="\r\n").writerow(
            ["sonnet", "Again", "Ann Example", COUPLET_SONNET, "Accentual", "", "t", "", "", "", ""]
        )
        csv.writer(stream, lineterminator="\r\n").writerow(["ode", "Bad", "A", "x"] + [""] * 7)
    result = runner.invoke(app, ["dataset", "validate", str(data)], env={"COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert (
        f"warning: {data}:21: only commas, no value (a spreadsheet's empty row): skipped" in lines
    )
    (meter,) = [line for line in lines if "meter_pattern" in line]
    assert meter.startswith(f"warning: {data}:7: meter_pattern: metre 'Accentual' not scored")
    assert meter.endswith("gives no metre score (also line 22)")
    assert any(line.startswith(f"{data}:36: form: unknown form 'ode'") for line in lines), lines
