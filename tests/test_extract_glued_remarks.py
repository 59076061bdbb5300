"""Poem extraction of answers that glue a remark of several lines under the poem's last line,
with no blank line ("... a friend.\nRhyme scheme: ABAB CDCD EFEF GG.\nEach line is in iambic
pentameter."): the remark is removed (or, a self-check, moved to reasoning) as a one-line remark
glued so is. And of verse whose last lines only look so.

All verse here was written for these tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from form_check_support import checked_answer

from poemetric.extraction import extract_poem
from poemetric.form.checker import check_poem

SONNET = """The orchard keeps its apples through the frost,
the ladders lean against the silent wall;
the summer's ledger tallies what was lost,
and wasps grow drowsy in the windfall's sprawl.
My grandmother would walk here after tea
and count the trees as if they were her own,
and name the russet and the pippin tree
that grew from seeds her mother's hands had sown.
She never spoke of hunger or of war,
but pressed the cider in a wooden vat;
the kitchen smelled of apples to the door,
and on the sill there slept a yellow cat.
  So every autumn, when the branches bend,
  I walk her rows and greet them like a friend."""

QUATRAINS = """The ferry leaves at six without a sound,
the harbour lights go out along the quay;
a gull complains above the fishing ground,
and night comes in like water from the sea.

