"""Lexical features on small texts."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from poemetric.analysis.lexical import (
    mattr,
    opening_words,
    profile_similarity,
    repetition_rate,
    tokenize,
    top_words,
    type_token_ratio,
)


def test_tokenize_keeps_inner_apostrophes_and_hyphens() -> None:
    assert tokenize("O’er the sun-lit Hill, I'd go—42 times!") == [
        "o'er", "the", "sun-lit", "hill", "i'd", "go", "times",
    ]  # fmt: skip


def test_ttr() -> None:
    assert type_token_ratio(tokenize("the cat and the hat")) == pytest.approx(4 / 5)
    assert math.isnan(type_token_ratio([]))


def test_mattr_short_text_is_ttr_and_windows_average() -> None:
    tokens = tokenize("a b a c")
    assert mattr(tokens, window=50) == type_token_ratio(tokens)
    # windows of 3 over a b a c: {a,b,a} -> 2/3, {b,a,c} -> 3/3; mean 5/6.
    assert mattr(tokens, window=3) == pytest.approx(5 / 6)
    # a repeated 2-word cycle: every 4-token window has 2 types.
    assert mattr(["x", "y"] * 50, window=4) == pytest.approx(0.5)


def test_repetition_rate_relative_to_original() -> None:
    original = "The river runs beneath the silver moon"
    poem = "The moon is bright above the river town"
    # poem tokens: the moon is bright above the river town -> the, moon, the, river in original.
    assert repetition_rate(poem, original) == pytest.approx(4 / 8)
    # content words: moon bright river town -> moon, river.
    assert repetition_rate(poem, original, content_only=True) == pytest.approx(2 / 4)
    assert repetition_rate(original, original) == 1.0
    assert math.isnan(repetition_rate("", original))


def _poems() -> pd.DataFrame:
    return pd.DataFrame({
        "author": ["human", "human", "bot", "bot"],
        "poem": ["Rain on the river\nrain again", "The river sleeps", "In light and light", "In the light of rain"],
    })  # fmt: skip


def test_top_and_opening_words() -> None:
    words = top_words(_poems(), k=2)
    human = words[words["author"] == "human"]
    assert human.iloc[0]["word"] == "rain" and human.iloc[0]["count"] == 2
    opening = opening_words(_poems())
    bot = opening[opening["author"] == "bot"]
    assert bot.iloc[0]["word"] == "In" and bot.iloc[0]["share"] == 1.0
    assert list(words["author"].unique()) == ["human", "bot"]


def test_profile_similarity_to_human() -> None:
    similarity = profile_similarity(_poems(), k=5).set_index("author")["cosine_to_human"]
    assert similarity["human"] == pytest.approx(1.0)
    assert 0 < similarity["bot"] < 1
