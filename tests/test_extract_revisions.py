"""Poem extraction of answers that revise a draft in the open ("Draft 1:" ... "Revised
version:" ...): the final version is the poem. And of verse and answers that only look so.

All verse here was written for these tests; the human-poem corpus checks live in
test_extract_human_poems.py and test_extract_chat_shapes.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from form_check_support import checked_answer

from poemetric.extraction import extract_poem
from poemetric.form.checker import check_poem

FINAL = """A tailor who lived in Carlisle
Sewed buttons in columns a mile.
When the mayor came by
He said, "Tailor, but why?"
And was fitted in buttons and style."""

DRAFT = """A tailor who lived in Carlisle
Sewed buttons on everything he owned.
When the mayor came walking by
He asked him the reason
And the tailor just smiled."""


@pytest.mark.parametrize(
    ("answer", "title"),
    [
        ("Draft 1:\n\n" + DRAFT + "\n\nRevised version:\n\n" + FINAL, None),
        (
            "Here's a limerick about a tailor.\n\n**Draft 1:**\n"
            + DRAFT
            + "\n\nLines 2 and 5 don't rhyme with line 1, and line 4 is off. Let me fix that."
            "\n\n**Revised version:**\n" + FINAL + "\n\nI hope you enjoy it!",
            None,
        ),
        ("First draft\n" + DRAFT + "\n\nFinal draft\n" + FINAL, None),
        ("## Draft\n\n" + DRAFT + "\n\n## Final Version: Buttons\n\n" + FINAL, "Buttons"),
        ("Draft 1\n" + DRAFT + "\n\nDraft 2\n" + FINAL, None),
        ("Draft 1:\n" + DRAFT + "\n\nDraft 2:\n" + DRAFT + "\n\nDraft 3:\n" + FINAL, None),
        (
            "Draft:\n"
            + DRAFT
            + "\n\nHere's the revised limerick, with the rhymes fixed:\n\n"
            + FINAL,
            None,
        ),
        # an unlabelled first attempt, a remark on it, then the final version
        (
            DRAFT + "\n\nThe rhymes don't work here.\n\nRevised version (rhymes fixed):\n" + FINAL,
            None,
        ),
        ("Draft 1:\n" + DRAFT + "\n\nRevised:\n" + FINAL, None),
    ],
)
def test_the_final_version_of_a_revised_draft_is_the_poem(answer: str, title: str | None) -> None:
    result = extract_poem(answer)
    assert result.poem == FINAL, result.notes
    assert result.title == title
    assert any(note.startswith("removed the earlier draft") for note in result.notes)
    assert any(note.startswith("removed the label of the final version") for note in result.notes)


def test_revised_limerick_passes_the_form_check() -> None:
    answer = "Draft 1:\n\n" + DRAFT + "\n\nRevised version:\n\n" + FINAL
    assert check_poem(extract_poem(answer).poem, "limerick").passed
    assert check_poem(FINAL, "limerick").passed


def test_form_check_reports_the_removed_draft(tmp_path: Path) -> None:
    answer = "Draft 1:\n\n" + DRAFT + "\n\nRevised version:\n\n" + FINAL
    record = checked_answer(tmp_path, answer, "limerick")
    assert record["passed"], record
    assert record["extraction"] == [
        "removed the earlier draft before the final version (6 lines from 'Draft 1:')",
        "removed the label of the final version: 'Revised version:'",
    ]


STANZA = """The kettle hums a tune it never learned,
the window fogs with everything we said;
the letters that we meant to write are burned,
the bread is cold, the candles have been fed."""

KEPT = [
    # "Final Version" as the poem's title: nothing before it to revise
    "Final Version\n\n" + STANZA,
    # a section headed "Revision" without a colon
    STANZA + "\n\nRevision\n\n" + STANZA,
    # a stanza label, not a version
    STANZA + "\n\nFinal stanza:\n\n" + STANZA,
    # verse naming a draft and a final version
    "The draft came in beneath the door\nand lifted every page.\n\n"
    "The final version of the day\nwas written by the rain.",
    # a revision label whose tail is verse
    STANZA + "\n\nRevised: the letters, and the bread, and you,\nthe kettle learning what to do.",
    # a label with nothing under it
    STANZA + "\n\nFinal version:",
    # verse before the first draft's label
    STANZA + "\n\nDraft 1:\n" + STANZA + "\n\nDraft 2:\n" + STANZA,
]


@pytest.mark.parametrize("text", KEPT)
def test_verse_that_names_drafts_or_versions_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text.removeprefix("Final Version\n\n"), result.notes
    assert all("draft" not in note for note in result.notes)


MORNING = """The sun corrects the shadows one by one,
the birds rewrite the silence into song,
the kettle argues that the night is done,
and proves, by boiling over, it was wrong."""

ANNOUNCED = """Here is the final poem, with the meter fixed:
no line too long, no stress that falls astray,
the rhymes all chime, the images are mixed
the way you mix the colours of the day."""


@pytest.mark.parametrize(
    "text",
    [
        # a titled second part of one poem, not a revision of the first
        STANZA + "\n\nRevision: Morning\n\n" + MORNING,
        STANZA + "\n\nRevision: Morning\n" + MORNING,
        # a verse line that announces a final poem, in a stanza shaped like the others
        STANZA + "\n\n" + MORNING + "\n\n" + ANNOUNCED,
    ],
)
def test_verse_shaped_like_a_revision_label_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.notes == []


def test_sections_titled_revision_keep_both_parts() -> None:
    result = extract_poem("Revision: Night\n\n" + STANZA + "\n\nRevision: Morning\n\n" + MORNING)
    assert result.poem == STANZA + "\n\nRevision: Morning\n\n" + MORNING, result.notes
    assert all("draft" not in note for note in result.notes)


@pytest.mark.parametrize(
    "answer",
    [
        # the announcing sentence over the final version, no blank line under it
        DRAFT + "\n\nHere is the final limerick, with the meter fixed:\n" + FINAL,
        "Draft 1:\n" + DRAFT + "\n\nRevision 2: Buttons\n" + FINAL,
    ],
)
def test_announced_or_titled_final_version_still_kept(answer: str) -> None:
    result = extract_poem(answer)
    assert result.poem == FINAL, result.notes
    assert any(note.startswith("removed the earlier draft") for note in result.notes)


#: The tailor limerick's first version, one rhyme off ("mile" -> "yard").
OFF = FINAL.replace("a mile.", "a yard.")
#: A second version, rhyming, then improved once more into FINAL.
MIDDLE = FINAL.replace("When the mayor came by", "When the mayor passed by")


@pytest.mark.parametrize(
    "answer",
    [
        OFF + '\n\nWait, "yard" doesn\'t rhyme with "Carlisle". Let me fix it:\n\n' + FINAL,
        "Here's a limerick about a tailor:\n\n" + OFF + "\n\nLet me revise:\n\n" + FINAL,
        OFF + "\n\nHmm, line 2 doesn't rhyme. Here's a corrected version:\n" + FINAL,
        OFF
        + '\n\nLine 2 ends in "yard", which breaks the AABBA scheme.\nLet me fix that.\n\n'
        + FINAL
        + "\n\nI hope you enjoy it!",
        # the cue, then a one-line remark, then the version
        OFF
        + "\n\nLet me fix that.\n\nLine 2 should end in a rhyme for Carlisle, like mile.\n\n"
        + FINAL,
        # a remark in a paragraph of its own, then the cue
        OFF
        + "\n\nWait, line 2 doesn't rhyme with line 1.\n\nLet me rewrite the limerick:\n\n"
        + FINAL,
        # rewritten twice: the last complete version is the poem
        OFF
        + "\n\nLet me fix it:\n\n"
        + MIDDLE
        + '\n\n"Passed" is flat. Let me revise:\n\n'
        + FINAL,
    ],
)
def test_the_last_rewrite_after_a_cue_is_the_poem(answer: str) -> None:
    result = extract_poem(answer)
    assert result.poem == FINAL, result.notes
    assert any(note.startswith("removed the earlier version") for note in result.notes)
    assert any(note.startswith("removed the line introducing the rewrite") for note in result.notes)


@pytest.mark.parametrize(
    "partial",
    [
        # a fixed line alone, not a whole version
        'Actually, line 4 could be smoother. Let me fix it:\n\nHe said, "Tailor, but why?"',
        # the answer stops in the middle of another rewrite
        "Hmm, let me try again:\n\nA tailor who lived in Carlisle\nSewed buttons",
    ],
)
def test_an_incomplete_rewrite_after_the_last_complete_version_removed(partial: str) -> None:
    answer = OFF + "\n\nLet me fix it:\n\n" + FINAL + "\n\n" + partial
    result = extract_poem(answer)
    assert result.poem == FINAL, result.notes
    assert any(note.startswith("removed an incomplete rewrite") for note in result.notes)


def test_rewritten_limerick_passes_the_form_check(tmp_path: Path) -> None:
    answer = OFF + "\n\nWait, line 2 doesn't rhyme. Let me fix it:\n\n" + FINAL
    assert not check_poem(OFF, "limerick").passed
    record = checked_answer(tmp_path, answer, "limerick")
    assert record["passed"], record
    assert record["extraction"] == [
        "removed the earlier version before the rewrite (5 lines from 'A tailor who lived in "
        "Carlisle')",
        'removed the line introducing the rewrite: "Wait, line 2 doesn\'t rhyme. Let me fix it:"',
    ]


SHORE = """I start the morning over with the tide,
the gulls erase the footprints on the shore;
the harbour keeps the boats on either side,
and I begin the page I wrote before."""

REWRITE_LIKE_VERSE = [
    # a one-line stanza that reads like a cue, between stanzas of other words
    STANZA + "\n\nLet me try again.\n\n" + SHORE,
    STANZA + "\n\nSo let me fix it:\n\n" + SHORE,
    # the cue closes a stanza shaped like the others
    STANZA
    + "\n\nI broke the vase, and so I said,\nthe glue, the shards, the evening on the floor,\n"
    "the patience that the broken things have fed:\nlet me fix it:\n\n" + STANZA,
    # a stanza repeated after a cue, but only part of the first version's shape
    STANZA + "\n\n" + SHORE + "\n\nLet me try again:\n\n" + STANZA,
]


@pytest.mark.parametrize("text", REWRITE_LIKE_VERSE)
def test_verse_with_a_rewrite_cue_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.notes == []


# Written for these tests: a limerick whose last line misses the rhyme, and a rewrite from
# scratch that keeps almost none of its words, as a model that starts over writes it.
GARDENER = """A gardener living in Bath
Grew roses along every path.
She watered them daily
And sang to them gaily,
But the neighbours would laugh at her."""

BAKER = """A baker who lived by the sea
Made scones that were fluffy and free.
The gulls used to swoop
On his crumbs in a group,
And he fed them the crusts after tea."""

#: A haiku with eight syllables in its second line, and another written in its place.
FROST = """Frost on the window
the kettle clears its throat twice
a sparrow waits, still"""

DUSK = """Evening settles in
a heron lifts from the reeds
the pond keeps its light"""


def _shared(first: str, second: str) -> float:
    """The share of `first`'s words (three letters or more) that `second` keeps."""
    words = [set(re.findall(r"[a-z]{3,}", text.lower())) for text in (first, second)]
    return len(words[0] & words[1]) / len(words[0])


