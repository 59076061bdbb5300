"""A section of notes after the poem under a header that opens with no commentary word ("**A few
notes on the limerick:**", "**Here's a breakdown of the form:**", "**Rhyme and meter:**", "Some
notes on the form:" over bullets) stayed in the poem with its bullets: the form check counted a
limerick of eight lines, and the judge read the analysis as verse. Such a header is a closing
remark in markdown or over bullets; a stanza that opens with the same words stays.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import LIMERICK, POEM

from poemetric.extraction import extract_poem

BULLETS = (
    "* **AABBA rhyme scheme:** Kildare/air/fair, shout/out\n"
    "* **Anapestic meter:** the rhythm bounces along."
)

HEADERS = [
    "**A few notes on the limerick:**",
    "**Some notes on the poem:**",
    "**A few notes:**",
    "### Things to note:",
    "**Here's a breakdown of the limerick:**",
    "**Here's how it follows the limerick form:**",
    "**How it fits the form:**",
    "**Poetic choices:**",
    "**Rhyme and meter:**",
    "**My approach:**",
    "**Craft notes:**",
]


@pytest.mark.parametrize("header", HEADERS)
@pytest.mark.parametrize("gap", ["\n\n", "\n\n---\n\n", "\n"])
def test_a_notes_section_in_markdown_is_removed(header: str, gap: str) -> None:
    result = extract_poem(f"{LIMERICK}{gap}{header}\n{BULLETS}")
    assert result.poem == LIMERICK, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "section",
    [
        "Some notes on the form:\n- Rhyme scheme AABBA.\n- Anapestic metre.",
        "A few notes:\n- The baker floats away at the end.\n- The rhymes are perfect.",
        "**Rhyme and meter:**\n\nThe limerick follows AABBA in anapestic trimeter and dimeter.",
    ],
)
def test_a_plain_header_over_bullets_or_a_marked_one_over_prose_is_removed(section: str) -> None:
    assert extract_poem(f"{LIMERICK}\n\n{section}").poem == LIMERICK


@pytest.mark.parametrize(
    "stanza",
    [
        "Some notes of the thrush drift down:\nthe garden holds them, one by one,\n"
        "and lets them go into the sun.",
        "A few notes from the old piano:\nthe keys are yellow, the hammers slow,\n"
        "and all the tunes I used to know.",
        "Here's how it ends:\nthe lamp goes out, the door swings wide,\n"
        "and no one waits for me inside.",
        "My approach:\nI walk the shore and call your name,\nand every wave comes back the same.",
        "Rhyme and meter:\nthe river keeps them, line by line,\nand every bend a little sign.",
    ],
)
def test_a_stanza_opening_with_the_same_words_stays(stanza: str) -> None:
    answer = f"{POEM}\n\n{stanza}"
    assert extract_poem(answer).poem == answer


def test_a_bold_header_over_verse_that_runs_on_stays() -> None:
    stanza = (
        "**Things to note:**\nthe way the lamp goes out at nine,\nthe way the door swings shut."
    )
    result = extract_poem(f"{POEM}\n\n{stanza}")
    assert result.poem == f"{POEM}\n\nThings to note:\n" + "\n".join(stanza.split("\n")[1:])
