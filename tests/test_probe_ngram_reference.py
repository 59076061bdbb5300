"""The `ngram` scorer against interpolated Kneser-Ney written out from its definition.

`test_probe_scorers.py` checks that the model is a distribution and leaves the scored poem out;
a wrong discount, a raw count where a continuation count belongs, or a back-off weight of the
wrong context would keep both true. Here each probability is recomputed from the counts alone
(Chen and Goodman's interpolated Kneser-Ney: discount 0.75 at every order, raw trigram counts,
continuation counts below, add-one unigrams over the vocabulary and the unknown word), and one
value is worked by hand.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from poemetric.probes.pairs import Pair
from poemetric.probes.scorers.ngram import KneserNey, NgramScorer, tokenize

D = 0.75
POEMS = {
    "a": "The cat sat on the mat,\nthe cat sat on the hat.",
    "b": "A dog sat on the log,\nthe dog ran in the fog.",
    "c": "The cat ran on the log;\nthe mat sat in the fog!",
}


def reference_logprob(training: list[str], text: str) -> float:
    grams: Counter[tuple[str, ...]] = Counter()
    for poem in training:
        padded = ["<s>", "<s>", *tokenize(poem)]
        grams.update(tuple(padded[i - 2 : i + 1]) for i in range(2, len(padded)))
    middle = Counter(g[1:] for g in grams)  # N1+(. v w): trigram types ending in (v, w)
    unigram = Counter(b[1] for b in middle)  # N1+(. w): bigram types ending in w
    vocab = {w for g in grams for w in g if w != "<s>"} | {"<unk>"}

    def prob(u: str, v: str, w: str) -> float:
        w = w if w in vocab else "<unk>"
        p1 = (unigram[w] + 1) / (sum(unigram.values()) + len(vocab))
        after_v = {b: c for b, c in middle.items() if b[0] == v}
        total2 = sum(after_v.values())  # sum over w' of N1+(. v w')
        p2 = p1
        if total2:
            p2 = max(middle[(v, w)] - D, 0) / total2 + D * len(after_v) / total2 * p1
        after = {g: c for g, c in grams.items() if g[:2] == (u, v)}
        total3 = sum(after.values())
        if not total3:
            return p2
        return max(grams[(u, v, w)] - D, 0) / total3 + D * len(after) / total3 * p2

    padded = ["<s>", "<s>", *tokenize(text)]
    return math.fsum(math.log(prob(*padded[i - 2 : i + 1])) for i in range(2, len(padded)))


def test_ngram_scores_are_interpolated_kneser_ney_from_the_counts() -> None:
    pairs = [
        Pair(id=f"{poem_id}-{n}", poem_id=poem_id, task="t", original=text, corrupted=other)
        for n, (poem_id, text) in enumerate(POEMS.items())
        for other in [text.replace(" on", "", 1)]
    ]
    records = NgramScorer(3).score(pairs)
    for pair, record in zip(pairs, records, strict=True):
        training = [text for poem_id, text in POEMS.items() if poem_id != pair.poem_id]
        for side in ("original", "corrupted"):
            expected = reference_logprob(training, getattr(pair, side))
            assert getattr(record, f"{side}_logprob") == pytest.approx(expected, abs=1e-12)
            assert getattr(record, f"{side}_tokens") == len(tokenize(getattr(pair, side)))


def test_one_kneser_ney_probability_worked_by_hand() -> None:
    # Training "a b" and "a c": trigrams (<s> <s> a) x2, (<s> a b), (<s> a c), (a b </s>),
    # (a c </s>). P(b | <s> a) = (1 - .75)/2 + .75 * 2/2 * P2(b | a); P2(b | a): bigram types
    # after a are (a b), (a c): (1 - .75)/2 + .75 * 2/2 * P1(b); P1(b) = (N1+(. b) + 1) /
    # (sum N1+ + |V|) with N1+(. a) = 1, (. b) = 1, (. c) = 1, (. </s>) = 2 and V = {a, b, c,
    # </s>, <unk>}: (1 + 1) / (5 + 5) = 0.2.
    model = KneserNey(["a b", "a c"], order=3)
    p1 = 2 / 10
    p2 = 0.25 / 2 + 0.75 * p1
    assert model.prob("b", ("<s>", "a")) == pytest.approx(0.25 / 2 + 0.75 * p2, abs=1e-15)
