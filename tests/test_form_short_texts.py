"""Findings that spoke of the wrong thing (docs/form-check.md, "Line numbers", form-2.14): a
sestina's short envoi was said to lack nothing ("the envoi lacks "), a ballad read split at the
caesura counted its half-lines in `facts["meter"]`, and a short villanelle was told its "stanza at
line 1" was too short for the rhyme pattern. Scores are unchanged; only what is said changed."""

from __future__ import annotations

import pytest

from poemetric.form.checker import check_poem

# Written for these tests: a sestina on six end words, rotated 6-1-5-2-4-3, with an envoi.
END_WORDS = ("stone", "river", "bread", "lamp", "field", "morning")
OPENINGS = (
    "We set the table with a heavy",
    "My sister walked out past the",
    "The old dog slept beside the",
    "Nobody spoke of rain or of the",
    "A letter waited under the",
    "I counted sparrows in the",
)
RETROGRADATIO = (5, 0, 4, 1, 3, 2)
FULL_ENVOI = (
    "The stone, the river and the bread remain,",
    "the lamp, the field, the morning, all the same,",
    "and nothing else is asked of them.",
)


def _sestina(envoi: tuple[str, ...]) -> str:
    words = list(END_WORDS)
    stanzas = []
    for k in range(6):
        stanzas.append("\n".join(f"{OPENINGS[(i + k) % 6]} {w}," for i, w in enumerate(words)))
        words = [words[j] for j in RETROGRADATIO]
    return "\n\n".join([*stanzas, "\n".join(envoi)])


def _envoi_findings(text: str) -> list[tuple[list[int], str]]:
    result = check_poem(text, "sestina")
    return [(f.lines, f.detail) for f in result.explanation if f.constraint == "envoi"]


def test_a_two_line_envoi_with_all_six_words_says_it_is_short() -> None:
    text = _sestina(FULL_ENVOI[:2])  # 38 lines: the envoi holds all six words
    assert _envoi_findings(text) == [
        (
            [37, 38],
            "the envoi has 2 lines where the form has 3 (it holds the six end words, but only "
            "a full envoi earns its share)",
        )
    ]
    # The score is as before: 0.5 of the line count, a perfect rotation, no envoi credit.
    assert check_poem(text, "sestina").form_score == pytest.approx(0.15 * 0.5 + 0.65)


def test_a_one_line_envoi_says_it_is_short_and_names_the_missing_word() -> None:
    text = _sestina(("The stone, the river, bread and lamp and field remain.",))
    assert _envoi_findings(text) == [
        ([37], "the envoi has 1 line where the form has 3, and it lacks 'morning'")
    ]
    assert check_poem(text, "sestina").form_score == pytest.approx(0.65)


def test_a_full_envoi_is_checked_as_before() -> None:
    assert _envoi_findings(_sestina(FULL_ENVOI)) == []
    lacking = (FULL_ENVOI[0], "the lamp, the field, and all the same,", FULL_ENVOI[2])
    assert _envoi_findings(_sestina(lacking)) == [([37, 38, 39], "the envoi lacks 'morning'")]


# Written for these tests: a ballad printed in long lines, each two ballad lines printed as one
# (rhyming ABCB only when read split at the caesura).
LONG_LINE_BALLAD = """The ferry left the harbour wall, before the sun was high,
The boatman hummed an older tune, and watched the weather sky;
The gulls went wheeling round the mast, and called across the bay,
And every child aboard the boat was laughing on the way.

By noon the wind came off the hills, and rattled every sail,
But still the boatman hummed his tune, and told a cheerful tale;
The water turned a heavy grey, and rain began to fall,
And brought them safely back again, beside the harbour wall."""


@pytest.mark.parametrize(
    ("meter", "fact", "score"),
    [
        # 14 of the 16 half-lines fit, both misses in one line: 7 of the poem's 8 lines.
        ("common meter", "7 of 8 lines fit common meter", 0.9531),
        # Every second half-line is a trimeter: no line fits whole (it said "8 of 16").
        ("iambic tetrameter", "0 of 8 lines fit iambic tetrameter", 0.625),
    ],
)
def test_a_long_line_ballads_metre_fact_counts_the_poems_lines(
    meter: str, fact: str, score: float
) -> None:
    result = check_poem(LONG_LINE_BALLAD, "ballad", meter, "ABCB")
    assert "layout" in result.facts  # read split at the caesura
    assert result.facts["meter"] == f"{fact} (a long line fits when both its halves do)"
    assert result.meter_score == pytest.approx(score, abs=1e-4)  # the half-lines' score


def test_a_ballad_read_as_written_counts_its_lines_plainly() -> None:
    result = check_poem(LONG_LINE_BALLAD, "ballad", "common meter")  # AABB as written
    assert "layout" not in result.facts
    assert result.facts["meter"] == "0 of 8 lines fit common meter"


# Written for these tests: five tercets of a villanelle, its closing quatrain not written.
SHORT_VILLANELLE = """The orchard keeps the shape of last year's rain,
and apples lean toward the garden gate;
I walk the rows and count them once again.

A blackbird argues with the weathervane,
the ladder rests against the wall, and wait,
the orchard keeps the shape of last year's rain.

My mother grafted here a russet strain
that bears its fruit a little small and late;
I walk the rows and count them once again.

The wasps arrive, the windfalls start to stain
the grass a brown that nobody could rate;
the orchard keeps the shape of last year's rain.

So let the autumn come and go its plain
and patient way, and leave the trees their weight;
I walk the rows and count them once again."""


def test_a_short_villanelle_is_told_the_poem_is_short_not_a_stanza() -> None:
    result = check_poem(SHORT_VILLANELLE, "villanelle")
    rhyme = [(f.lines, f.detail) for f in result.explanation if f.constraint == "rhyme"]
    assert rhyme == [
        (
            [],
            "the poem has 15 lines, fewer than the 19 of the rhyme pattern ABA x5 + ABAA: "
            "the 4 rhymes it asks for on lines 16-19 of the form are missing",
        )
    ]
    assert result.rhyme_score == pytest.approx(13 / 17, abs=1e-4)  # the missing rhymes fail


def test_a_short_stanza_of_a_stanzaic_pattern_is_still_named() -> None:
    """A ballad's last stanza cut short is a stanza too short for the pattern, as before."""
    cut = (
        "The ferry left the harbour wall\nbefore the sun was high;\n"
        "the boatman hummed an older tune\nand watched the weather sky.\n\n"
        "The gulls went wheeling round the mast\nand called across the bay;"
    )
    result = check_poem(cut, "ballad", None, "ABCB")
    assert [(f.lines, f.detail) for f in result.explanation if f.constraint == "rhyme"] == [
        ([5, 6], "stanza at line 5 is too short for the pattern: 1 rhyme missing")
    ]
