"""A ballad's stanza scheme is named only when it fits, as a sonnet's is (one rule,
`poemetric.form.scheme_names`): free verse checked as a ballad was reported as rhyming "ABAB" or
"ABCB" at rhyme 0.09. Poems are written for these tests."""

from __future__ import annotations

from poemetric.form.checker import check_poem
from poemetric.form.scheme_names import MIN_NAMED_SCHEME_FIT
from tests.test_sonnet_scheme_names import FREE_VERSE

#: Two quatrains rhyming ABCB.
BALLAD = """The miller rode to Dunmore town
upon a winter's day;
he sold his flour at the fair
and drank his pay away.

He came back singing through the snow
beneath a paper moon,
and told his wife the snow was gold
and he'd be rich by June."""


def test_free_verse_is_not_named_after_a_ballad_scheme() -> None:
    result = check_poem(FREE_VERSE, "ballad")
    assert not result.passed
    assert result.rhyme_score is not None and result.rhyme_score < MIN_NAMED_SCHEME_FIT
    assert result.facts["scheme"] == "no sustained rhyme scheme", result.facts  # was "ABAB"
    assert result.facts["rhyme"].startswith("no sustained rhyme scheme (the closest ballad scheme")
    assert "rhyme: no sustained rhyme scheme: the closest ballad scheme, " in result.summary
    first = next(issue for issue in result.explanation if issue.constraint == "rhyme")
    assert first.lines == [] and first.detail.startswith("no sustained rhyme scheme: ")


def test_a_ballad_that_rhymes_keeps_its_scheme_name() -> None:
    result = check_poem(BALLAD, "ballad")
    assert result.passed, result.summary
    assert result.facts["scheme"] == "ABCB"
    assert result.facts["rhyme"].startswith("ABCB: ")


def test_a_requested_ballad_pattern_is_still_reported_as_requested() -> None:
    """With a pattern the scheme is the request, not a claim about the poem (as for sonnets,
    whose requested pattern is never replaced by "no sustained rhyme scheme")."""
    result = check_poem(FREE_VERSE, "ballad", rhyme="ABCB")
    assert not result.passed and result.facts["scheme"] == "ABCB"


def test_one_irregular_line_is_said_in_the_singular() -> None:
    """It said "1 line is much longer or shorter than their neighbours"."""
    long_line = "and told his wife the snow was gold as bright as any coin the king has ever seen"
    one = check_poem(BALLAD.replace("and told his wife the snow was gold", long_line), "ballad")
    (finding,) = [issue for issue in one.explanation if issue.constraint == "line length"]
    assert finding.detail == "1 line is much longer or shorter than its neighbours"
    two = check_poem(
        BALLAD.replace("and told his wife the snow was gold", long_line).replace(
            "he sold his flour at the fair", "he sold his flour at the fair " + long_line
        ),
        "ballad",
    )
    (finding,) = [issue for issue in two.explanation if issue.constraint == "line length"]
    assert finding.detail.endswith(" lines are much longer or shorter than their neighbours")
