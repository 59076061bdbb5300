"""Stanza labels written as markdown headings ("### Stanza 1" ... "### Stanza 2") lost only the
first (taken for the title); the others stayed in the poem with their hashes, as lines the form
check counted. A song's labels ("Bridge:", "Outro:") after "Verse 1:" stayed too. They are
removed as stanza labels; a verse line that names a bridge stays.

All verse here was written for these tests.
"""

from __future__ import annotations

import pytest

from poemetric.extraction import extract_poem

A = "The lantern-maker counts his glass at noon,\nhe sets the wicks like soldiers in a row;"
B = "the street outside is humming out of tune,\nand every pane is waiting for the glow."
C = "By dusk the shop is brighter than the square,\nthe children press their noses to the door;"
POEM = f"{A}\n\n{B}\n\n{C}"


@pytest.mark.parametrize(
    "labels",
    [
        ("### Stanza 1", "### Stanza 2", "### Stanza 3"),
        ("## Tercet 1", "## Tercet 2", "## Quatrain"),
        ("#### **Stanza 1**", "#### **Stanza 2**", "#### **Stanza 3**"),
        ("Verse 1:", "Bridge:", "Outro:"),
        ("**Intro**", "**Verse 1**", "**Bridge**"),
    ],
)
def test_stanza_labels_as_headings_or_song_parts_are_removed(labels: tuple[str, ...]) -> None:
    answer = "\n\n".join(
        f"{label}\n{stanza}" for label, stanza in zip(labels, (A, B, C), strict=True)
    )
    result = extract_poem(answer)
    assert result.poem == POEM, result.notes
    assert sum(note.startswith("removed stanza label") for note in result.notes) == 3


def test_a_verse_line_naming_a_bridge_stays() -> None:
    answer = f"{A}\nBridge, and river, and the road.\n\n{B}"
    assert extract_poem(answer).poem == answer
