"""Lexical features on small texts: tokens, diversity, repetition with its chance baseline,
imagery counts."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from poemetric.analysis.features import lexical_summary, poem_features
from poemetric.analysis.imagery import BUNDLED_IMAGERY, fold, imagery_counts, imagery_lexicon
from poemetric.analysis.lexical import (
    STOP_WORDS,
    content_words,
    mattr,
    mtld,
    opening_words,
    profile_similarity,
    top_words,
)
from poemetric.analysis.repetition import repetition_features, repetition_rate
from poemetric.text.tokens import tokenize, type_token_ratio


def test_tokenize_keeps_inner_apostrophes_and_hyphens() -> None:
    assert tokenize("O’er the sun-lit Hill, I'd go—42 times!") == [
        "o'er", "the", "sun-lit", "hill", "i'd", "go", "times",
    ]  # fmt: skip


def test_tokenize_is_unicode_aware() -> None:
    # Accented letters (composed or decomposed) stay inside their word.
    assert tokenize("The wingèd hart, naïve Zoë") == ["the", "wingèd", "hart", "naïve", "zoë"]
    assert tokenize("winge\u0300d") == ["wingèd"]
    assert "d" not in tokenize("On wingèd feet, the wingèd horse")


def test_elisions_keep_their_apostrophe_and_quotes_do_not() -> None:
    assert tokenize("'Tis the season; ‘twas night") == ["'tis", "the", "season", "'twas", "night"]
    assert tokenize("'Hello,' she said") == ["hello", "she", "said"]
    assert content_words(tokenize("'Tis ’twas love")) == ["love"]
    assert {"'tis", "'twas"} <= STOP_WORDS


def test_ttr() -> None:
    assert type_token_ratio(tokenize("the cat and the hat")) == pytest.approx(4 / 5)
    assert math.isnan(type_token_ratio([]))


def test_mattr_needs_a_full_window() -> None:
    tokens = tokenize("a b a c")
    assert math.isnan(mattr(tokens, window=50))  # no silent fallback to TTR
    # windows of 3 over a b a c: {a,b,a} -> 2/3, {b,a,c} -> 3/3; mean 5/6.
    assert mattr(tokens, window=3) == pytest.approx(5 / 6)
    assert mattr(tokens, window=4) == pytest.approx(3 / 4)
    # a repeated 2-word cycle: every 4-token window has 2 types.
    assert mattr(["x", "y"] * 50, window=4) == pytest.approx(0.5)


def test_mtld_by_hand() -> None:
    # a b a b ...: the TTR drops to 2/3 <= 0.72 every third token: factors after 3 and 6 tokens,
    # then a partial factor (1 - 2/2) / 0.28 = 0 for the last two: 8 / 2 = 4 both ways.
    assert mtld(["a", "b"] * 4) == pytest.approx(4.0)
    # a b c a: ... partial factor (1 - 0.75) / 0.28 after the whole text: 4 / 0.892857.
    assert mtld(["a", "b", "c", "a"]) == pytest.approx(4 / (0.25 / 0.28))
    assert math.isnan(mtld(["a", "b", "c"]))  # never repeats: no factor at all
    assert math.isnan(mtld([]))


def test_mattr_and_mtld_match_lexicalrichness() -> None:
    """Reference values by lexicalrichness 0.5.1 (`LexicalRichness(tokens, preprocessor=None,
    tokenizer=None)`: `.mattr(20)`, `.mtld(threshold=0.72)`, `.ttr`) on these 57 tokens; its
    MATTR is also lexical-diversity 0.1.1's `lex_div.mattr(tokens, 20)`."""
    tokens = tokenize(
        "the grey gull turns above the harbour wall and the wind turns with it\n"
        "turns the slow boats and the slow bells and the light that falls on the water\n"
        "falls and turns and the water keeps the light the way a hand keeps a coin\n"
        "the gull the wall the wind the water and the light"
    )
    assert len(tokens) == 57
    assert type_token_ratio(tokens) == pytest.approx(0.42105263157894735, abs=1e-12)
    assert mattr(tokens, window=20) == pytest.approx(0.6052631578947372, abs=1e-12)
    assert mtld(tokens) == pytest.approx(10.848424713584288, abs=1e-12)


def test_repetition_rate_relative_to_original() -> None:
    original = "The river runs beneath the silver moon"
    poem = "The moon is bright above the river town"
    # poem tokens: the moon is bright above the river town -> the, moon, the, river in original.
    assert repetition_rate(poem, original) == pytest.approx(4 / 8)
    # content words: moon bright river town -> moon, river.
    assert repetition_rate(poem, original, content_only=True) == pytest.approx(2 / 4)
    assert repetition_rate(original, original) == 1.0
    assert math.isnan(repetition_rate("", original))


