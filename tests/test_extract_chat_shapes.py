"""Poem extraction against the answer shapes chat models produce, and against human poems.

All verse and chatter here was written for these tests. The human-poem checks run the extraction
over every poem of the bundled datasets (and, where present, the shared annotated corpus) and
require that nothing is removed from any of them.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_data_file

from poemetric.extraction import extract_poem

POEM = """The lantern-maker counts his glass at noon,
he sets the wicks like soldiers in a row;
the street outside is humming out of tune,
and every pane is waiting for the glow.

By dusk the shop is brighter than the square,
the children press their noses to the door;
he lights the last one, sets it on the stair,
and sweeps the little shadows off the floor."""

LIMERICK = """A fisher who came from Kildare
Caught nothing but weed and sea air.
He cast with a shout,
Pulled a wellington out,
And wore it that night to the fair!"""


def _content_lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]


# --- shapes the extraction already handles: kept as regression checks ---------------------------


@pytest.mark.parametrize(
    ("answer", "title"),
    [
        ("Here is a sonnet about a lantern-maker:\n\n" + POEM + "\n\nI hope you enjoy it!", None),
        (POEM + "\n\nLet me know if you'd like a different ending.", None),
        ("**The Lantern-Maker**\n\n" + POEM, "The Lantern-Maker"),
        ("# The Lantern-Maker\n\n" + POEM, "The Lantern-Maker"),
        ("Title: The Lantern-Maker\n\n" + POEM, "The Lantern-Maker"),
        ("```\n" + POEM + "\n```", None),
        ("Here's your poem:\n\n```text\n" + POEM + "\n```\n\nEnjoy!", None),
        ("\n".join(f"> {line}" if line else ">" for line in POEM.split("\n")), None),
        ("<think>\nABAB, then CDCD.\n</think>\n\n" + POEM, None),
        ("<reasoning>Two quatrains.</reasoning>\n" + POEM, None),
        ("\n".join(f"{line}  " if line else "" for line in POEM.split("\n")), None),
        (POEM.replace("\n\n", "\n   \n"), None),
        (POEM.replace("\n\n", "\n\u00a0\n"), None),
        (POEM + "\n\n---\n\nRhyme scheme: ABAB CDCD", None),
        (POEM + "\n\nNote: the second stanza turns to evening.", None),
        (POEM + "\n\nExplanation:\nThe lamps stand for patience.", None),
        (("Here is a poem:\n\n" + POEM + "\n\nEnjoy!").replace("\n", "\r\n"), None),
    ],
)
def test_common_wrappers_removed(answer: str, title: str | None) -> None:
    result = extract_poem(answer)
    assert result.poem == POEM, result.notes
    assert result.title == title
    if _content_lines(answer) != _content_lines(POEM):
        assert result.notes, "a removal must be reported"


def test_emphasis_inside_lines_removed_words_kept() -> None:
    answer = POEM.replace("noon", "*noon*").replace("glow", "__glow__").replace("dusk", "_dusk_")
    result = extract_poem(answer)
    assert result.poem == POEM
    assert any("emphasis" in note for note in result.notes)


def test_unterminated_think_leaves_no_poem() -> None:
    result = extract_poem("<think>\nFirst the rhyme words: noon, tune, row")
    assert result.poem == ""
    assert result.reasoning is not None


def test_refusal_is_left_for_screening() -> None:
    answer = "I'm sorry, but I can't help with that request."
    assert extract_poem(answer).poem == answer


@pytest.mark.parametrize(
    "first_line",
    ["Listen.", '"Come in," the lantern-maker said,', "He told the boy one thing: be slow,"],
)
def test_short_quoted_or_colon_first_lines_kept(first_line: str) -> None:
    poem = first_line + "\n" + POEM
    result = extract_poem(poem)
    assert result.poem == poem
    assert result.notes == []


def test_limerick_ending_with_exclamation_kept() -> None:
    result = extract_poem(LIMERICK)
    assert result.poem == LIMERICK
    assert result.notes == []


# --- human poems: nothing removed ----------------------------------------------------------------


def _assert_nothing_removed(texts: list[tuple[str, str]]) -> None:
    assert texts
    for name, text in texts:
        result = extract_poem(text)
        assert result.notes == [], (name, result.notes)
        assert _content_lines(result.poem) == _content_lines(text.lstrip("\ufeff")), name


def _contents(path: Path) -> list[tuple[str, str]]:
    rows = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))
    return [(f"{path.name}:{i}", row["content"]) for i, row in enumerate(rows) if row["content"]]


def test_bundled_dataset_poems_lose_nothing() -> None:
    files = sorted((REPO_ROOT / "datasets").glob("*/poems.csv"))
    assert files
    _assert_nothing_removed([item for path in files for item in _contents(path)])


def test_annotated_human_poems_lose_nothing() -> None:
    _assert_nothing_removed(_contents(shared_data_file("poemetric_human_poems_annotated.csv")))


# --- typographic apostrophes and no-break spaces in chatter -----------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "Here\u2019s a sonnet about a lantern-maker:\n\n" + POEM,
        "Sure! I\u2019ve written a poem in two quatrains for you:\n\n" + POEM,
        "Here\u00a0is a sonnet about a lantern-maker:\n\n" + POEM,
        "Here\u2019s a poem for you:\n\n**The Lantern-Maker**\n\n" + POEM,
        POEM + "\nI hope you\u2019ll enjoy it!",
    ],
)
def test_chatter_with_curly_apostrophes_or_nbsp_removed(answer: str) -> None:
    result = extract_poem(answer)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed") for note in result.notes)


def test_curly_apostrophes_in_verse_kept() -> None:
    poem = "Here\u2019s the lamp, and here\u2019s the wick,\n" + POEM
    assert extract_poem(poem).poem == poem


# --- HTML line breaks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "\n".join(f"{line}<br>" if line else "" for line in POEM.split("\n")),
        "\n".join(f"{line}<br />" if line else "<BR/>" for line in POEM.split("\n")),
        "<br>".join(POEM.split("\n")),
        POEM.replace("\n\n", "\n&nbsp;\n"),
    ],
)
def test_html_breaks_become_lines(answer: str) -> None:
    result = extract_poem(answer)
    assert result.poem == POEM, result.notes
    assert any("<br>" in note or "&nbsp;" in note for note in result.notes)


def test_html_breaks_in_limerick_keep_rhyme_words_plain() -> None:
    from poemetric.form.checker import check_poem

    answer = "<br>\n".join(LIMERICK.split("\n"))
    clean = check_poem(LIMERICK, "limerick", None, "AABBA")
    extracted = check_poem(extract_poem(answer).poem, "limerick", None, "AABBA")
    assert extracted.rhyme_score == clean.rhyme_score
    assert extracted.form_score == clean.form_score


# --- metadata after the poem: in brackets, glued to the last line, under a markdown heading -------


@pytest.mark.parametrize(
    "tail",
    [
        "\n\n(Word count: 71)",
        "\n(Word count: 71)",
        "\n\n(Rhyme scheme: ABAB CDCD)",
        "\nRhyme scheme: ABAB CDCD",
        "\n**Rhyme scheme:** ABAB CDCD\n**Meter:** iambic pentameter",
        "\n\n### Analysis\nThe shop becomes a small sun for the street.",
        "\n\n**Why this works:**\n- The second stanza turns from work to evening.",
    ],
)
def test_metadata_after_the_poem_removed(tail: str) -> None:
    result = extract_poem(POEM + tail)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "last_stanza",
    [
        "(and still the lamps burn on)",
        "(Form is the wick; the flame is what we are)",
        "## Coda\nThe glass is cold; the maker sleeps.",
    ],
)
def test_bracketed_or_headed_last_stanza_of_verse_kept(last_stanza: str) -> None:
    poem = POEM + "\n\n" + last_stanza
    assert _content_lines(extract_poem(poem).poem) == _content_lines(poem)


# --- alternatives: the first offered poem is the poem ---------------------------------------------


@pytest.mark.parametrize(
    ("answer", "title"),
    [
        ("Option 1:\n\n" + POEM + "\n\nOption 2:\n\n" + LIMERICK, None),
        (
            "**Option 1**\n" + POEM + "\n\n**Option 2**\n" + LIMERICK + "\n\nWhich do you prefer?",
            None,
        ),
        (
            "Here are two takes:\n\n### Version A: Lamps\n"
            + POEM
            + "\n\n### Version B\n"
            + LIMERICK,
            "Lamps",
        ),
        (
            "Poem 1: The Lantern-Maker\n\n" + POEM + "\n\nPoem 2: Kildare\n\n" + LIMERICK,
            "The Lantern-Maker",
        ),
        ("Option 1:\n```\n" + POEM + "\n```\n\nOption 2:\n```\n" + LIMERICK + "\n```", None),
    ],
)
def test_first_of_several_alternatives_kept(answer: str, title: str | None) -> None:
    result = extract_poem(answer)
    assert result.poem == POEM, result.notes
    assert result.title == title
    assert any("alternative poem(s) after the first" in note for note in result.notes)


@pytest.mark.parametrize(
    "poem",
    [
        "Option one: to stay, and keep the lamps alight,\nor go, and let the dark be.\n\n"
        "Option two: to wait for morning's light,\nand see what we can see.",
        "Version 2 of the evening ends in rain,\nthe lamps go out along the quay.\n\n"
        "Version 1 began the same again,\nwith you and me.",
    ],
)
def test_verse_that_names_options_kept(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem
    assert result.notes == []


# --- a title in quotes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        '"The Lantern-Maker"\n\n' + POEM,
        "\u201cThe Lantern-Maker\u201d\n\n" + POEM,
        'Here is a sonnet about a lantern-maker:\n\n"The Lantern-Maker"\n\n' + POEM,
    ],
)
def test_title_in_quotes_removed(answer: str) -> None:
    result = extract_poem(answer)
    assert result.poem == POEM, result.notes
    assert result.title == "The Lantern-Maker"


@pytest.mark.parametrize(
    "first_line",
    ['"Come In, Come In," The Maker Said', '"Stay," she said.', '"Lanterns," "Wicks," And "Glass"'],
)
def test_quoted_first_line_set_apart_kept(first_line: str) -> None:
    poem = first_line + "\n\n" + POEM
    assert extract_poem(poem).poem == poem


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
    "Thanks for the lovely prompt!",
    "I hope this made you smile!\nWould you like a version with a different rhyme scheme?",
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


# --- prose that describes the poem, with no chat marker --------------------------------------------

DESCRIPTIONS = [
    "This captures the quiet of a workshop at the end of the day, when light becomes a gift.",
    "In this poem, the harbour stands for the patience of the maker and his lamps.",
    "I've used slant rhymes in the second stanza to soften the close.",
    "— Written in iambic pentameter.",
    "*Written in iambic pentameter, rhymed ABAB CDCD.*",
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
    ],
)
def test_description_glued_to_the_last_line_removed(description: str) -> None:
    result = extract_poem(POEM + "\n" + description)
    assert result.poem == POEM, result.notes


@pytest.mark.parametrize(
    "stanza",
    [
        "In this poem, nobody dies.",
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


def _label_lines(poem: str, label: str, restart: bool = False) -> str:
    out, number = [], 0
    for line in poem.split("\n"):
        if not line:
            number = 0 if restart else number
            out.append("")
            continue
        number += 1
        out.append(label.format(number) + line)
    return "\n".join(out)


@pytest.mark.parametrize(
    ("label", "restart"),
    [("Line {}: ", False), ("**Line {}:** ", False), ("L{}. ", False), ("Line {} - ", True)],
)
def test_line_labels_removed(label: str, restart: bool) -> None:
    result = extract_poem(_label_lines(POEM, label, restart))
    assert result.poem == POEM, result.notes
    assert any("'Line N:' labels" in note for note in result.notes)


def test_limerick_with_line_labels_keeps_its_meter_score() -> None:
    from poemetric.form.checker import check_poem

    answer = _label_lines(LIMERICK, "Line {}: ")
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
