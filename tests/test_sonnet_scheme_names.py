"""A sonnet's rhyme scheme is named only when it fits: free verse checked as a sonnet was reported
with the scheme it fits least badly ("quatrain octave (ABABCDCD EFEFEF)", "Spenserian-like" for
other texts). Poems are written for these tests."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.form.checker import check_poem
from poemetric.form.forms import free_sonnet_reading
from poemetric.form.parsing import parse_poem

runner = CliRunner()

#: Fourteen lines of free verse: no end word rhymes with another.
FREE_VERSE = """The kettle ticks as it cools on the back burner,
and somewhere down the hall a radio mutters
about weather moving east across the valley.
My brother left his boots beside the door again,
their laces knotted into small grey fists.
I count the jars of jam my mother labelled
in a hand that leaned a little more each year,
the dates in blue ink, the fruit in brackets.
Outside, the neighbour's dog considers a pigeon
with the patience of a clerk at closing time.
Nobody has wound the clock in the kitchen,
so it insists that it is twenty past four,
which is as good an hour as any other
to sit here doing nothing much at all."""


def test_free_verse_is_not_named_after_a_sonnet_scheme(tmp_path: Path) -> None:
    """It was "quatrain octave (ABABCDCD EFEFEF) ABABCDCDEFEFEF" at rhyme 0.08."""
    result = check_poem(FREE_VERSE, "sonnet")
    assert not result.passed
    assert result.rhyme_score is not None and result.rhyme_score < 0.1
    assert result.facts["scheme"] == "no sustained rhyme scheme"
    assert result.facts["rhyme"].startswith("no sustained rhyme scheme (the closest sonnet scheme")
    assert "rhyme: no sustained rhyme scheme: the closest sonnet scheme, " in result.summary
    first = next(issue for issue in result.explanation if issue.constraint == "rhyme")
    assert first.lines == [] and first.detail.startswith("no sustained rhyme scheme: ")
    poem = tmp_path / "free.txt"
    poem.write_text(FREE_VERSE, encoding="utf-8")
    scanned = runner.invoke(
        app, ["form", "scan", str(poem), "--form", "sonnet"], env={"COLUMNS": "300"}
    )
    assert scanned.exit_code == 0, scanned.output
    assert "[rhyme] no sustained rhyme scheme: the closest sonnet scheme" in scanned.stdout


#: Fourteen lines of rhymed couplets.
COUPLETS = """The morning broke upon the quiet bay
and every sail was lifted in the spray.
The fishers hauled their nets along the shore
and sang of all the weather that they bore.
The children ran to meet them at the gate
where mothers waited with their arms held straight.
By noon the catch was salted in the shed
and every door was open to the bread.
The evening came with lanterns on the hill;
the old men told the stories of the mill,
and someone played a fiddle by the fire
until the embers settled like a spire.
Then all the village slept beneath the sky
and dreamed of silver shoals that swam on high."""


def test_rhymed_lines_in_no_sonnet_scheme_are_said_to_fit_none() -> None:
    """Couplets rhyme throughout: their rhyme is sustained, but no sonnet scheme fits it."""
    result = check_poem(COUPLETS, "sonnet")
    assert not result.passed
    assert result.facts["scheme"] == "no sonnet rhyme scheme fits", result.facts


#: Fourteen lines whose end words rhyme almost only to the eye (though/through, daughter/laughter,
#: bough/rough, five/give, blossom/bosom, flowers/lowers, plough/enough).
EYE_RHYMED = """The lantern burned all night, and even though
the fields were dark, I heard the miller's daughter
go singing underneath the apple bough,
her footsteps light as rain the whole night through.
I thought I heard a little ripple of laughter
where the road turns stony, steep and rough;
the church clock struck the quarter after five,
and still she sang as if she had no more to give.
She wore a ribbon and a pinkish blossom,
and carried baskets full of summer flowers;
she held a kitten sleeping on her bosom
while the mist came down and the slow tide lowers.
At dawn her father went to take the plough,
and all of us agreed that was enough."""


def test_eye_rhymes_do_not_make_a_free_sonnet() -> None:
    """The free-sonnet reading infers the poem's own scheme from perfect and slant rhymes, as its
    docstring and `form scan` say; it let eye rhymes share a letter, so this poem was a "free
    sonnet ABAABACCDEDEFF" (rhyme 0.40) on rhymes that are only spelled alike."""
    assert free_sonnet_reading(parse_poem(EYE_RHYMED)) is None
    result = check_poem(EYE_RHYMED, "sonnet")
    assert result.facts["scheme"] == "no sustained rhyme scheme", result.facts
    assert result.rhyme_score is not None and 0.2 < result.rhyme_score < 0.4


def test_two_unrhymed_lines_name_the_closest_scheme_in_a_whole_sentence() -> None:
    """Cut to two lines, every sonnet pattern asks for no rhyme: its note has no count, and the
    rhyme fact and finding ended in "..., has " (and a lone ")" in the fact)."""
    result = check_poem("\n".join(FREE_VERSE.splitlines()[:2]), "sonnet")
    assert result.facts["scheme"] == "no sustained rhyme scheme"
    assert result.facts["rhyme"].endswith("asks for no rhyme in 2 lines)")
    first = next(issue for issue in result.explanation if issue.constraint == "rhyme")
    assert not first.detail.endswith("has ")
    assert first.detail.endswith("asks for no rhyme in 2 lines")
