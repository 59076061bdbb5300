"""Poem extraction against more chat shapes: sign-offs, prose about the poem, metadata bullets,
syllable counts and "Line 1:" labels on the lines, title lines naming the form; and verse that
only looks like them (last stanzas opening "I hope", "In this", "You", poems about poems).

All verse and chatter here was written for these tests; the human-poem corpus checks live in
test_extract_chat_shapes.py.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import LIMERICK, POEM, _content_lines, prefixed_lines

from poemetric.extraction import extract_poem

# --- sign-offs beyond "I hope you enjoy it": smiles, offers, "anything else?" ---------------------

SIGN_OFFS = [
    "I hope this made you smile!",
    "Enjoy the poem!",
    "Enjoy this sonnet. \U0001f56f\ufe0f",
    "Is there anything else I can help with?",
    "Anything else you'd like me to write?",
    "Would you like a version with a different rhyme scheme?",
    "Would you like to see a darker take on the same idea?",
    "Happy to adjust the tone if you'd like.",
    "I'd be glad to tweak the ending.",
    "Feel free to ask for changes.",
    "Hope this helps!",
    "Hope that brings a smile! \U0001f60a",
    "Hope this brings a smile to your face!",
    "Hope it made you smile!",
    "Thanks for the lovely prompt!",
    "I hope this made you smile!\nWould you like a version with a different rhyme scheme?",
    "Thank you!",
    "Thanks so much! \U0001f60a",
    "Thank you for reading!",
    "Happy writing!",
    "Enjoy \U0001f60a",
    "Thank you!\nHappy writing!",
    "Enjoy!\nThank you!",
]


@pytest.mark.parametrize("sign_off", SIGN_OFFS)
@pytest.mark.parametrize("gap", ["\n\n", "\n"])
def test_sign_offs_removed(sign_off: str, gap: str) -> None:
    result = extract_poem(POEM + gap + sign_off)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "stanza",
    [
        "I hope the rain will bring you home,\nthe lamps will light the stair for you;\n"
        "I hope the glass will hold its flame\nuntil the night is through.",
        "I hope you like the way the river bends,\nthe way it keeps the lamplight on its back.",
        "I hope this made you smile, my dear,\nas once you made me smile.",
        "Hope that the spring will bring you home,\nthe lamps will light the stair for you.",
        "I hope you like the lamps.\nThe maker sleeps. The glass is cold.",
        "Enjoy the poem of the lamps,\nthe quiet of the maker's hands.",
        "Happy to adjust the wicks at dusk,\nhe hums a tune he cannot name.",
        "Would you like a version of the night\nwhere no one has to leave?",
    ],
)
def test_verse_stanza_opening_like_a_sign_off_kept(stanza: str) -> None:
    poem = POEM + "\n\n" + stanza
    result = extract_poem(poem)
    assert result.poem == poem, result.notes
    assert result.notes == []


def test_verse_line_opening_like_a_sign_off_running_on_kept() -> None:
    poem = POEM + "\nI hope you enjoy the dark, my love,\nas I enjoy the lamps."
    assert extract_poem(poem).poem == poem


@pytest.mark.parametrize(
    "ending",
    [
        "\n\nThank you.",
        "\nThank you.",
        "\n\nThank you, river,\nfor the boats and for the bread.",
        "\nfor all the lamps you gave the street —\nthank you!",
        "\nand all you gave the children at the door:\nThank you!",
    ],
)
def test_verse_thanks_kept(ending: str) -> None:
    """A short sign-off must stand alone with "!" or emoji, and not end a sentence running on."""
    poem = POEM + ending
    result = extract_poem(poem)
    assert result.poem == poem, result.notes


# --- prose that describes the poem, with no chat marker --------------------------------------------

DESCRIPTIONS = [
    "This captures the quiet of a workshop at the end of the day, when light becomes a gift.",
    "In this poem, the harbour stands for the patience of the maker and his lamps.",
    "I've used slant rhymes in the second stanza to soften the close.",
    "— Written in iambic pentameter.",
    "*Written in iambic pentameter, rhymed ABAB CDCD.*",
    "(Written in iambic pentameter, rhymed ABAB CDCD.)",
    "*(Written in iambic pentameter, rhymed ABAB CDCD.)*",
    "The lantern-maker becomes a metaphor for anyone who gives light away without keeping any.",
    "In this poem, the harbour stands for the patience it takes to make anything that lasts.\n"
    "I've used slant rhymes in the second stanza to soften the close.",
]


@pytest.mark.parametrize("description", DESCRIPTIONS)
def test_description_after_the_poem_removed(description: str) -> None:
    result = extract_poem(POEM + "\n\n" + description)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "description",
    [
        "This captures the quiet of a workshop at the end of the day, when light becomes a gift.",
        "I've kept to iambic pentameter throughout, with an ABAB CDCD rhyme.",
        "— Written in iambic pentameter.",
        "(Written in iambic pentameter, rhymed ABAB CDCD.)",
        "(This captures the quiet of a workshop at the end of the day, when light becomes a gift.)",
    ],
)
def test_description_glued_to_the_last_line_removed(description: str) -> None:
    result = extract_poem(POEM + "\n" + description)
    assert result.poem == POEM, result.notes


@pytest.mark.parametrize(
    "stanza",
    [
        "In this poem, nobody dies.",
        "(In this poem, nobody dies.)",
        "In this house the lamps go out by nine,\nthe maker sleeps beside his glass and wire.",
        "You asked me for a poem, so I wrote\nthe lamps, the glass, the children at the door.",
        "You will not find him there. The shop is shut.\nThe glass is cold. The wicks are laid.",
        "This poem is a lamp I left for you,\nits wick the length of one short line of verse;\n"
        "the rhyme is only borrowed from the sea,\nthe meter from the hammer and the stair.",
        "I've used the meter that my father used,\nthe iambs of the hammer on the glass.",
        "And every rhyme I know is yours.",
        "The poem ends here, where the lamps begin.",
        "In this one room the whole of winter waits, and every pane reflects the patient light.",
    ],
)
def test_verse_stanza_that_reads_like_a_description_kept(stanza: str) -> None:
    poem = POEM + "\n\n" + stanza
    result = extract_poem(poem)
    assert result.poem == poem, result.notes
    assert result.notes == []


POEM_ABOUT_A_POEM = """I wrote this poem for you at the kitchen table
and counted every foot as if it were a coin;
the rhyme scheme came as easily as rain.

