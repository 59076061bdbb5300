"""Poem extraction from chatty answers: what must go, and what must stay.

All verse here was written for these tests.
"""

from __future__ import annotations

import pytest

from poemetric.generation.extract import extract_poem, split_reasoning

QUATRAINS = """The harbour lamps are folding into fog,
the gulls have settled on the salted stone;
a bell is ringing somewhere past the bog,
and every boat is drifting home alone.

The tide goes out as quiet as a thought,
it leaves the weed like letters on the sand;
I read the lines the patient water wrote
and cannot say I fully understand."""

LIMERICK = """A baker who lived in Dundee
Put pepper instead in his tea.
He sneezed out the door,
Then sneezed a bit more,
And blamed it all on a bee."""

GHAZAL = """I kept your letters folded in the drawer of rain;
at night I read them slowly by the light of rain.

The river learned your name and would not give it back,
it carries it through every field and lane of rain.

My mother said that grief is just a kind of weather;
she hung the washing out beneath a cloud of rain.

You asked me once what Tariq means when no one listens:
a man who talks to windows in the voice of rain."""

COLON_FIRST = """The lighthouse keeper told the sea:
be gentle with the ones you keep,
and give them back, if not to me,
to someone waiting, half asleep."""

NOTE_POEM = """Note how the swallows gather in the eaves,
how every roof becomes a kind of shore;
the summer tallies up what summer leaves
and hangs its ledger on the kitchen door."""


def test_plain_poem_is_untouched() -> None:
    result = extract_poem(QUATRAINS)
    assert result.poem == QUATRAINS
    assert result.notes == []
    assert result.reasoning is None


