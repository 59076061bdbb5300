"""The one table of typographic apostrophes and its three readers."""

from __future__ import annotations

import pytest

from poemetric.extraction.classify import _is_preamble
from poemetric.form.phonetics import normalize_word
from poemetric.text.apostrophes import APOSTROPHES, apostrophe_table
from poemetric.text.tokens import tokenize


@pytest.mark.parametrize("mark", sorted(APOSTROPHES))
def test_every_reader_folds_each_shared_apostrophe(mark: str) -> None:
    assert tokenize(f"The summer{mark}s day") == ["the", "summer's", "day"]
    assert normalize_word(f"o{mark}er") == "o'er"
    assert _is_preamble(f"Here{mark}s a sonnet about the sea:")


def test_a_reader_adds_its_own_characters() -> None:
    table = apostrophe_table({"\u00a0": " "})
    assert "o\u2019er\u00a0the".translate(table) == "o'er the"
    assert "o\u00b4er".translate(apostrophe_table()) == "o\u00b4er"
