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


#: A poem about writing poems: its last stanza opens like reasoning and names the mechanics.
META = """I set the table for a guest who's late,
the kettle hums a tune it never learned,
the window holds the evening like a plate,
the letters that we meant to send are burned.

I write you poems in the common way,
a line, a breath, a line, a longer breath,
and every word I choose is here to stay
until the rhyme has talked me out of death."""

META_ENDINGS = [
    "Let me count the syllables of your name.\nOne for the morning, two for the rain,\n"
    "three for the letters that never came,\nand none for the silence after the train.",
    "Wait, let me check the meter of the day.\nThe morning limps, the noon is running fast,\n"
    "the evening stumbles, then it finds its way,\nand night is measured out in beats that last.",
    "Hmm, line 3 is where the garden blooms.\nLine 4 is where the gate is left ajar,\n"
    "and in between, the lamplight fills the rooms\nand every stanza ends beneath a star.",
]


@pytest.mark.parametrize("ending", META_ENDINGS)
def test_stanza_that_opens_like_reasoning_kept(ending: str) -> None:
    text = META + "\n\n" + ending
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.reasoning is None and result.notes == []


META_REASONING = [
    # as many lines as a stanza, but an analysis line by line
    "Wait, let me check the meter of each line.\nLine 1: ten syllables, good.\n"
    "Line 2: ten, good.\nLine 3: eleven, one too many.",
    # the poem's lines quoted back
    "Let me check the rhyme scheme of the first stanza.\nI set the table for a guest who's late,\n"
    "the window holds the evening like a plate,\nlate and plate: a full rhyme.",
    # lines much longer than the poem's
    "Hmm, let me reconsider the meter.\nThe second stanza keeps the iambic pentameter "
    "throughout, although the second line is deliberately broken up by commas.\n"
    "I think it works as it is, so I will leave it.",
]


@pytest.mark.parametrize("reasoning", META_REASONING)
def test_reasoning_after_a_poem_in_stanzas_moved(reasoning: str) -> None:
    result = extract_poem(META + "\n\n" + reasoning)
    assert result.poem == META, result.notes
    assert result.reasoning == reasoning


SONNET = """The harbour wakes before the gulls can call,
the ropes are stiff with salt and last night's rain;
a lantern gutters by the fish-house wall,
and boats come nodding up the tide again.
The nets are mended by a patient hand
that learned its knots before it learned to write;
the tar, the creak, the shifting of the sand
are all the hymns it ever sang at night.
I watched him once, when I was nine or ten,
untangle in an hour a winter's wreck;
he never spoke of storms, or drowned men,
but kept a cord of silence round his neck.
  And still the harbour wakes, and still I find
  his knots in every rope I leave behind."""

GLUED_REMARKS = [
    "This sonnet follows ABAB CDCD EFEF GG with iambic pentameter.",
    "The rhyme scheme is ABAB CDCD EFEF GG, in iambic pentameter.",
    "Each line has 10 syllables, rhyme scheme ABAB CDCD EFEF GG.",
    "This follows the ABAB CDCD EFEF GG rhyme scheme.",
]


@pytest.mark.parametrize("remark", GLUED_REMARKS)
def test_meta_sentence_glued_to_the_last_line_removed(remark: str) -> None:
    separated = extract_poem(SONNET + "\n\n" + remark)
    glued = extract_poem(SONNET + "\n" + remark)
    assert glued.poem == separated.poem == SONNET, glued.notes
    assert glued.notes == [f"removed closing remark: {remark!r}"]


GLUED_CHECKS = [
    "Let me check: ABAB CDCD EFEF GG, iambic pentameter. Good.",
    "Checking the rhyme scheme: ABAB CDCD EFEF GG. All lines scan.",
    "Wait, let me double-check the meter: 10 syllables in each line.",
]


@pytest.mark.parametrize("check", GLUED_CHECKS)
def test_self_check_glued_to_the_last_line_moved_to_reasoning(check: str) -> None:
    result = extract_poem(SONNET + "\n" + check)
    assert result.poem == SONNET, result.notes
    assert result.reasoning == check
    assert result.notes == [
        f"moved a self-check glued under the poem's last line to reasoning: {check!r}"
    ]


def test_sonnet_with_a_glued_remark_passes_the_form_check(tmp_path: Path) -> None:
    record = checked_answer(tmp_path, SONNET + "\n" + GLUED_REMARKS[0], "sonnet")
    clean = check_poem(SONNET, "sonnet")
    assert record["passed"] and clean.passed, record
    assert record["form_score"] == clean.form_score
    assert record["extraction"] == [f"removed closing remark: {GLUED_REMARKS[0]!r}"]