@pytest.mark.parametrize(
    "answer",
    [
        "Here's a limerick:\n\n" + GARDENER + "\n\nLet me try again:\n\n" + BAKER,
        # the cue after a remark on what is wrong, which opens like reasoning
        GARDENER
        + '\n\nWait, the last line doesn\'t rhyme with "Bath" and "path". Let me try again:\n\n'
        + BAKER,
        GARDENER + "\n\nHmm, the rhymes are off in line 5. Here is a revised version:\n\n" + BAKER,
        # a label on its own (kept before too, by the labelled-final rule)
        GARDENER + "\n\nHere is a revised version:\n\n" + BAKER,
        # the remark in a paragraph of its own, then the cue
        GARDENER + "\n\nThat ending falls flat.\n\nActually, I'll start over:\n\n" + BAKER,
        GARDENER + "\n\nThe meter stumbles in the last line. Let me fix it:\n\n" + BAKER,
        GARDENER + "\n\nLet me rewrite the limerick:\n\n" + BAKER + "\n\nI hope you enjoy it!",
    ],
)
def test_a_rewrite_from_scratch_after_a_cue_is_the_poem(answer: str) -> None:
    """A model that starts over writes a version with other words: the last complete version is
    the one it stands by (the first was kept, or the rewrite moved to reasoning)."""
    assert _shared(GARDENER, BAKER) < 0.5
    result = extract_poem(answer)
    assert result.poem == BAKER, result.notes
    assert result.reasoning is None
    assert any(note.startswith("removed the earlier") for note in result.notes)


