"""A corruption changes the words it claims to change and no space around them.

The word-level builders rebuilt an edited line from its words joined by single spaces: an
indented line lost its indent, a `  -  ` its double spaces, a non-breaking space became a space.
The corrupted text then differed from the original by more than the corruption, in tokens a
model scores (seven leading spaces are a token of their own): 24 of the 1,426 pairs built from
the `poemetric` dataset (seed 0), e.g. "       And her eyes were wild." -> "And her eyes were
untamed.". Lines without such spaces (the Lear limericks, the demo poems) are built as before.
"""

from __future__ import annotations

import collections
import re

import pytest

from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import OFFLINE_TASKS, Pair

POEM = (
    "The sun was shining on the sea,\n"
    "       Shining with all his might:\n"
    "He did his very best to make  -  \n"
    "       The billows smooth and bright\n"
    "And this was odd, because it was\n"
    "       The middle of the\u00a0night.\n"
)


@pytest.fixture(scope="module")
def pairs() -> list[Pair]:
    from conftest import wordnet_or_skip

    wordnet_or_skip()
    source = SourcePoem("walrus", POEM, "ABCBDB")
    return build_pairs([source], OFFLINE_TASKS, seed=0, per_poem=6)


def _changed(pair: Pair) -> list[tuple[str, str]]:
    original, corrupted = pair.original.split("\n"), pair.corrupted.split("\n")
    return [(a, b) for a, b in zip(original, corrupted, strict=True) if a != b]


def test_an_end_word_is_replaced_in_place(pairs: list[Pair]) -> None:
    edits = [p for p in pairs if p.task in ("synonym", "rhyme_word_swap")]
    assert {p.task for p in edits} == {"synonym", "rhyme_word_swap"}
    for pair in edits:
        for before, after in _changed(pair):
            old = re.findall(r"[A-Za-z]+", before)[-1]
            new = re.findall(r"[A-Za-z]+", after)[-1]
            start = before.rindex(old)
            assert after == before[:start] + new + before[start + len(old) :], (before, after)


def test_a_deletion_keeps_every_space_it_does_not_remove(pairs: list[Pair]) -> None:
    deletions = [p for p in pairs if p.task.startswith("delete_")]
    assert len(deletions) >= 20
    for pair in deletions:
        for before, after in _changed(pair):
            indent = before[: len(before) - len(before.lstrip())]
            assert after.startswith(indent) and after[len(indent) :][:1] != " ", (before, after)
            kept = collections.Counter(re.findall(r"\s+", after))
            assert not kept - collections.Counter(re.findall(r"\s+", before)), (before, after)
            # what no deleted word touches stays: the spaces around the dash, the line's end,
            # the non-breaking space before a word that is kept
            assert after[len(after.rstrip()) :] == before[len(before.rstrip()) :]
            assert ("  -  " in after) == ("  -  " in before), (before, after)
            if "night" in after:
                assert ("\u00a0night" in after) == ("\u00a0night" in before), (before, after)


QUOTED = (
    "Water, water, every where,\n"
    "She merely said, 'Hum!' to the hare,\n"
    'And said, "Granny, burn that!\n'
    'Who said, "It is flat,"\n'
    "Quite ready to stare.\n"
)


def test_a_deleted_words_punctuation_keeps_its_space() -> None:
    """A word with punctuation on both sides (`'Hum!'`, `"Granny,`) or first on its line
    (`Water,`) had its marks glued to a neighbour: `said,'!'`, `said,", burn`, `,water`. The
    deletion then also moved a space, and in Lear's "And said, "Fiddle-de-dee!"" the glued
    `said,"!"` cost SmolLM2 4.2-4.3 nats more, deciding two pairs by sum. Only the letters go."""
    pairs = build_pairs(
        [SourcePoem("quoted", QUOTED, "AABBA")],
        ["delete_1_nonrhyming", "delete_1_rhyming"],
        seed=0,
        per_poem=40,
    )
    after = {p.details["deleted"][0]["word"]: _changed(p)[0][1] for p in pairs}
    assert after["Water"] == ", water, every where,"
    assert after["Hum"] == "She merely said, '!' to the hare,"
    assert after["Granny"] == 'And said, ", burn that!'
    # as before: a closing mark joins the word before it, an opening one the word after it
    assert after["It"] == 'Who said, "is flat,"'
    assert after["flat"] == 'Who said, "It is,"'
    assert after["hare"] == "She merely said, 'Hum!' to the,"


def test_two_deleted_words_of_a_quotation_leave_its_marks_in_place() -> None:
    poem = 'She said, "Granny Smith!" and ran,\nA man,\nA plan,\nA can,\nA van.\n'
    pairs = build_pairs(
        [SourcePoem("apple", poem, "AAAAA")], ["delete_2_nonrhyming"], seed=0, per_poem=40
    )
    after = {
        tuple(d["word"] for d in p.details["deleted"]): _changed(p)[0][1]
        for p in pairs
        if len(_changed(p)) == 1
    }
    assert after[("Granny", "Smith")] == 'She said, "!" and ran,'
