"""Poem extraction of answers that reason after the poem ("Wait, let me double-check the
rhyme...", "Let me count the syllables: ..."): the reasoning is moved to the reasoning, not kept
as verse. And of verse whose stanzas open like such reasoning.

All verse here was written for these tests; the human-poem corpus checks live in
test_extract_human_poems.py and test_extract_chat_shapes.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from form_check_support import checked_answer

from poemetric.extraction import extract_poem
from poemetric.form.checker import check_poem

LIMERICK = """A potter who worked in Penzance
Made teapots that wanted to dance.
They would spin on the tray
In a whirl of ballet,
And the cups would all join in by chance."""

REASONING = [
    "Wait, let me double-check the rhyme.\nPenzance / dance / chance: yes.\n"
    "Tray / ballet: yes.\nGood, the limerick works.",
    "Let me count the syllables:\nA pot-ter who worked in Pen-zance (8)\n"
    "Made tea-pots that want-ed to dance (8)\nThey would spin on the tray (6)",
    "Hmm, line 4 might have a beat too many...\n\nNo, it reads fine. The final answer stands.",
    "Checking the rhyme scheme: AABBA.\nLines 1, 2 and 5 end in -ance; 3 and 4 in -ay.",
    "I need to verify the meter.\nda-DUM-da-da-DUM-da-da-DUM",
]


@pytest.mark.parametrize("reasoning", REASONING)
def test_reasoning_after_the_poem_moved_to_reasoning(reasoning: str) -> None:
    result = extract_poem(LIMERICK + "\n\n" + reasoning)
    assert result.poem == LIMERICK, result.notes
    assert result.reasoning == reasoning
    assert len(result.notes) == 1 and result.notes[0].startswith("moved ")
    assert "of reasoning after the poem to reasoning" in result.notes[0]


def test_reasoning_after_the_poem_joins_the_models_own_reasoning() -> None:
    answer = "<think>A potter, a dance.</think>\n\n" + LIMERICK + "\n\n" + REASONING[0]
    result = extract_poem(answer, reasoning="Plan: AABBA.")
    assert result.poem == LIMERICK
    assert result.reasoning == "Plan: AABBA.\n\nA potter, a dance.\n\n" + REASONING[0]


def test_limerick_with_reasoning_after_it_passes_the_form_check() -> None:
    answer = "Here's a limerick:\n\n" + LIMERICK + "\n\n" + REASONING[1] + "\n\nI hope you like it!"
    extracted = check_poem(extract_poem(answer).poem, "limerick")
    clean = check_poem(LIMERICK, "limerick")
    assert clean.passed and extracted.passed
    assert extracted.form_score == clean.form_score == 1.0


def test_form_check_reports_the_moved_reasoning(tmp_path: Path) -> None:
    answer = LIMERICK + "\n\n" + REASONING[0]
    record = checked_answer(tmp_path, answer, "limerick")
    assert record["passed"], record
    assert record["extraction"] == [
        "moved 4 lines of reasoning after the poem to reasoning, from "
        "'Wait, let me double-check the rhyme.'"
    ]


STANZA = """The kettle hums a tune it never learned,
the window fogs with everything we said;
the letters that we meant to write are burned,
the bread is cold, the candles have been fed."""

KEPT = [
    # opens like reasoning but speaks of no metre, line or scheme
    STANZA + "\n\nWait, the rhyme of rain upon the roof\nis how your footsteps used to fall.",
    STANZA + "\n\nLet me check the rhyme of your laughter.\nIt ran like water down the hall.",
    STANZA + "\n\nLet me count the ways the morning breaks:\nthe kettle, and the bread, and you.",
    STANZA + "\n\nHmm, said the owl, the night is long.\nThe mice agreed, and sang along.",
    STANZA + "\n\nI see the metre of the sea.\nI count the waves, and you count me.",
    # speaks of syllables but runs on like verse
    STANZA + "\n\nLet me count the syllables of your name,\nthree small bells along the lane.",
    # reasoning-like words in the first paragraph: never reasoning after the poem
    "Wait, let me count the syllables in line one.\nThe kettle knows, the bread knows too.\n\n"
    + STANZA,
]


@pytest.mark.parametrize("text", KEPT)
def test_verse_that_opens_like_reasoning_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.reasoning is None