def test_a_haiku_rewritten_from_scratch_twice_keeps_the_last() -> None:
    middle = "Snow on the doorstep\nthe dog sniffs at yesterday\nthe mailman is late"
    answer = (
        "Here is a haiku about winter:\n\n"
        + FROST
        + "\n\nHmm, the second line has eight syllables, not seven. Let me try again:\n\n"
        + middle
        + "\n\nThat one drifts away from the theme. Let me try again:\n\n"
        + DUSK
    )
    result = extract_poem(answer)
    assert result.poem == DUSK, result.notes
    assert result.reasoning is None


def test_limerick_rewritten_from_scratch_passes_the_form_check(tmp_path: Path) -> None:
    answer = GARDENER + "\n\nWait, line 5 doesn't rhyme. Let me try again:\n\n" + BAKER
    assert not check_poem(GARDENER, "limerick").passed
    record = checked_answer(tmp_path, answer, "limerick")
    assert record["passed"], record
    assert record["extraction"] == [
        "removed the earlier version before the rewrite (5 lines from 'A gardener living in Bath')",
        "removed the line introducing the rewrite: \"Wait, line 5 doesn't rhyme. Let me try "
        'again:"',
    ]


@pytest.mark.parametrize(
    "text",
    [
        # a cue-like line of verse announcing a new start, not introducing it with a colon
        STANZA + "\n\nI'll start over.\n\n" + SHORE,
        STANZA + "\n\nSo let me try again.\n\n" + SHORE,
    ],
)
def test_verse_announcing_a_new_start_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.notes == []
