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


def prefixed_lines(poem: str, prefix: str, restart: bool = False) -> str:
    """`poem` with `prefix` (a format string given the line's number, "Line {}: ", "{}. ") before
    each verse line, numbered on through the poem or from 1 again in each stanza (`restart`)."""
    out, number = [], 0
    for line in poem.split("\n"):
        if not line:
            number = 0 if restart else number
            out.append("")
            continue
        number += 1
        out.append(prefix.format(number) + line)
    return "\n".join(out)


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
    assert any("alternative poem" in note and "after the first" in note for note in result.notes)


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