def _run() -> pd.DataFrame:
    originals = {"p1": "sun moon star", "p2": "sun rain", "p3": "moon sea", "p4": "sun sun"}
    forms = {"p1": "sonnet", "p2": "sonnet", "p3": "sonnet", "p4": "limerick"}
    rows = [("human", p, text) for p, text in originals.items()]
    rows += [("bot", "p1", "sun moon rain"), ("bot", "p4", "moon star")]
    return pd.DataFrame({
        "generation_id": [f"{a}-{p}" for a, p, _ in rows], "author": [a for a, _, _ in rows],
        "poem_id": [p for _, p, _ in rows], "poem": [t for _, _, t in rows],
        "poem_form": [forms[p] for _, p, _ in rows], "human_poem": [originals[p] for _, p, _ in rows],
    })  # fmt: skip


def test_repetition_has_a_chance_baseline_from_other_originals() -> None:
    table = repetition_features(_run()).set_index("generation_id")
    p1 = table.loc["bot-p1"]
    # own original "sun moon star": sun, moon of 3 tokens. Other sonnets: "sun rain" 2/3,
    # "moon sea" 1/3 -> chance 1/2, excess 1/6.
    assert p1["repetition_all"] == pytest.approx(2 / 3)
    assert p1["repetition_all_chance"] == pytest.approx(1 / 2)
    assert p1["repetition_all_excess"] == pytest.approx(1 / 6)
    assert p1["chance_pool"] == 2
    # p4 is the only limerick: its baseline falls back to every other original (p1, p2, p3).
    p4 = table.loc["bot-p4"]
    assert p4["repetition_all"] == 0.0 and p4["chance_pool"] == 3
    assert p4["repetition_all_chance"] == pytest.approx((2 / 2 + 0 + 1 / 2) / 3)
    assert "human-p1" not in table.index  # a human poem trivially repeats itself


def test_repetition_scored_in_blocks_of_poems_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # The poems x originals rates were one dense matrix (31,000 poems x 1,000 originals: 1.6 GB
    # at the peak with the sparse product); they are now taken a block of poems at a time.
    # Blocks of one poem, and blocks that end inside the run, give the same table.
    from poemetric.analysis import repetition

    run = _run()
    extra = pd.DataFrame({
        "generation_id": [f"bot{i}-p{1 + i % 4}" for i in range(7)], "author": ["bot"] * 7,
        "poem_id": [f"p{1 + i % 4}" for i in range(7)],
        "poem": ["sun sea", "", "moon moon star", "rain", "the sun", "star sea sun", "sea"],
        "poem_form": [("sonnet", "sonnet", "sonnet", "limerick")[i % 4] for i in range(7)],
        "human_poem": [run.set_index("poem_id")["human_poem"].drop_duplicates()[f"p{1 + i % 4}"]
                       for i in range(7)],
    })  # fmt: skip
    run = pd.concat([run, extra], ignore_index=True)
    whole = repetition_features(run)
    for cells in (1, 3 * 4):
        monkeypatch.setattr(repetition, "OVERLAP_BLOCK_CELLS", cells)
        pd.testing.assert_frame_equal(repetition_features(run), whole, check_exact=True)
    assert whole["repetition_all"].isna().sum() == 1  # the empty poem


def test_poem_features_and_summary_carry_the_baseline() -> None:
    features = poem_features(_run(), window=2)
    summary = lexical_summary(features).set_index("author")
    assert summary.at["bot", "repetition_all_chance_mean"] == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert math.isnan(summary.at["human", "repetition_all_mean"])
    assert summary.at["human", "mattr_short"] == 0
    window_3 = lexical_summary(poem_features(_run(), window=3)).set_index("author")
    assert window_3.at["bot", "mattr_short"] == 1  # "moon star" is shorter than the window


def test_imagery_lexicon_folds_plurals_and_adds_annotations() -> None:
    assert fold("eyes", BUNDLED_IMAGERY) == "eye" and fold("lilies", BUNDLED_IMAGERY) == "lily"
    assert fold("branches", BUNDLED_IMAGERY) == "branch" and fold("sun's", BUNDLED_IMAGERY) == "sun"
    assert fold("love", BUNDLED_IMAGERY) is None
    lexicon = imagery_lexicon(["owls, zephyrs", None, "the weather, spirits"])
    assert {"owl", "zephyrs", "spirit"} <= lexicon  # plurals of bundled images fold to them
    assert "the weather" not in lexicon  # only single-word terms
    assert imagery_lexicon(["zephyrs"], include_dataset=False) == BUNDLED_IMAGERY


