"""Poem extraction of answers that mark the rhyme scheme at each line's end ("... hill (A)",
"... hill — A"), and of verse that only ends a line or a few in a bracketed or dashed letter.

All verse here was written for these tests; the human-poem corpus checks live in
test_extract_human_poems.py and test_extract_chat_shapes.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from form_check_support import checked_answer

from poemetric.extraction import extract_poem
from poemetric.form.checker import check_poem

LIMERICK = """A baker who lived in Dundee
Baked bread that was lighter than tea.
It rose through the roof,
Which served as the proof,
And floated away to the sea."""

QUATRAINS = """The sun goes down behind the hill,
the swallows stitch the evening shut;
the mill-wheel turns and then is still,
the farmer latches up his hut.

The lamps come on along the lane,
the dog lies down beside the gate;
the first few drops of summer rain
remind the orchard it is late."""


def lettered(poem: str, scheme: str, style: str) -> str:
    """`poem` with a letter of `scheme` (one per verse line) written after each line in `style`
    ("{line} ({letter})", "{line} — {letter}")."""
    letters = iter(scheme)
    return "\n".join(
        style.format(line=line, letter=next(letters)) if line else line for line in poem.split("\n")
    )


@pytest.mark.parametrize(
    "style",
    [
        "{line} ({letter})",
        "{line} [{letter}]",
        "{line} *({letter})*",
        "{line} - {letter}",
        "{line} — {letter}",
        "{line}—{letter}",
        "{line} – **{letter}**",
    ],
)
@pytest.mark.parametrize(("poem", "scheme"), [(LIMERICK, "AABBA"), (QUATRAINS, "ABABCDCD")])
def test_scheme_letters_at_line_ends_removed(poem: str, scheme: str, style: str) -> None:
    result = extract_poem(lettered(poem, scheme, style))
    assert result.poem == poem, result.notes
    assert any(
        note.startswith(f"removed rhyme-scheme letters at the end of {len(scheme)} lines")
        for note in result.notes
    )


def test_lower_case_and_refrain_letters_removed() -> None:
    answer = lettered(QUATRAINS, "ababcdcd", "{line} ({letter})").replace("(a)", "(A1)", 1)
    result = extract_poem(answer)
    assert result.poem == QUATRAINS, result.notes


@pytest.mark.parametrize("style", ["{line} (8) ({letter})", "{line} [8] - {letter}"])
def test_syllable_count_before_the_letter_removed_too(style: str) -> None:
    # "... Peru (8) (A)": the count is at the line's end only once the letter is removed
    result = extract_poem(lettered(LIMERICK, "AABBA", style))
    assert result.poem == LIMERICK, result.notes


def test_lettered_limerick_passes_the_form_check_as_the_clean_one_does() -> None:
    clean = check_poem(LIMERICK, "limerick")
    for style in ("{line} ({letter})", "{line} — {letter}"):
        extracted = check_poem(extract_poem(lettered(LIMERICK, "AABBA", style)).poem, "limerick")
        assert extracted.passed and clean.passed
        assert (extracted.meter_score, extracted.rhyme_score, extracted.form_score) == (
            clean.meter_score,
            clean.rhyme_score,
            clean.form_score,
        )


def test_form_check_reports_the_removed_letters(tmp_path: Path) -> None:
    answer = "Here is a limerick about a baker:\n\n" + lettered(
        LIMERICK, "AABBA", "{line} ({letter})"
    )
    record = checked_answer(tmp_path, answer, "limerick")
    assert record["passed"], record
    assert (
        "removed rhyme-scheme letters at the end of 5 lines, such as '(A)'" in record["extraction"]
    )


VERSE = [
    # a refrain of "— I" answering each question: one letter, as no rhyme scheme is
    "Who broke the vase? — I\nWho swept the floor? — I\nWho sang at dawn? — I\nWho wept? — I",
    # a letter or two in brackets, as a verse line may end
    QUATRAINS.replace("hill,", "hill (A)").replace("shut;", "shut (B)"),
    # every line lettered, but every letter different: a list, not a scheme
    lettered(QUATRAINS, "ABCDEFGH", "{line} ({letter})"),
    # a dash and a capitalised word, not a letter
    "We waited for the ferry — Anna\nand I, and the gulls — Bess\nand the dog — Anna again",
    # capitals answering questions, with one coming back: not lettered from A as a scheme is
    "Who walks the road at dusk (I)\nWho hears the owl (O)\nWho keeps the keys (I)\n"
    "And who the bell (O)",
    "The tower falls; who remains? — I\nThe river asks; who replies? — O\n"
    "The hour ends; who is left? — I\nThe lamp goes out; who mourns it? — O",
]


@pytest.mark.parametrize("poem", VERSE)
def test_verse_ending_in_a_few_letters_kept(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem
    assert result.notes == []


def labelled(poem: str, scheme: str, counts: list[int], style: str) -> str:
    """`poem` with a label of a scheme letter and a syllable count after each verse line, in
    `style` ("{line} ({letter}, {count})")."""
    marks = iter(zip(scheme, counts, strict=True))
    out = []
    for line in poem.split("\n"):
        if line:
            letter, count = next(marks)
            line = style.format(line=line, letter=letter, count=count)
        out.append(line)
    return "\n".join(out)


LABEL_STYLES = [
    "{line} ({letter}, {count})",
    "{line} ({letter} {count})",
    "{line} [{letter}, {count}]",
    "{line} ({count}, {letter})",
    "{line} *({letter}, {count})*",
    "{line} ({letter}, {count} syllables)",
    "{line} ({letter}; {count})",
    "{line} ({letter} - {count})",
    "{line} ({letter} – {count})",
    "{line} [{letter}—{count}]",
    "{line} ({count} - {letter})",
]


@pytest.mark.parametrize("style", LABEL_STYLES)
@pytest.mark.parametrize(
    ("poem", "scheme", "counts"),
    [(LIMERICK, "AABBA", [8, 8, 5, 5, 8]), (QUATRAINS, "ABABCDCD", [8] * 8)],
)
def test_scheme_letter_and_count_labels_removed(
    poem: str, scheme: str, counts: list[int], style: str
) -> None:
    result = extract_poem(labelled(poem, scheme, counts, style))
    assert result.poem == poem, result.notes
    assert any(
        note.startswith(
            f"removed rhyme-scheme letters and syllable counts at the end of {len(scheme)} lines"
        )
        for note in result.notes
    )


def test_labelled_limerick_passes_the_form_check(tmp_path: Path) -> None:
    answer = "Here's your limerick:\n\n" + labelled(
        LIMERICK, "AABBA", [8, 8, 5, 5, 8], "{line} ({letter}, {count})"
    )
    record = checked_answer(tmp_path, answer, "limerick")
    assert record["passed"], record
    assert record["extraction"] == [
        'removed preamble: "Here\'s your limerick:"',
        "removed rhyme-scheme letters and syllable counts at the end of 5 lines, such as '(A, 8)'",
    ]


# Written for this test: a sonnet answer whose lines end in a scheme letter and a syllable
# count after a dash, as some chat models label them.
DASHED_SONNET_ANSWER = """Here is a Shakespearean sonnet about the harbour at dawn:

The harbour wakes before the gulls can call, (A - 10)
the ropes are stiff with salt and last night's rain; (B - 10)
a lantern gutters by the fish-house wall, (A - 10)
and boats come nodding up the tide again. (B - 10)

The nets are mended by a patient hand (C – 10)
that learned its knots before it learned to write; (D – 10)
the tar, the creak, the shifting of the sand (C – 10)
are all the hymns it ever sang at night. (D – 10)"""


def test_dashed_letter_and_count_labels_of_a_chat_answer_removed() -> None:
    result = extract_poem(DASHED_SONNET_ANSWER)
    assert "(A" not in result.poem and "(C" not in result.poem, result.notes
    assert result.poem.split("\n")[0] == "The harbour wakes before the gulls can call,"
    assert result.poem.split("\n")[5] == "The nets are mended by a patient hand"
    assert (
        "removed rhyme-scheme letters and syllable counts at the end of 8 lines, such as '(A - 10)'"
    ) in result.notes


@pytest.mark.parametrize(
    "poem",
    [
        # capitals and a count answering questions: not lettered from A as a scheme is
        "Who walks the road at dusk (I, 6)\nWho hears the owl (O, 4)\nWho keeps the keys (I, 4)\n"
        "And who the bell (O, 4)",
        "Who walks the road at dusk (I - 6)\nWho hears the owl (O - 4)\n"
        "Who keeps the keys (I - 4)\nAnd who the bell (O - 4)",
        # one line labelled, as a verse line may end
        QUATRAINS.replace("hill,", "hill, (A, 8)"),
        # every line labelled, every letter different
        labelled(QUATRAINS, "ABCDEFGH", [8] * 8, "{line} ({letter}, {count})"),
    ],
)
def test_verse_ending_in_letter_and_number_kept(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem, result.notes
    assert result.notes == []