@pytest.mark.parametrize("poem", [LIMERICK, GHAZAL, COLON_FIRST, NOTE_POEM])
def test_nothing_removed_from_verse(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem
    assert result.notes == []


def test_preamble_and_closing_removed() -> None:
    text = (
        "Sure! Here is a ballad about a harbour town, following the ABCB rhyme scheme:\n\n"
        + QUATRAINS
        + "\n\nI hope you enjoy this ballad! Let me know if you would like any changes."
    )
    result = extract_poem(text)
    assert result.poem == QUATRAINS
    assert any(
        note.startswith("removed preamble: 'Sure! Here is a ballad") for note in result.notes
    )
    assert any(
        note.startswith("removed closing remark: 'I hope you enjoy") for note in result.notes
    )


def test_interjection_then_here_is() -> None:
    text = "Certainly!\n\nHere's a limerick for you:\n" + LIMERICK
    result = extract_poem(text)
    assert result.poem == LIMERICK
    assert len([n for n in result.notes if n.startswith("removed preamble")]) == 2


def test_bold_title_and_analysis_paragraphs() -> None:
    text = (
        "**The Harbour at Dusk**\n\n" + QUATRAINS + "\n\n---\n\n**Explanation:**\n"
        "- **Rhyme scheme:** ABAB in each quatrain.\n"
        "- **Meter:** loose iambic pentameter throughout.\n\n"
        "This poem uses the harbour as an image of waiting and explores the theme of loss."
    )
    result = extract_poem(text)
    assert result.poem == QUATRAINS
    assert result.title == "The Harbour at Dusk"
    assert any(note.startswith("removed title line") for note in result.notes)
    assert any("horizontal rule" in note for note in result.notes)
    assert any("Explanation" in note for note in result.notes)


@pytest.mark.parametrize(
    "title_line",
    ["# The Harbour at Dusk", "## The Harbour at Dusk", "Title: The Harbour at Dusk",
     "**Title: The Harbour at Dusk**", "The Harbour at Dusk"],
)  # fmt: skip
def test_title_styles(title_line: str) -> None:
    result = extract_poem(f"{title_line}\n\n{QUATRAINS}")
    assert result.poem == QUATRAINS
    assert result.title == "The Harbour at Dusk"


def test_first_verse_line_is_not_a_title() -> None:
    # A first line followed by a blank line, but it is verse (lower case words, punctuation).
    text = "The harbour lamps are folding into fog,\n\n" + QUATRAINS.split("\n", 1)[1]
    assert extract_poem(text).poem == text


def test_code_fence_with_chatter_outside() -> None:
    text = f"Here is the sonnet you asked for:\n\n```\n{QUATRAINS}\n```\n\nThis sonnet follows the Shakespearean rhyme scheme."
    result = extract_poem(text)
    assert result.poem == QUATRAINS
    assert "removed code fences" in result.notes


def test_code_fence_only() -> None:
    result = extract_poem(f"```text\n{LIMERICK}\n```")
    assert result.poem == LIMERICK


def test_markdown_emphasis_removed_keeps_words() -> None:
    text = (
        "*The harbour lamps are folding into fog,*\n**the gulls** have settled on the salted stone;"
    )
    result = extract_poem(text)
    assert result.poem == (
        "The harbour lamps are folding into fog,\nthe gulls have settled on the salted stone;"
    )
    assert any("emphasis" in note for note in result.notes)


def test_stanza_labels_removed_envoi_text_kept() -> None:
    text = (
        "Stanza 1:\nOne line of the first stanza\nand its second line here\n\n"
        "**Stanza 2**\nA line of the second stanza\nand another line below\n\n"
        "Envoi: the closing words return, as they were told,\nand fold the ending back into the start."
    )
    result = extract_poem(text)
    assert result.poem == (
        "One line of the first stanza\nand its second line here\n\n"
        "A line of the second stanza\nand another line below\n\n"
        "the closing words return, as they were told,\nand fold the ending back into the start."
    )
    assert any("Envoi" in note for note in result.notes)


def test_standalone_envoi_label() -> None:
    text = (
        "first stanza line one\nfirst stanza line two\n\n(Envoi)\nthree words here\nand three more"
    )
    result = extract_poem(text)
    assert (
        result.poem
        == "first stanza line one\nfirst stanza line two\n\nthree words here\nand three more"
    )


def test_numbered_stanzas() -> None:
    text = "I.\nline one of part one\nline two of part one\n\nII.\nline one of part two\nline two"
    result = extract_poem(text)
    assert (
        result.poem
        == "line one of part one\nline two of part one\n\nline one of part two\nline two"
    )


def test_refrain_markers_removed() -> None:
    text = (
        "The tide will take what tide has given (A1)\nand leave the rest (Refrain)\nsome other line"
    )
    result = extract_poem(text)
    assert (
        result.poem == "The tide will take what tide has given\nand leave the rest\nsome other line"
    )


def test_stanza_breaks_kept_and_blank_runs_collapsed() -> None:
    text = "line a\nline b\n\n\n\nline c\nline d\n"
    assert extract_poem(text).poem == "line a\nline b\n\nline c\nline d"


def test_think_block_moved_to_reasoning() -> None:
    text = "<think>\nThe user wants a limerick. AABBA.\n</think>\n\n" + LIMERICK
    result = extract_poem(text)
    assert result.poem == LIMERICK
    assert result.reasoning == "The user wants a limerick. AABBA."


def test_closing_tag_without_opening() -> None:
    text = (
        "Okay, so I need a ghazal with a radif.\nLet me plan the couplets.\n</think>\n\n" + GHAZAL
    )
    result = extract_poem(text, reasoning=None)
    assert result.poem == GHAZAL
    assert result.reasoning is not None and result.reasoning.startswith("Okay, so I need")


def test_unclosed_think_means_no_answer() -> None:
    result = extract_poem("<think>\nLet me count the syllables of the first line and")
    assert result.poem == ""
    assert result.reasoning == "Let me count the syllables of the first line and"
    assert any("unclosed" in note for note in result.notes)


@pytest.mark.parametrize(
    ("answer", "poem"),
    [
        # thinking again after the poem, cut off at the token limit
        (
            "<think>An AABBA plan.</think>\n" + LIMERICK + "\n<think>Did the rhyme hold? Let",
            LIMERICK,
        ),
        (LIMERICK + "\n\n<thinking>Now let me count the syllables of line 3", LIMERICK),
        # a word before the tag: the tag and its reasoning were the stored poem (now the word
        # alone is, as an answer that is only a preamble keeps it)
        ("Okay.\n<think>The user wants a limerick. Let me", "Okay."),
    ],
)
def test_unclosed_think_after_other_text_is_reasoning(answer: str, poem: str) -> None:
    result = extract_poem(answer)
    assert result.poem == poem
    assert result.reasoning is not None
    assert result.reasoning.endswith(answer.rsplit(">", 1)[1].strip())
    assert "<think" not in result.poem


def test_provider_reasoning_merged() -> None:
    result = extract_poem("<thinking>second</thinking>\n" + LIMERICK, reasoning="first")
    assert result.reasoning == "first\n\nsecond"
    answer, reasoning, _ = split_reasoning(LIMERICK, "same")
    assert answer == LIMERICK and reasoning == "same"


def test_note_paragraph_after_poem() -> None:
    text = COLON_FIRST + "\n\nNote: the poem keeps an ABAB rhyme in iambic tetrameter."
    result = extract_poem(text)
    assert result.poem == COLON_FIRST
    assert result.notes == [
        "removed closing remark: 'Note: the poem keeps an ABAB rhyme in iambic tetrameter.'"
    ]


def test_sign_off_glued_to_last_line() -> None:
    result = extract_poem(LIMERICK + "\nI hope this brings a smile to your face!")
    assert result.poem == LIMERICK


def test_verse_stanza_starting_with_this_poem_kept() -> None:
    poem = (
        QUATRAINS
        + "\n\nThis poem is a window left ajar,\na draught that finds you reading in the dark."
    )
    assert extract_poem(poem).poem == poem


def test_here_is_as_verse_kept() -> None:
    poem = "Here is the gate, and here the garden wall,\nhere is the pear tree leaning on the wind."
    assert extract_poem(poem).poem == poem


def test_verse_line_mentioning_a_ballad_kept() -> None:
    poem = "Sing me a ballad of the sea:\nof nets and knots and salt and rope,\nof men who sail and never see\nthe harbour of their hope."
    assert extract_poem(poem).poem == poem


def test_preamble_with_explanatory_sentence() -> None:
    text = (
        "Here's a villanelle on the theme of memory.\n"
        "It follows the strict form, with two refrains and the ABA rhyme scheme.\n\n" + QUATRAINS
    )
    result = extract_poem(text)
    assert result.poem == QUATRAINS
    assert len(result.notes) == 2


def test_subtitle_after_title() -> None:
    text = "**Salt Hours**\n*A Petrarchan sonnet*\n\n" + QUATRAINS
    result = extract_poem(text)
    assert result.poem == QUATRAINS
    assert result.title == "Salt Hours"


@pytest.mark.parametrize(
    "header",
    [
        "Salt Hours\n(A Petrarchan Sonnet)",
        "Salt Hours\n*A Petrarchan sonnet*",
        "Salt Hours\nA Petrarchan Sonnet",
        "# Salt Hours\n## A Petrarchan Sonnet",
        "**Salt Hours**\nA Petrarchan Sonnet",
    ],
)
def test_a_title_over_a_form_subtitle_is_removed(header: str) -> None:
    """A plain title over its subtitle, or a heading over a heading, was kept as a two-line
    first stanza (a 16-line "sonnet", a ballad with an odd stanza)."""
    result = extract_poem(header + "\n\n" + QUATRAINS)
    assert result.poem == QUATRAINS, result.notes
    assert result.title == "Salt Hours"
    assert [note.split(":")[0] for note in result.notes] == [
        "removed title line",
        "removed subtitle",
    ]


def test_a_two_line_stanza_that_only_looks_like_a_title_is_kept() -> None:
    for opening in ("Salt Hours\nA Petrarchan Sonnet\n", "Salt Hours\nA sonnet of the sea,\n\n"):
        assert extract_poem(opening + QUATRAINS).poem == opening + QUATRAINS


@pytest.mark.parametrize("label", ["*Stanza 1*", "Stanza 1:", "*Verse I*", "(Quatrain 1)"])
def test_a_stanza_label_after_the_title_is_noted_as_a_stanza_label(label: str) -> None:
    """The first stanza's label right under the title was noted as a "subtitle"."""
    text = f"**Salt Hours**\n\n{label}\n" + QUATRAINS
    result = extract_poem(text)
    assert result.poem == QUATRAINS
    assert result.notes == [
        "removed title line: '**Salt Hours**'",
        f"removed stanza label: {label!r}",
    ]


def test_blockquote_poem() -> None:
    quoted = "\n".join(f"> {line}" if line else ">" for line in LIMERICK.split("\n"))
    assert extract_poem(quoted).poem == LIMERICK


def test_all_chatter_keeps_the_answer() -> None:
    text = "Sure! Here is a poem:"
    result = extract_poem(text)
    assert result.poem == text
    assert any("kept the answer" in note for note in result.notes)


def test_empty_and_windows_newlines() -> None:
    assert extract_poem("").poem == ""
    assert extract_poem("line one\r\nline two\r\n").poem == "line one\nline two"


@pytest.mark.parametrize(
    "stanza",
    [
        "I hope the rain remembers us,\nthe way the gutters do.",
        "Would you like to walk with me\nas far as the harbour wall?",
        "Let the tide decide,\nlet the lamp be low.",
        "The theme of every verse is written in the stars,\nand every rhyme is borrowed from the sea.",
    ],
)
def test_last_stanza_that_sounds_chatty_is_kept(stanza: str) -> None:
    poem = QUATRAINS + "\n\n" + stanza
    assert extract_poem(poem).poem == poem


def test_chatty_sign_offs_removed() -> None:
    for closing in [
        "I hope you enjoy this villanelle!",
        "Let me know if you'd like a different rhyme scheme.",
        "Would you like me to write another version?",
        "I tried to capture the quiet of a harbour at night while keeping the ABAB rhyme.",
    ]:
        assert extract_poem(QUATRAINS + "\n\n" + closing).poem == QUATRAINS, closing


@pytest.mark.parametrize(
    "first_line",
    [
        "Let me count the ways the harbour keeps:",
        "Great ballads of the northern sea",
        "Of course, the ballad singer lied,",
        "Here is the gate, and here the garden wall,",
    ],
)
def test_first_lines_that_open_like_chat_are_kept(first_line: str) -> None:
    poem = first_line + "\n" + QUATRAINS
    assert extract_poem(poem).poem == poem


@pytest.mark.parametrize(
    "preamble",
    [
        "Of course! I'd be glad to write a sonnet for you.",
        "Okay, here is my attempt:",
        "Let me write a villanelle for you:",
        "Absolutely. Here's a pantoum on the theme of the sea, with repeated lines.",
        "Form: Petrarchan sonnet",
    ],
)
def test_preamble_variants_removed(preamble: str) -> None:
    result = extract_poem(preamble + "\n\n" + QUATRAINS)
    assert result.poem == QUATRAINS, result.notes


def test_bold_first_verse_line_is_not_a_title() -> None:
    text = "**The harbour lamps are folding into fog,**\n" + QUATRAINS.split("\n", 1)[1]
    result = extract_poem(text)
    assert result.title is None
    assert result.poem == QUATRAINS


def test_sestina_envoi_and_ghazal_couplet_labels() -> None:
    text = (
        "Couplet 1:\n"
        + "\n".join(GHAZAL.split("\n")[:2])
        + "\n\nCouplet 2:\n"
        + "\n".join(GHAZAL.split("\n")[3:5])
    )
    assert extract_poem(text).poem == "\n".join(GHAZAL.split("\n")[:2]) + "\n\n" + "\n".join(
        GHAZAL.split("\n")[3:5]
    )