META_LAST_LINES = [
    # verse naming the metre, no longer than the poem's lines
    "The sonnet keeps its iambic pentameter.",
    # self-talk in verse that names no scheme, metre or count exactly
    "Let me count the syllables of your name.",
    "Wait, the rhyme scheme of the tide is slow.",
    # self-talk naming the metre, as long as a verse line, with no analysis
    "Wait, let me check the meter: iambic, true.",
]


@pytest.mark.parametrize("last", META_LAST_LINES)
def test_meta_poem_last_line_glued_kept(last: str) -> None:
    text = META + "\n" + last
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.notes == [] and result.reasoning is None


def test_meta_sentence_after_a_line_that_runs_on_kept() -> None:
    # the poem's own sentence runs into the last line: verse, not a remark under it
    text = SONNET.replace("behind.", "behind,") + "\n" + GLUED_REMARKS[0]
    result = extract_poem(text)
    assert result.poem == text, result.notes


# Written for this test: a poem about learning metre, in quatrains, whose last quatrain ends on
# a line naming the metre, longer than the poem's other lines (and rhyming "mine" with "line").
METRE_LESSON = """My teacher made us count on every hand,
the stresses falling soft and then so hard,
until the lines marched past us like a band
of soldiers drilling in a cold school yard.

Now, forty years along, I write to you
in the old way she taught me, line by line,
and count the beats the way she made us do."""

QUATRAIN_ENDINGS = [
    "My sonnet limps in iambic pentameter, its meter lame as mine.",
    "The meter's iambic, the syllables ten, the rhyme scheme mine.",
    "Let me count again: ten syllables, iambic, every line of mine.",
]


@pytest.mark.parametrize("last", QUATRAIN_ENDINGS)
def test_last_line_completing_a_stanza_shaped_like_the_others_kept(last: str) -> None:
    """A glued line that makes the last stanza a quatrain like the one before it is the poem's
    last line, not a remark under it (it was removed, leaving a stanza of three lines)."""
    text = METRE_LESSON + "\n" + last
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.notes == [] and result.reasoning is None


@pytest.mark.parametrize("remark", [*GLUED_REMARKS, *GLUED_CHECKS])
def test_remark_glued_under_a_poem_of_stanzas_removed(remark: str) -> None:
    """Under a poem of quatrains, a remark glued to the last one makes a stanza of five lines."""
    result = extract_poem(META + "\n" + remark)
    assert result.poem == META, result.notes


def test_remark_glued_under_the_last_tercet_of_a_sonnet_removed() -> None:
    """A Petrarchan layout (4, 4, 3, 3): the remark makes the last stanza a quatrain like the
    first two, but without it the stanza is a tercet like the one before: it stays a remark."""
    lines = SONNET.split("\n")
    sonnet = "\n\n".join("\n".join(lines[a:b]) for a, b in ((0, 4), (4, 8), (8, 11), (11, 14)))
    for remark in GLUED_REMARKS:
        result = extract_poem(sonnet + "\n" + remark)
        assert result.poem == sonnet, result.notes


# Written for this test: a poem about a father who taught metre, and one-line final stanzas
# naming the metre once or twice, as such a poem may end.
COUNTING_FATHER = """My father counted feet on kitchen chairs,
He tapped the table softly with his thumb,
And taught me how a careful line declares
The steady beat of where it's coming from.

He loved the old iambic, four by four,
The rising step, the falling of the foot,
And never needed anything much more
Than one good line to settle where to put."""
FINAL_ONE_LINE_STANZAS = [
    "It scans as iambic tetrameter, as he would want.",
    "Every line he tapped was iambic, every meter his.",
]


@pytest.mark.parametrize("last", FINAL_ONE_LINE_STANZAS)
def test_one_line_final_stanza_naming_the_metre_kept(last: str) -> None:
    """A line set apart as the last stanza was removed by the glued-remark rule for being
    longer than the poem's lines and naming the metre; set apart, only a scheme in capitals or
    three names of the mechanics make it a remark there (the line was kept before that rule)."""
    text = COUNTING_FATHER + "\n\n" + last
    result = extract_poem(text)
    assert result.poem == text, result.notes


def test_one_line_remark_set_apart_with_a_scheme_in_capitals_removed() -> None:
    text = COUNTING_FATHER + "\n\nThis follows the ABAB CDCD rhyme scheme."
    result = extract_poem(text)
    assert result.poem == COUNTING_FATHER, result.notes
