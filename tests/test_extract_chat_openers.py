"""Chat around the poem in words that models use and the first vocabulary missed: openers such as
"I'd be happy to write a sonnet for you!", "Yes! Here's a ballad:", "Sure — here's ...", offers
after the poem ("Shall I write another?", "Want me to adjust the metre?") and "(The End)"; and
verse that opens or ends with the same words, which stays.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import POEM

from poemetric.extraction import extract_poem
from poemetric.form.checker import check_poem

OPENERS = [
    "I'd be happy to write a sonnet for you!",
    "I'd be glad to write a ballad for you.",
    "I'd love to write a limerick for you!",
    "I would be delighted to compose a sestina on this theme.",
    "I'm happy to write a villanelle about the sea:",
    "Sure thing! Here's a limerick:",
    "Sure — here's a sonnet:",
    "Okay - here is the poem:",
    "Yes! Here's a ballad:",
    "Hello! Here is a villanelle:",
    "No problem! Here's a sonnet:",
    "With pleasure! Here's a sonnet:",
    "Understood. Here is the poem.",
    "Got it! Here's a limerick:",
    "Challenge accepted! Here's a sestina:",
    "Sure, I can do that.",
    "Of course, I can help with that!",
    "Here goes:",
]


@pytest.mark.parametrize("opener", OPENERS)
def test_openers_removed(opener: str) -> None:
    result = extract_poem(opener + "\n\n" + POEM)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed preamble") for note in result.notes)


CLOSINGS = [
    "Shall I write another?",
    "Should I adjust the meter?",
    "Want me to try a different rhyme scheme?",
    "Do you want me to change anything?",
    "I can also write a version in tetrameter if you prefer.",
    "Happy to write more if you'd like.",
    # the poem named after "more" / "another" (they stayed as a verse line from 3d4a589 on)
    "I'd be happy to write more poems for you!",
    "Happy to write more limericks anytime!",
    "I'd be glad to write another limerick!",
    "I'm happy to write another one if you like.",
    "Please let me know your thoughts.",
    "(The End)",
    "The End",
    "— THE END —",
]


@pytest.mark.parametrize("closing", CLOSINGS)
def test_closing_offers_removed(closing: str) -> None:
    result = extract_poem(POEM + "\n\n" + closing)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "first_line",
    [
        "Yes, to the very end.",
        "Yes, and the lamps were lit for you.",
        "Hello, the lamps; hello, the door.",
        "I'd love to walk the harbour in the rain.",
        "Sure — the tide will turn again.",
        "I'd love to write a poem for you, dear,",
        "I'm happy to remember every verse you sang,",
    ],
)
def test_verse_opening_like_chat_kept(first_line: str) -> None:
    poem = first_line + "\n\n" + POEM
    result = extract_poem(poem)
    assert result.poem == poem, result.notes


@pytest.mark.parametrize(
    "ending",
    [
        "\n\nShall I compare the lamps to stars?",
        "\n\nThe end.",
        "\n\nthe end",
        "\n\nShould I stay, or should I go?",
        "\n\nWant me to wait? I'll wait.",
    ],
)
def test_verse_ending_like_an_offer_kept(ending: str) -> None:
    poem = POEM + ending
    result = extract_poem(poem)
    assert result.poem == poem, result.notes


LIMERICK = """There once was a baker named Sue
Who baked a fine loaf in a shoe.
It rose in the heat,
Smelled of leather and feet,
And she sold it by quarter past two."""


def test_a_limerick_after_a_happy_opener_passes_the_form_check() -> None:
    """The opener left in made the limerick six lines long, and the form check failed it."""
    answer = "I'd be happy to write a limerick for you!\n\n" + LIMERICK
    poem = extract_poem(answer).poem
    assert poem == LIMERICK
    assert check_poem(poem, "limerick", rhyme="AABBA").passed
    assert not check_poem(answer, "limerick", rhyme="AABBA").passed


# --- a second poem offered after the first, without numbers ---------------------------------------

OTHER = """The ferry leaves at six without a sound,
the harbour lights go out along the quay;
a gull complains above the fishing ground,
and night comes in like water from the sea."""


@pytest.mark.parametrize(
    "offer",
    [
        "Alternatively, here is a version with a darker tone:",
        "Alternatively:",
        "Here is an alternative take:",
        "If you'd prefer a more traditional approach, here's another option:",
        "Or, a lighter version:",
        "Or, if you prefer:",
        "I've also written a second sonnet with a different focus:",
        "Here's a second version, more playful:",
        "Here's one more, in a different mood:",
        "Another version:",
        "Alternative version:",
    ],
)
@pytest.mark.parametrize("gap", ["\n\n", "\n\n---\n\n"])
def test_second_poem_offered_after_the_first_removed(offer: str, gap: str) -> None:
    result = extract_poem(POEM + gap + offer + "\n\n" + OTHER)
    assert result.poem == POEM, result.notes
    assert f"removed the alternative offered after the poem: {offer!r} and 4 lines under it" in (
        result.notes
    )


def test_a_limerick_with_an_alternative_after_it_passes_the_form_check() -> None:
    """Both poems were checked as one limerick of ten lines and more, and failed."""
    answer = LIMERICK + "\n\nAlternatively, here is a sillier one:\n\n" + LIMERICK.upper()
    poem = extract_poem(answer).poem
    assert poem == LIMERICK
    assert check_poem(poem, "limerick", rhyme="AABBA").passed


@pytest.mark.parametrize(
    "text",
    [
        # verse that opens a stanza with "Or" or "Another", ending in a colon
        POEM + "\n\nOr, in the evening:\n\n" + OTHER,
        POEM + "\n\nAnother morning, and the same grey rain:\n\n" + OTHER,
        # the offer line inside a stanza, not alone in its paragraph
        POEM + "\n\nAlternatively, the lamps:\n" + OTHER,
        # nothing, or one line, under it
        POEM + "\n\nAlternatively:",
        POEM + "\n\nAlternatively:\n\nthe sea.",
    ],
)
def test_verse_like_an_offer_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text, result.notes


@pytest.mark.parametrize(
    ("first", "second"),
    [("First version:", "Second version:"), ("**First option**", "**Second option**")],
)
def test_alternatives_labelled_first_and_second_keep_the_first(first: str, second: str) -> None:
    """docs/models.md said "First version" ... "Second version" keeps the first; nothing did, and
    both poems with their labels were checked as one."""
    result = extract_poem(first + "\n\n" + POEM + "\n\n" + second + "\n\n" + OTHER)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed 1 alternative poem") for note in result.notes)


# --- stanza numbers in markdown ------------------------------------------------------------------

STANZAS = POEM.split("\n\n")


@pytest.mark.parametrize(
    ("first", "second"),
    [("**I.**", "**II.**"), ("**I**", "**II**"), ("### I", "### II"), ("## 1", "## 2")],
)
@pytest.mark.parametrize("before", ["", "**The Lantern-Maker**\n\n", "Here is a ballad:\n\n"])
def test_stanza_numbers_in_markdown_removed(first: str, second: str, before: str) -> None:
    """Bold or heading stanza numbers stayed in the poem ("I." and "II." as two more lines; a
    bold "**I**" first was taken for the title and its "II" kept)."""
    answer = before + first + "\n" + STANZAS[0] + "\n\n" + second + "\n" + STANZAS[1]
    result = extract_poem(answer)
    assert result.poem == POEM, result.notes
    assert sum(note.startswith("removed stanza number") for note in result.notes) == 2


def test_a_single_bold_number_over_the_poem_is_still_its_title() -> None:
    result = extract_poem("**XII**\n\n" + POEM)
    assert (result.poem, result.title) == (POEM, "XII")


# --- a ghazal's couplets labelled by their names (matla, maqta) ----------------------------------

GHAZAL = (
    "Tonight the harbour hums its ancient tune of rain,\n"
    "and every lantern on the quay is wet with rain.\n\n"
    "The fishermen come home with nets as light as air;\n"
    "they trade their silver for a pocketful of rain.\n\n"
    "I signed my name, the poet, on the water line:\n"
    "they call me Ash, and I was written out by rain."
)


@pytest.mark.parametrize(
    "labels",
    [
        ("Matla:", "Sher 2:", "Maqta:"),
        ("**Matla**", "**Sher 2**", "**Maqta**"),
        ("Couplet 1 (Matla):", "Couplet 2:", "Couplet 3 (Maqta):"),
        ("Matla (Opening Couplet):", "Sher 2:", "Maqta (Closing Couplet):"),
        ("Stanza 1 (Refrain)", "Stanza 2", "Stanza 3"),
    ],
)
def test_ghazal_couplet_names_removed_as_labels(labels: tuple[str, str, str]) -> None:
    """ "Matla" and "Maqta" (a ghazal's opening and closing couplets) and a label with a remark in
    brackets stayed in the poem as lines of their own."""
    couplets = GHAZAL.split("\n\n")
    answer = "\n\n".join(
        label + "\n" + couplet for label, couplet in zip(labels, couplets, strict=True)
    )
    result = extract_poem(answer)
    assert result.poem == GHAZAL, result.notes
    assert sum(note.startswith("removed stanza label") for note in result.notes) == 3


def test_inline_maqta_label_removed() -> None:
    couplets = GHAZAL.split("\n\n")
    result = extract_poem("\n\n".join([*couplets[:2], "Maqta: " + couplets[2]]))
    assert result.poem == GHAZAL, result.notes


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Stanza 1 (ABCDEF)", "Stanza 2 (FAEBDC)"),
        ("Tercet 1 (A1 b A2)", "Tercet 2 (a b A1)"),
        ("**Stanza 1** (end words: lamps, glass)", "**Stanza 2** (end words: glass, lamps)"),
    ],
)
def test_stanza_labels_with_their_scheme_or_end_words_removed(first: str, second: str) -> None:
    """A sestina's or villanelle's stanza labels naming the stanza's scheme stayed as lines."""
    result = extract_poem(first + "\n" + STANZAS[0] + "\n\n" + second + "\n" + STANZAS[1])
    assert result.poem == POEM, result.notes
    assert sum(note.startswith("removed stanza label") for note in result.notes) == 2


@pytest.mark.parametrize(
    "last_line",
    [
        "Shall I write another letter to the sea?",
        "Do you want me to try again, my love?",
        "Happy to write more letters home.",
        "I can write a poem of it in the snow.",
        # "I can" without "also" offers nothing unless it names the poem or a version of it
        "I can try it again.",
        "I could make changes.",
        "I can change anything!",
        "I could write more.",
    ],
)
@pytest.mark.parametrize("gap", ["\n\n", "\n"])
def test_verse_last_line_shaped_like_an_offer_kept(last_line: str, gap: str) -> None:
    poem = POEM + gap + last_line
    result = extract_poem(poem)
    assert result.poem == poem, result.notes


# --- an opener under unrecognised chat is no second poem -----------------------------------------


@pytest.mark.parametrize(
    "chat",
    [
        # two lines of chat the preamble rules do not know, over the usual opener
        "Grief is a hard subject, and I wanted to be gentle with it.\n"
        "I kept the lines short and plain.\n\nHere is a ballad:",
        "Grief is a hard subject, and I wanted to be gentle with it.\n"
        "I kept the lines short and plain.\n\nHere is a poem:",
        # as many lines of chat as half the poem: an opener with "a" and a form is no offer
        "Grief is a hard subject, and I wanted to be gentle with it.\n"
        "I kept the lines short and plain, as the old songs were.\n"
        "The refrain comes back in each stanza's last line.\n"
        "The lamplighter stands for the one who is gone.\n\nHere is a ballad:",
        # a title and a byline over the opener
        "The Lantern-Maker\nby a model\n\nHere's a sonnet:",
        # two lines of chat over an opener that names a version
        "Ballads tell a story in plain quatrains.\nMine keeps to the lamplighter.\n\n"
        "Here is a version in ballad metre:",
    ],
)
def test_the_only_poem_under_chat_and_an_opener_kept(chat: str) -> None:
    """The lines above the opener are chat, not a first poem: the opener's poem was removed as
    an alternative, and the chat lines kept as the poem (form check and judge saw no verse)."""
    result = extract_poem(chat + "\n\n" + POEM)
    assert POEM in result.poem, result.notes
    assert not any("alternative" in note for note in result.notes), result.notes