In this poem, the volta comes too late,
the couplet never lands, the meter limps;
you read it anyway, and that is all.

I hope you like the stanza where you laugh.
I hope the rhyme is close enough to true."""


def test_poem_about_a_poem_kept() -> None:
    result = extract_poem(POEM_ABOUT_A_POEM)
    assert result.poem == POEM_ABOUT_A_POEM, result.notes
    assert result.notes == []


@pytest.mark.parametrize(
    "first_line", ["I wrote this poem for you at the kitchen table", "Here is a sonnet for you"]
)
def test_first_line_like_a_preamble_running_on_kept(first_line: str) -> None:
    poem = first_line + "\nand counted every foot as if it were a coin;\n" + LIMERICK
    result = extract_poem(poem)
    assert result.poem == poem, result.notes


def test_preamble_without_a_colon_still_removed() -> None:
    for gap in ["\n\n", "\n"]:
        assert extract_poem("Here is a sonnet for you" + gap + POEM).poem == POEM


def test_two_line_note_on_the_form_removed() -> None:
    note = "This poem follows the ABAB rhyme scheme.\nEach stanza has four lines."
    result = extract_poem(POEM + "\n\n" + note)
    assert result.poem == POEM, result.notes


def test_long_last_line_of_verse_glued_kept() -> None:
    poem = (
        POEM + "\nThe poem of his hands is written in the dark, in glass, in all the lamps of town."
    )
    assert extract_poem(poem).poem == poem


# --- metadata bullets and a commentary heading right under the last line ----------------------------


@pytest.mark.parametrize(
    "tail",
    [
        "\n\n- Rhyme: ABAB CDCD\n- Meter: iambic pentameter",
        "\n- Rhyme: ABAB CDCD\n- Meter: iambic pentameter",
        "\n* **Stanzas:** two quatrains\n* **Tone:** warm, unhurried",
        "\n\n1. Form: two quatrains\n2. Rhymes: noon/tune, row/glow",
        "\n## Breakdown\nThe first stanza sets the scene; the second turns to dusk and the children.",
        "\n**Analysis:**\nThe shop becomes a small sun for the street.",
    ],
)
def test_metadata_bullets_and_glued_heading_removed(tail: str) -> None:
    result = extract_poem(POEM + tail)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "tail",
    [
        "\n## Coda\nThe glass is cold; the maker sleeps.",
        "\n\n- the wick, the glass, the stair,\n- the children at the door.",
        "\nRhyme: the oldest trick the river knows.",
    ],
)
def test_verse_under_a_heading_or_in_a_list_kept(tail: str) -> None:
    poem = POEM + tail
    assert _content_lines(extract_poem(poem).poem) == _content_lines(poem)


# --- syllable counts at line ends -------------------------------------------------------------------


def _tag_lines(poem: str, tag: str) -> str:
    return "\n".join(f"{line} {tag}" if line else "" for line in poem.split("\n"))


@pytest.mark.parametrize("tag", ["(10)", "[10]", "(10 syllables)", "*(10)*"])
def test_syllable_counts_at_line_ends_removed(tag: str) -> None:
    result = extract_poem("Here is a sonnet about a lantern-maker:\n\n" + _tag_lines(POEM, tag))
    assert result.poem == POEM, result.notes
    assert any("syllable counts" in note for note in result.notes)


def test_limerick_with_syllable_counts_keeps_its_form_scores() -> None:
    from poemetric.form.checker import check_poem

    counts = [8, 8, 5, 5, 8]
    lines = LIMERICK.split("\n")
    answer = "\n".join(f"{line} ({n} syllables)" for line, n in zip(lines, counts, strict=True))
    assert extract_poem(answer).poem == LIMERICK
    clean = check_poem(LIMERICK, "limerick", None, "AABBA")
    extracted = check_poem(extract_poem(answer).poem, "limerick", None, "AABBA")
    assert (extracted.meter_score, extracted.rhyme_score) == (clean.meter_score, clean.rhyme_score)


@pytest.mark.parametrize(
    "poem",
    [
        POEM.replace("at noon,", "at noon (2)"),
        "He counted up the hours (12)\nand found them all too few;\n"
        "the clock said (1) and (2),\nthe bells said something new.",
    ],
)
def test_a_few_bracketed_numbers_in_verse_kept(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem
    assert result.notes == []


# --- "Line 1:" labels -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "restart"),
    [("Line {}: ", False), ("**Line {}:** ", False), ("L{}. ", False), ("Line {} - ", True)],
)
def test_line_labels_removed(label: str, restart: bool) -> None:
    result = extract_poem(prefixed_lines(POEM, label, restart))
    assert result.poem == POEM, result.notes
    assert any("'Line N:' labels" in note for note in result.notes)


def test_limerick_with_line_labels_keeps_its_meter_score() -> None:
    from poemetric.form.checker import check_poem

    answer = prefixed_lines(LIMERICK, "Line {}: ")
    clean = check_poem(LIMERICK, "limerick", None, "AABBA")
    extracted = check_poem(extract_poem(answer).poem, "limerick", None, "AABBA")
    assert extracted.meter_score == clean.meter_score


@pytest.mark.parametrize(
    "poem",
    [
        "Line 1: the kettle. Line 2: the door.\n" + POEM,
        "Line 3 of the letter said come home,\nLine 1 said nothing; line 2 said the same;\n"
        "Line 4 was torn along the fold.",
    ],
)
def test_verse_that_names_lines_kept(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem
    assert result.notes == []


# --- a title line that names the form: '"Title" — a sonnet' ----------------------------------------


@pytest.mark.parametrize(
    "title_line",
    [
        '"The Lantern-Maker" \u2014 a sonnet\n',
        "\u201cThe Lantern-Maker\u201d \u2013 A Petrarchan Sonnet\n",
        '"The Lantern-Maker" (a sonnet)\n',
        '"The Lantern-Maker", a sonnet in two quatrains\n\n',
        "The Lantern-Maker \u2014 a sonnet\n\n",
        "The Lantern-Maker (A Sonnet)\n\n",
        '**"The Lantern-Maker" \u2014 a sonnet**\n\n',
        "# The Lantern-Maker: A Sonnet\n\n",
    ],
)
def test_title_line_naming_the_form_removed(title_line: str) -> None:
    result = extract_poem(title_line + POEM)
    assert result.poem == POEM, result.notes
    assert result.title == "The Lantern-Maker"


@pytest.mark.parametrize(
    "first_line",
    [
        "The Lantern-Maker \u2014 a sonnet\n",
        "She sang it low, a ballad\n",
        '"Come in," he said \u2014 a ballad\n\n',
        "I made the lamp \u2014 a sonnet of glass\n\n",
    ],
)
def test_verse_first_line_naming_a_form_kept(first_line: str) -> None:
    poem = first_line + POEM
    result = extract_poem(poem)
    assert result.poem == poem, result.notes
    assert result.title is None
