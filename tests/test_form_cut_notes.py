"""`form check` of a text the checker cuts (over 200,000 characters, over 600 verse lines) says
what was cut and where: "only 1 verse line" of a 200,001-character first line, or "this poem
has 600" of a 700-line poem, read as facts about the whole text. Verdicts and scores are those
of the cut text, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.form.checker import MAX_CHARS, check_poem
from poemetric.form.cut_notes import char_cut_note

WIDE = "x" * (MAX_CHARS + 1) + "\nsecond line here\nthird line there\n"
TALL = "\n".join(["the cat sat on the mat today"] * 700)


def test_form_check_says_what_was_cut_and_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {"id": "wide", "form": "limerick", "text": WIDE},
        {"id": "tall", "form": "sonnet", "text": TALL},
    ]
    (tmp_path / "poems.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.chdir(tmp_path)
    args = ["form", "check", "poems.jsonl", "-o", "checks.jsonl", "--no-progress"]
    result = CliRunner().invoke(app, args)
    wide, tall = map(json.loads, (tmp_path / "checks.jsonl").read_text().splitlines())
    cut = "only the first 200,000 of 200,035 characters were analysed: the cut falls inside input"
    assert f"{cut} line 1 (200,001 characters long); lines 2-3 were not read" in wide["error"]
    assert wide["error"].startswith("only 1 verse line; a poem in a fixed form needs more (input")
    assert "input cut: only the first 200,000" in " ".join(result.stderr.split())
    # The line-count reason says the cut; an "(input cut: ...)" after it said it again.
    assert tall["summary"].endswith(
        "this poem has 700 verse lines (only the first 600 were checked)"
    )
    assert tall["summary"].count("600") == 1 and "input cut" not in tall["summary"]
    assert not wide["passed"] and not tall["passed"] and tall["form_score"] == 0.0
    # The catch-all metre finding names its first 20 lines, and the record keeps all 592.
    (catch_all,) = [f for f in tall["explanation"] if "more failures" in f["detail"]]
    assert catch_all["lines"] == list(range(9, 601))
    scan = CliRunner().invoke(
        app, ["form", "scan", "-", "--form", "sonnet"], input=TALL, env={"COLUMNS": "300"}
    )
    (shown,) = [line for line in scan.output.splitlines() if "more failures" in line]
    assert shown.strip() == (
        f"[meter] lines {', '.join(map(str, range(9, 29)))} and 572 more: "
        "592 more failures of this kind"
    )
    text = " ".join(scan.output.split())
    summary = text[text.index("FAIL sonnet") : text.index(" scheme: ")]
    assert summary.endswith("(only the first 600 were checked)") and "input cut" not in summary


def test_the_verdict_of_a_cut_poem_is_that_of_its_checked_part() -> None:
    """Only the words change: the 700-line poem scores as its first 600 lines did."""
    tall, first = (
        check_poem(TALL, "ballad"),
        check_poem("\n".join(TALL.split("\n")[:600]), "ballad"),
    )
    assert "(input cut: only the first 600 of 700 verse lines" in tall.summary
    assert (tall.passed, tall.meter_score, tall.rhyme_score, tall.form_score, tall.lines) == (
        first.passed,
        first.meter_score,
        first.rhyme_score,
        first.form_score,
        600,
    )


def test_a_cut_between_lines_names_the_first_line_not_read() -> None:
    text = "a" * 9 + "\n" + "b" * 5 + "\nc"
    assert char_cut_note(text, 10) == (
        "only the first 10 of 17 characters were analysed: the cut falls after input line 1; "
        "lines 2-3 were not read"
    )
    assert char_cut_note("a" * 12, 10).endswith("inside input line 1 (12 characters long)")
    assert char_cut_note("a" * 12 + "\nb", 10).endswith("long); line 2 was not read")
