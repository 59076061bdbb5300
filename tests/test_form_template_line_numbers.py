"""Texts that spoke of a form's template as if it were the poem (docs/form-check.md, "Line
numbers"): a Lear-layout limerick's `facts["meter"]` counted the five lines it is read as, and a
short villanelle or ballade said "refrain A1: line 18 is missing" of a poem with no line 18."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.form.checker import check_poem
from poemetric.form.repeats import score_repeats

runner = CliRunner()

# Written for these tests: a limerick in Lear's layout (line 3 holds the two short lines); the
# second short line ("he will tell you ... a reply") is far too long, the first is right.
OPENING = "A baker who lived by the quay\nMade bread that was heavy as clay;\n"
SHORT_LINES = "If you ask him for rye, he will tell you, with never a doubt or a sigh, a reply,\n"
LAST_LINE = '"It is wheat, and it always will stay."\n'
LEAR = OPENING + SHORT_LINES + LAST_LINE
FIVE_LINES = OPENING + SHORT_LINES.replace(", he", ",\nhe") + LAST_LINE

# Written for these tests: the first 13 lines of a villanelle (its refrains at lines 15, 18 and
# 19 of the form's 19 are not there).
SHORT_VILLANELLE = """The kettle sings before the house is up,
and steam climbs slowly up the window glass;
I hold the warmth of morning in a cup.

The cat returns from hunting, thin and rough,
and pads across the tiles on paws of grass;
the kettle sings before the house is up.

My father used to say that was enough:
a quiet hour, and let the hurry pass.
I hold the warmth of morning in a cup.

The paper lies unopened by the stuff
of yesterday, the keys, the bills, the brass;
the kettle sings before the house is up.

The light comes in, a little gold, a buff"""


def test_a_lear_limericks_metre_fact_counts_the_poems_four_lines() -> None:
    lear = check_poem(LEAR, "limerick")
    assert lear.facts["variant"].startswith("Lear")
    # Line 3 fits only when both its halves do: 3 of the poem's 4 lines (it said "4 of 5").
    assert lear.facts["meter"] == (
        "3 of 4 lines fit limerick meter (beats 3, 3, 2 + 2, 3: line 3 holds the two short lines)"
    )
    five = check_poem(FIVE_LINES, "limerick")
    assert five.facts["meter"] == "4 of 5 lines fit limerick meter (3-3-2-2-3 beats)"
    assert lear.meter_score == five.meter_score  # the score is the five lines' as before


def test_a_lear_limericks_foot_metre_names_line_3() -> None:
    lear = check_poem(LEAR, "limerick", "anapestic trimeter")
    assert lear.facts["meter"] == (
        "3 of 4 lines fit anapestic trimeter (line 3 holds two shorter lines)"
    )
    five = check_poem(FIVE_LINES, "limerick", "anapestic trimeter")
    assert five.facts["meter"] == "4 of 5 lines fit anapestic trimeter (lines 3-4 shorter)"


def test_form_scan_shows_the_lear_fact(tmp_path: Path) -> None:
    poem = tmp_path / "lear.txt"
    poem.write_text(LEAR, encoding="utf-8")
    result = runner.invoke(app, ["form", "scan", str(poem), "--form", "limerick"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "3 of 4 lines fit limerick meter (beats 3, 3, 2 + 2, 3: line 3 holds" in flat
    assert "of 5 lines" not in flat


def test_a_short_villanelle_names_the_forms_place_of_a_missing_refrain() -> None:
    result = check_poem(SHORT_VILLANELLE, "villanelle")
    refrains = [(f.lines, f.detail) for f in result.explanation if f.constraint == "refrain"]
    assert refrains == [
        (
            [1],
            "refrain A1 is missing where the form repeats it "
            "(line 18 of the form's 19; the poem has 13 lines)",
        ),
        (
            [3],
            "refrain A2 is missing where the form repeats it "
            "(line 15 of the form's 19; the poem has 13 lines)",
        ),
        (
            [3],
            "refrain A2 is missing where the form repeats it "
            "(line 19 of the form's 19; the poem has 13 lines)",
        ),
    ]
    assert result.form_score == 0.4  # the score is unchanged: only the text says more


def test_a_short_ballade_names_the_forms_place_of_a_missing_refrain() -> None:
    # Written for this test: 20 plain lines, the 8th the refrain, which line 16 repeats.
    things = [
        "bread",
        "salt",
        "rope",
        "lamp",
        "coat",
        "boat",
        "bell",
        "nail",
        "wool",
        "jar",
        "key",
        "sack",
        "pail",
        "cart",
        "rake",
    ]
    lines = [f"I kept the {thing} beside the door" for thing in things[:7]]
    lines.append("And waited for the spring to come.")
    lines += [f"I gave the {thing} to someone poor" for thing in things[7:14]]
    lines.append("And waited for the spring to come.")
    lines += [f"I found the {thing} upon the floor" for thing in things[:4]]
    result = check_poem("\n".join(lines), "ballade")
    missing = [f.detail for f in result.explanation if f.constraint == "refrain"]
    assert missing == [
        "refrain is missing where the form repeats it "
        "(line 24 of the form's 28; the poem has 20 lines)",
        "refrain is missing where the form repeats it "
        "(line 28 of the form's 28; the poem has 20 lines)",
    ]


def test_a_missing_repeat_without_a_template_length_still_says_the_poems_length() -> None:
    scored = score_repeats(("one line",), [(0, 3, "chain")], "repetition")
    assert [f.detail for f in scored.findings] == [
        "chain is missing where the form repeats it (line 4; the poem has 1 line)"
    ]