def test_imagery_folds_irregular_plurals_and_keeps_one_form_of_a_dataset_term() -> None:
    """ "leaves" and "feet" (20 and 22 times in the authors' release) were no image, while
    "leaf" and "foot" were; a dataset annotating "billow" and "billows" had two images."""
    for plural, singular in [("leaves", "leaf"), ("feet", "foot"), ("teeth", "tooth"),
                             ("wolves", "wolf"), ("knives", "knife"), ("mice", "mouse")]:  # fmt: skip
        assert fold(plural, BUNDLED_IMAGERY) == singular
    assert fold("doves", BUNDLED_IMAGERY) == "dove" and fold("caves", BUNDLED_IMAGERY) == "cave"
    lexicon = imagery_lexicon(["billows, the sea", "billow", "fairies, faery's, fairy"])
    assert {"billow", "fairy", "faery"} <= lexicon
    assert not {"billows", "fairies", "faery's"} & lexicon
    frame = pd.DataFrame({"author": ["human"] * 3,
                          "poem": ["Leaves fall", "a leaf; the billows", "the billow at my feet"]})  # fmt: skip
    counts = imagery_counts(frame, lexicon=lexicon).set_index("image")
    assert counts.at["leaf", "poems"] == 2 and counts.at["billow", "poems"] == 2
    assert counts.at["foot", "count"] == 1


def test_imagery_counts_per_author() -> None:
    frame = pd.DataFrame({"author": ["human", "human", "bot"],
                          "poem": ["Her eyes, her eye; the sun", "The sea", "threads of sun"]})  # fmt: skip
    counts = imagery_counts(frame, lexicon=BUNDLED_IMAGERY)
    human = counts[counts["author"] == "human"].set_index("image")
    assert human.at["eye", "count"] == 2 and human.at["eye", "poems"] == 1
    assert human.at["eye", "poem_share"] == 0.5 and human.at["eye", "rank"] == 1
    assert set(counts[counts["author"] == "bot"]["image"]) == {"thread", "sun"}


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


def test_opening_words_capitalise_an_elided_word_after_its_apostrophe() -> None:
    """`str.capitalize` left "'twas" lower-case beside "The" and "In" (one poem of the authors'
    dataset opens so)."""
    poems = pd.DataFrame({"author": ["human"] * 3, "poem": ["'Twas night", "'tis day", "o'er"]})
    assert sorted(opening_words(poems)["word"]) == ["'Tis", "'Twas", "O'er"]


def test_profile_similarity_to_human() -> None:
    similarity = profile_similarity(_poems(), k=5).set_index("author")["cosine_to_human"]
    assert similarity["human"] == pytest.approx(1.0)
    assert 0 < similarity["bot"] < 1


def test_word_tables_rank_ties_alphabetically_whatever_the_poem_order() -> None:
    """Tied counts were ranked by first occurrence (`Counter.most_common`): the same poems in
    another storage order (merged shards) gave other top words and a profile similarity of
    0.71 instead of 0.96 here."""
    poems = pd.DataFrame({
        "author": ["human"] * 3 + ["bot"] * 3,
        "poem": ["rose moon", "sea star", "rose sea", "moon sea", "star rose", "wind sky"],
    })  # fmt: skip
    reversed_poems = poems.iloc[::-1].reset_index(drop=True)
    for table in (top_words, opening_words, profile_similarity):
        first, again = table(poems, k=2), table(reversed_poems, k=2)
        pd.testing.assert_frame_equal(first, again)
    bot = top_words(poems, k=2).query("author == 'bot'")
    assert bot["word"].tolist() == ["moon", "rose"]  # 1 each: alphabetical among 6 words
    # Reference: cosine of relative frequencies over {rose, sea} | {moon, rose}.
    human = {"rose": 2 / 6, "sea": 2 / 6, "moon": 1 / 6}
    other = {"rose": 1 / 6, "sea": 1 / 6, "moon": 1 / 6}
    words = ["moon", "rose", "sea"]
    dot = sum(human[w] * other[w] for w in words)
    norms = math.sqrt(sum(human[w] ** 2 for w in words) * sum(other[w] ** 2 for w in words))
    cosine = profile_similarity(poems, k=2).set_index("author")["cosine_to_human"]["bot"]
    assert cosine == pytest.approx(dot / norms, abs=1e-12)


def test_token_and_mtld_intervals_stay_non_negative() -> None:
    """A t interval of two poems of 2 and 60 tokens reached below 0 tokens (and MTLD below 0):
    counts are clipped at 0, as the shares are at 0 and 1; the upper bound is Student t's."""
    from scipy import stats

    poems = pd.DataFrame({
        "generation_id": ["a", "b"], "author": ["bot", "bot"], "poem_form": ["x", "x"],
        "tokens": [2, 60], "ttr": [1.0, 0.5], "mattr": [math.nan, 0.9], "mtld": [3.0, 90.0],
    })  # fmt: skip
    for metric in ("repetition_all", "repetition_all_chance", "repetition_all_excess",
                   "repetition_content", "repetition_content_chance",
                   "repetition_content_excess"):  # fmt: skip
        poems[metric] = math.nan
    row = lexical_summary(poems).iloc[0]
    for metric in ("tokens", "mtld"):
        values = poems[metric].to_numpy(float)
        low, high = stats.t.interval(0.95, 1, loc=values.mean(), scale=stats.sem(values))
        assert low < 0
        assert row[f"{metric}_ci_low"] == 0.0
        assert row[f"{metric}_ci_high"] == pytest.approx(high, rel=1e-12)
