"""`poemetric form scan` of a raw model answer: the same poem `form check` checks."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app

runner = CliRunner()

# Written for this test.
SONNET = """When autumn counts the coins of every tree
and spends them on the wind without a care,
the orchards close their books on you and me
and leave the ledger open to the air.
The swallows settle debts along the eaves,
the river pays its interest to the stone,
and every field is taxed of all its sheaves
until the farmer stands in it alone.
Yet I have kept a single summer day
in folded paper pressed between two lines,
a coin the frost can never take away,
a light that still remembers how it shines.
So let the year go bankrupt in the snow:
I hold the one account it cannot owe."""

ANSWER = (
    "Here's a Shakespearean sonnet about autumn:\n\n**Autumn's Ledger**\n\n"
    + SONNET
    + "\n\n---\n\nThis sonnet follows the traditional ABAB CDCD EFEF GG rhyme scheme in iambic "
    "pentameter, using the extended metaphor of a ledger for the passing of the season."
)


def test_scan_of_a_raw_answer_agrees_with_form_check(tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER, encoding="utf-8")
    scanned = runner.invoke(app, ["form", "scan", str(answer), "--form", "sonnet"])
    assert scanned.exit_code == 0, scanned.output
    assert "PASS sonnet" in scanned.stdout
    assert 'extraction: removed preamble: "Here\'s a Shakespearean sonnet about autumn:"' in (
        scanned.stdout
    )
    table_rows = [line for line in scanned.stdout.splitlines() if line.startswith("│")]
    assert len(table_rows) >= 14
    assert not any("Shakespearean" in row or "---" in row for row in table_rows)
    source = tmp_path / "answers.jsonl"
    source.write_text(json.dumps({"form": "sonnet", "response": ANSWER}) + "\n")
    out = tmp_path / "checks.jsonl"
    checked = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(out.read_text())["passed"] is True


def test_scan_no_extract_scans_the_text_as_given(tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER, encoding="utf-8")
    scanned = runner.invoke(app, ["form", "scan", str(answer), "--form", "sonnet", "--no-extract"])
    assert scanned.exit_code == 0, scanned.output
    flat = " ".join(scanned.stdout.split())
    assert "FAIL sonnet" in flat and "this poem has 18" in flat
    assert "extraction:" not in scanned.stdout


def test_scan_of_a_plain_poem_notes_nothing(tmp_path: Path) -> None:
    poem = tmp_path / "poem.txt"
    poem.write_text(SONNET, encoding="utf-8")
    scanned = runner.invoke(app, ["form", "scan", str(poem), "--form", "sonnet"])
    assert "PASS sonnet" in scanned.stdout and "extraction:" not in scanned.stdout


def test_scan_findings_name_one_line_as_line(tmp_path: Path) -> None:
    """A finding about one line read `[meter] lines 4: ...`; it is `line 4`, and a finding
    about two lines says `lines 3 and 4`."""
    poem = tmp_path / "limerick.txt"
    poem.write_text(  # written for this test: line 4 has four beats, lines 3/4 do not rhyme
        "There once was a cat from Peru\nwho dreamed it was eating a shoe\nit woke with a "
        "fright\nin the middle of the day\nand found that it was all quite false\n",
        encoding="utf-8",
    )
    scanned = runner.invoke(
        app, ["form", "scan", str(poem), "--form", "limerick"], env={"COLUMNS": "200"}
    )
    findings = [line.strip() for line in scanned.output.splitlines() if line.startswith("  [")]
    assert "[meter] line 4: line 4 does not read with 2 beats (about 4)" in findings
    assert any(
        line.startswith("[rhyme] lines 3 and 4: lines 3 and 4 should rhyme") for line in findings
    )
    assert not any(" lines 4:" in line for line in findings)