I stood there once beside my father's coat,
too young to know the names of what we passed;
he pointed out each lantern, every boat,
and told me which of them would be the last."""

GLUED_REMARKS = [
    "This sonnet follows the Shakespearean rhyme scheme ABAB CDCD EFEF GG.\n"
    "Each line is written in iambic pentameter.",
    "(Lines 1 and 3 rhyme;\nlines 2 and 4 rhyme.)",
    "The rhyme scheme is ABAB CDCD EFEF GG.\nEvery line has 10 syllables.\n"
    "The volta comes with the final couplet.",
    "(Rhyme scheme: ABAB CDCD EFEF GG;\niambic pentameter throughout.)",
    # the last line a remark alone, the first only with it
    "Each line is in iambic pentameter.\nThe rhyme scheme is ABAB CDCD EFEF GG.",
    # each line a remark on its own (removed before too)
    "Rhyme scheme: ABAB CDCD EFEF GG\nMeter: iambic pentameter, 10 syllables per line",
]


@pytest.mark.parametrize("poem", [SONNET, QUATRAINS])
@pytest.mark.parametrize("remark", GLUED_REMARKS)
def test_remark_of_several_lines_glued_under_the_poem_removed(poem: str, remark: str) -> None:
    result = extract_poem(poem + "\n" + remark)
    assert result.poem == poem, result.notes
    assert result.notes == [
        f"removed closing remark: {line.strip()!r}" for line in remark.split("\n")
    ]
    assert result.reasoning is None


def test_remark_in_brackets_naming_lines_by_number_removed() -> None:
    remark = "(Lines 1 and 3 rhyme; lines 2 and 4 rhyme.)"
    result = extract_poem(QUATRAINS + "\n" + remark)
    assert result.poem == QUATRAINS, result.notes
    assert result.notes == [f"removed closing remark: {remark!r}"]


SELF_CHECKS = [
    "Let me check: ABAB CDCD EFEF GG, iambic pentameter.\nAll fourteen lines have 10 syllables. "
    "Good.",
    "Wait, let me double-check the rhyme scheme.\n"
    "Lines 1 and 3 end in frost/lost, lines 2 and 4 in wall/sprawl: ABAB.\n"
    "The couplet rhymes bend/friend. Good.",
]


@pytest.mark.parametrize("check", SELF_CHECKS)
def test_self_check_of_several_lines_glued_under_the_poem_moved_to_reasoning(check: str) -> None:
    result = extract_poem(SONNET + "\n" + check)
    assert result.poem == SONNET, result.notes
    assert result.reasoning == check
    first = check.split("\n")[0]
    size = check.count("\n") + 1
    assert result.notes == [
        f"moved a self-check of {size} lines glued under the poem's last line to reasoning: "
        f"{first!r}"
    ]


def test_sonnet_with_a_glued_remark_of_two_lines_scores_as_the_clean_one(tmp_path: Path) -> None:
    record = checked_answer(
        tmp_path,
        "Here is a sonnet about an orchard:\n\n" + SONNET + "\n" + GLUED_REMARKS[0],
        "sonnet",
    )
    clean = check_poem(SONNET, "sonnet")
    assert record["form_score"] == clean.form_score
    assert record["passed"] == clean.passed
    assert record["extraction"][-2:] == [
        "removed closing remark: 'This sonnet follows the Shakespearean rhyme scheme ABAB CDCD "
        "EFEF GG.'",
        "removed closing remark: 'Each line is written in iambic pentameter.'",
    ]


REMARK = "This sonnet follows the ABAB CDCD EFEF GG rhyme scheme."


@pytest.mark.parametrize(
    "last",
    [
        # the verse line names the metre, but not exactly as a remark does
        "The meter of the sea is all I know.",
        # the verse line opens like a remark ("It has ...") and names nothing
        "It has been years since then, I know.",
    ],
)
def test_verse_line_over_a_glued_remark_kept(last: str) -> None:
    """Only the remark goes: the line over it is not read into it."""
    result = extract_poem(SONNET + "\n" + last + "\n" + REMARK)
    assert result.poem == SONNET + "\n" + last, result.notes
    assert result.notes == [f"removed closing remark: {REMARK!r}"]


def test_verse_line_naming_the_metre_that_completes_a_quatrain_over_a_remark_kept() -> None:
    stanza = (
        "I count the boats the way he counted them,\nand keep the lamps he taught me how to "
        "trim;\nI learned the names, the rigging and the stem.\n"
        "The sonnet keeps its iambic pentameter."
    )
    result = extract_poem(QUATRAINS + "\n\n" + stanza + "\n" + REMARK)
    assert result.poem == QUATRAINS + "\n\n" + stanza, result.notes


#: A last quatrain of a poem about counting metre, whose last two lines name it.
METRE_STANZA = """Now I write sonnets, and I count the feet,
the way he counted boats against the tide.
The rhyme scheme runs ABAB, clean and neat.
The meter is iambic, like his stride."""

KEPT = [
    # a poem of one quatrain: two lines are no remark under two
    METRE_STANZA,
    # the two lines complete a quatrain like the ones before
    QUATRAINS + "\n\n" + METRE_STANZA,
    # the first of the two completes a quatrain; the line under it ends a stanza of five
    QUATRAINS
    + "\n\n"
    + METRE_STANZA.replace("tide.", "tide,\nand keep the lanterns burning, line by line."),
    # opens like a remark, but names no scheme, metre or count exactly
    QUATRAINS + "\nThe poem ends here. The lamps go out.\nThe meter of the rain is all I hear.",
    # lines named by number, with no word of rhyme, metre or syllables
    QUATRAINS + "\nLine 1 of her letter said she'd come.\nLine 2 said not to wait.",
    # the lines run on, as verse does
    SONNET + "\nEach line has ten syllables, I know,\nthe rhyme scheme ABAB, and so on.",
]


@pytest.mark.parametrize("text", KEPT)
def test_verse_whose_last_lines_look_like_a_glued_remark_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.notes == [] and result.reasoning is None


@pytest.mark.parametrize(
    "remark",
    [
        GLUED_REMARKS[0],
        "This sonnet follows the ABAB CDCD EFEF GG rhyme scheme.",
        "Let me verify: ABAB CDCD EFEF GG.\nLines 13 and 14 have 10 syllables each. Good.",
    ],
)
def test_glued_remark_above_a_closing_paragraph_removed(remark: str) -> None:
    """A sign-off after a blank line is cut first; the remark glued above it goes too (it stayed
    as the poem's last lines once the answer ended in a sign-off)."""
    answer = "Here is your sonnet:\n\n" + SONNET + "\n" + remark + "\n\nI hope you enjoy it!"
    result = extract_poem(answer)
    assert result.poem == SONNET, result.notes
    assert result.notes[-1] == "removed closing remark: 'I hope you enjoy it!'"
