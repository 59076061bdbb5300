"""`ngram`: the offline scorer — an interpolated Kneser-Ney word n-gram model.

Trained on the original poems of the pairs file itself, leaving out the poem being scored (so a
poem is never scored by a model that has read it). Tokens are lower-cased words, punctuation marks
and line breaks; words never seen in training share an unknown-word probability. The scores are
real log-probabilities of the whole text (ending with an end-of-poem token), so sums and
per-token means are comparable with the neural scorers' (token counts differ, of course).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import cache

from poemetric.probes.pairs import Pair
from poemetric.probes.scorers.base import ScoreRecord, record_from_scores
from poemetric.probes.scorers.cache import ScoreCache, digest
from poemetric.providers.transformers_engine import SequenceScore

_TOKEN = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*|[^\sa-z0-9]")
START, END, NEWLINE, UNKNOWN = "<s>", "</s>", "<nl>", "<unk>"
DISCOUNT = 0.75


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    for number, line in enumerate(text.lower().split("\n")):
        if number:
            tokens.append(NEWLINE)
        tokens.extend(_TOKEN.findall(line))
    return [*tokens, END]


class KneserNey:
    """Interpolated Kneser-Ney of order `order` (absolute discount 0.75 at every order)."""

    def __init__(self, texts: Sequence[str], order: int = 3) -> None:
        self.order = order
        self.counts: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(order + 1)]
        for text in texts:
            padded = [START] * (order - 1) + tokenize(text)
            for n in range(1, order + 1):
                for i in range(order - 1, len(padded)):
                    self.counts[n][tuple(padded[i - n + 1 : i + 1])] += 1
        self.vocab = {gram[0] for gram in self.counts[1]} | {UNKNOWN}
        # Continuation counts: how many distinct words precede an n-gram (lower orders).
        self.continuation: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(order + 1)]
        for n in range(2, order + 1):
            for gram in self.counts[n]:
                self.continuation[n - 1][gram[1:]] += 1
        self.context_total: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(order + 1)]
        self.context_types: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(order + 1)]
        for n in range(1, order + 1):
            table = self.counts[n] if n == order else self.continuation[n]
            for gram, count in table.items():
                self.context_total[n][gram[:-1]] += count
                self.context_types[n][gram[:-1]] += 1

    def prob(self, word: str, context: tuple[str, ...]) -> float:
        if word not in self.vocab:
            word = UNKNOWN
        return self._prob(word, context[-(self.order - 1) :] if self.order > 1 else ())

    def _prob(self, word: str, context: tuple[str, ...]) -> float:
        n = len(context) + 1
        if n == 1:
            unigrams = self.continuation[1] if self.order > 1 else self.counts[1]
            total = self.context_total[1][()]
            return (unigrams[(word,)] + 1) / (total + len(self.vocab))
        table = self.counts[n] if n == self.order else self.continuation[n]
        total = self.context_total[n][context]
        lower = self._prob(word, context[1:])
        if total == 0:
            return lower
        count = table[(*context, word)]
        backoff = DISCOUNT * self.context_types[n][context] / total
        return max(count - DISCOUNT, 0) / total + backoff * lower

    def score(self, text: str) -> SequenceScore:
        padded = [START] * (self.order - 1) + tokenize(text)
        values = tuple(
            math.log(self.prob(padded[i], tuple(padded[i - self.order + 1 : i])))
            for i in range(self.order - 1, len(padded))
        )
        return SequenceScore(math.fsum(values), len(values), values)


class NgramScorer:
    """Leave-one-poem-out Kneser-Ney over the pairs file's original poems."""

    def __init__(self, order: int = 3, cache: ScoreCache | None = None) -> None:
        self.order = order
        self.name = f"ngram:{order}"
        self.cache = cache  # texts scored before are read back, each new one kept

    def score(self, pairs: Sequence[Pair]) -> list[ScoreRecord]:
        from poemetric import __version__

        originals = dict.fromkeys((p.poem_id, p.original) for p in pairs)
        poems = tuple(originals)
        scores: dict[tuple[str, str], SequenceScore] = {}  # (poem id, text): an original once
        keys: dict[tuple[str, str], str] = {}
        store = self.cache
        if store is not None:  # a text's score depends on the poems its model trains on
            store.bind({"scorer": "ngram", "order": self.order, "poemetric": __version__})
            training = digest(poems)  # poem p's model: all of these but p's
            for item in ((p.poem_id, t) for p in pairs for t in (p.original, p.corrupted)):
                keys[item] = store.key(item[1], f"{training} {item[0]}")
            known = store.lookup(list(keys.values()))
            scores = {item: known[key] for item, key in keys.items() if key in known}

        @cache
        def model_without(poem_id: str) -> KneserNey:
            return KneserNey([text for pid, text in poems if pid != poem_id], self.order)

        def score(poem_id: str, text: str) -> SequenceScore:
            if (poem_id, text) not in scores:
                scores[poem_id, text] = model_without(poem_id).score(text)
                if store is not None:
                    store.store([(keys[poem_id, text], scores[poem_id, text])])
            return scores[poem_id, text]

        return [
            record_from_scores(
                pair,
                self.name,
                score(pair.poem_id, pair.original),
                score(pair.poem_id, pair.corrupted),
                training_poems=len(poems) - 1,
            )
            for pair in pairs
        ]
