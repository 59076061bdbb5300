"""`poemetric form scan`'s verdict block: the scheme it chose and the other facts are named, and
a finding longer than the terminal wraps under its own indent (`poemetric/cli/form_verdict.py`)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app

runner = CliRunner()

# Written for this test: a Shakespearean sonnet whose couplet (fight / light) rhymes with the
# second quatrain's D rhyme (night / light), so the checker names one finding.
SONNET = """The morning light comes creeping through the pane,
And finds the kettle singing on the stove;
It lingers on the puddles of the rain
And gilds the silver branches of the grove.
I watch the sparrows gather on the wall,
They quarrel over crumbs I left last night;
The smallest one is bravest of them all,
He hops between the others into light.
So too the heart, when sorrow holds the field,
Will find a crumb of gladness in the grey;
The stubborn soul is slow at last to yield,
And pecks its little portion from the day.
Then let the kettle sing, the sparrows fight:
I take my breakfast gladly in the light."""

# Written for this test: a ghazal whose radif is "tonight".
GHAZAL = """The lamps are lit along the street tonight,
And no one comes to share my seat tonight.

I set two cups of tea upon the board,
And pour for one, and leave one sweet tonight.

The moon is thin, a paring of a pear,
It hangs above the silent wheat tonight."""


def _scan(tmp_path: Path, text: str, *args: str) -> list[str]:
    poem = tmp_path / "poem.txt"
    poem.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["form", "scan", str(poem), *args], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("PASS", "FAIL")))
    return lines[start:]


def test_scan_names_the_scheme_it_chose_and_what_fits(tmp_path: Path) -> None:
    verdict = _scan(tmp_path, SONNET, "--form", "sonnet")
    assert verdict[0].startswith("PASS sonnet")
    # The finding speaks of "the pattern": the verdict says which one the checker chose.
    assert "  scheme: Shakespearean ABABCDCDEFEFGG" in verdict
    assert "  meter: 14 of 14 lines fit iambic pentameter" in verdict
    assert any(line.startswith("  rhyme: Shakespearean: 7.0 of 7") for line in verdict)
    ghazal = _scan(tmp_path, GHAZAL, "--form", "ghazal")
    assert "  radif: tonight" in ghazal


def test_scan_findings_wrap_under_their_own_indent_at_80_columns(tmp_path: Path) -> None:
    verdict = _scan(tmp_path, SONNET, "--form", "sonnet")
    assert all(len(line) <= 80 for line in verdict)
    finding = next(i for i, line in enumerate(verdict) if line.startswith("  [rhyme]"))
    # Two line numbers read as two, not as "6,13"; the continuation is indented past the
    # bracket instead of running on at column 0.
    assert verdict[finding].startswith("  [rhyme] lines 6 and 13: line 13 (G) rhymes with")
    assert verdict[finding + 1].startswith("      ") and "new rhyme" in verdict[finding + 1]
    assert all(line.startswith("  ") for line in verdict[1:])


def test_scan_of_an_empty_file_prints_no_empty_table(tmp_path: Path) -> None:
    poem = tmp_path / "empty.txt"
    poem.write_text("\n\n", encoding="utf-8")
    result = runner.invoke(app, ["form", "scan", str(poem), "--form", "sonnet"])
    assert result.exit_code == 1
    assert result.stdout.strip() == "FAIL sonnet: empty poem text"


def test_one_finding_past_the_cap_is_counted_in_the_singular(tmp_path: Path) -> None:
    """Nine failed rhymes: eight listed, then "1 more failures of this kind"."""
    source = tmp_path / "poems.jsonl"
    row = {"id": "s", "form": "sonnet", "text": SONNET, "rhyme": "ABBAABBA CDECDE"}
    source.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    details = [issue["detail"] for issue in json.loads(out.read_text())["explanation"]]
    assert "1 more failure of this kind" in details
    assert not any("more failures" in detail for detail in details)


def test_scan_help_gives_its_exit_codes_and_a_fail_exits_0(tmp_path: Path) -> None:
    """Scripts could not tell from `form scan --help` what its exit code means."""
    shown = runner.invoke(app, ["form", "scan", "--help"], env={"COLUMNS": "80"})
    flat = " ".join(shown.stdout.replace("│", " ").split())
    assert "The exit code is 0 when the poem was checked, PASS or FAIL" in flat
    assert (
        "1 when the text is no poem to scan (empty, one line, not in Latin script: a FAIL)" in flat
    )
    poem = tmp_path / "poem.txt"
    poem.write_text(SONNET, encoding="utf-8")
    failed = runner.invoke(app, ["form", "scan", str(poem), "--form", "limerick"])
    assert failed.exit_code == 0 and "FAIL limerick" in failed.stdout
    one_line = runner.invoke(app, ["form", "scan", "-", "--form", "sonnet"], input="One line.")
    assert one_line.exit_code == 1 and "FAIL sonnet: only 1 verse line" in one_line.stdout
    unknown = runner.invoke(app, ["form", "scan", str(poem), "--form", "rondeau"])
    assert unknown.exit_code == 2
