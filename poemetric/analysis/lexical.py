"""Lexical features of poems (paper Sec. 4.2 and App. F).

Definitions (also in docs/analysis.md):

* Tokens: `poemetric.text.tokens.tokenize` (shared with the ghostwriting measures): Unicode
  words, lower-cased after NFC normalisation; inner apostrophes and hyphens kept; digits and
  punctuation dropped.
* TTR: distinct tokens / tokens of one poem (the paper's measure;
  `poemetric.text.tokens.type_token_ratio`, shared with `ghostwriting score`).
* MATTR (Covington & McFall 2010) with window w = `MATTR_WINDOW` (20 tokens): the mean TTR of
  every w-token window. The window fits the shortest poems of the dataset (limericks of 26-34
  tokens, the shortest ballad 21), so every form is measured alike; a poem shorter than w has no
  MATTR (NaN, counted as `mattr_short` per author), never a silent TTR fallback.
* MTLD (McCarthy & Jarvis 2010, factor threshold 0.72, mean of the forward and backward pass):
  defined for any length, but the authors advise caution below about 100 tokens.
* Repetition of the human original, its chance baseline and the difference: `repetition.py`;
  per-poem features and per-author summaries: `features.py`.
* Top words: token counts per author without stop words. Opening word: first token of a poem.
  Ties in a count are ranked alphabetically, so the order the poems are stored in does not
  matter.
* Profile similarity: cosine between an author's and the human relative-frequency vectors over
  the union of both authors' top-k content words.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.text.tokens import tokenize
from poemetric.text.tokens import type_token_ratio as type_token_ratio  # moved; old path kept

MATTR_WINDOW = 20
MTLD_THRESHOLD = 0.72

#: A small English stop list (function words, auxiliaries, archaic pronouns common in poems).
_STOP_LIST = """
a about above after again against all am an and any are as at be been before being below
between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just
me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up upon very was we were what when where
which while who whom why will with would you your yours yourself yourselves
let may might must shall yet though thus till 'tis 'twas 'twere o oh ah
thee thou thy thine ye hath doth art shalt wilt dost hast ere
i'm i'll i'd i've it's don't can't won't that's there's let's
"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_LIST.split())


def content_words(tokens: Iterable[str]) -> list[str]:
    return [t for t in tokens if t not in STOP_WORDS]


def mattr(tokens: Sequence[str], window: int = MATTR_WINDOW) -> float:
    """Moving-average TTR in O(n) with a sliding counter; NaN when shorter than `window`."""
    if len(tokens) < window or window < 1:
        return math.nan
    counts: Counter[str] = Counter(tokens[:window])
    total = len(counts)
    for index in range(window, len(tokens)):
        leaving, entering = tokens[index - window], tokens[index]
        counts[leaving] -= 1
        if counts[leaving] == 0:
            del counts[leaving]
        counts[entering] += 1
        total += len(counts)
    return total / (len(tokens) - window + 1) / window


def _mtld_pass(tokens: Sequence[str], threshold: float) -> float:
    factors = 0.0
    types: set[str] = set()
    count = 0
    for token in tokens:
        types.add(token)
        count += 1
        if len(types) / count <= threshold:
            factors += 1
            types, count = set(), 0
    if count:  # the partial factor at the end, as in McCarthy & Jarvis (2010)
        factors += (1 - len(types) / count) / (1 - threshold)
    return len(tokens) / factors if factors else math.nan


def mtld(tokens: Sequence[str], threshold: float = MTLD_THRESHOLD) -> float:
    """Measure of textual lexical diversity: mean of the forward and backward pass. A text that
    never drops to the threshold has only the partial factor (a repeated word: a finite MTLD);
    with every word distinct that is 0, and the MTLD NaN."""
    if not tokens:
        return math.nan
    passes = [_mtld_pass(tokens, threshold), _mtld_pass(tokens[::-1], threshold)]
    finite = [value for value in passes if math.isfinite(value)]
    return sum(finite) / len(finite) if finite else math.nan


def most_frequent(counts: Counter[str], k: int) -> list[tuple[str, int]]:
    """The k most frequent words, ties broken alphabetically: `Counter.most_common` breaks them
    by first occurrence, so the same poems stored in another order (merged shards) gave other
    top words, and another profile similarity."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]


def word_counts(texts: Iterable[str]) -> Counter[str]:
    counter: Counter[str] = Counter()
    for text in texts:
        counter.update(content_words(tokenize(text)))
    return counter


def top_words(generations: pd.DataFrame, k: int = 20) -> pd.DataFrame:
    """Per author the k most frequent content words with count and share of content tokens."""
    rows: list[dict[str, object]] = []
    for author in author_order(generations["author"].unique()):
        counts = word_counts(generations.loc[generations["author"] == author, "poem"].astype(str))
        total = sum(counts.values()) or 1
        for rank, (word, count) in enumerate(most_frequent(counts, k), start=1):
            rows.append(
                {
                    "author": author,
                    "rank": rank,
                    "word": word,
                    "count": count,
                    "share": count / total,
                }
            )
    return pd.DataFrame(rows, columns=["author", "rank", "word", "count", "share"])


def opening_words(generations: pd.DataFrame, k: int = 10) -> pd.DataFrame:
    """Per author the k most common first words of poems (stop words kept: "The", "In")."""
    rows: list[dict[str, object]] = []
    for author in author_order(generations["author"].unique()):
        poems = generations.loc[generations["author"] == author, "poem"].astype(str)
        firsts = Counter(tokens[0] for tokens in map(tokenize, poems) if tokens)
        total = sum(firsts.values()) or 1
        for rank, (word, count) in enumerate(most_frequent(firsts, k), start=1):
            rows.append(
                {
                    "author": author,
                    "rank": rank,
                    "word": _capitalised(word),
                    "count": count,
                    "share": count / total,
                }
            )
    return pd.DataFrame(rows, columns=["author", "rank", "word", "count", "share"])


def _capitalised(word: str) -> str:
    """`word` as it opens a poem: its first letter upper-case, after the apostrophe of an
    elision (`'Twas`; `str.capitalize` left `'twas` as it was)."""
    elided = len(word) - len(word.lstrip("'"))
    return word[:elided] + word[elided:].capitalize()


def profile_similarity(generations: pd.DataFrame, k: int = 20) -> pd.DataFrame:
    """Cosine similarity of each author's top-k word profile to the human profile."""
    columns = ["author", "cosine_to_human"]
    authors = author_order(generations["author"].unique())
    if HUMAN_AUTHOR not in authors:
        return pd.DataFrame(columns=columns)
    counts = {
        author: word_counts(generations.loc[generations["author"] == author, "poem"].astype(str))
        for author in authors
    }
    human = counts[HUMAN_AUTHOR]
    human_total = sum(human.values()) or 1
    rows = []
    for author in authors:
        total = sum(counts[author].values()) or 1
        vocabulary = sorted(
            {w for w, _ in most_frequent(human, k)}
            | {w for w, _ in most_frequent(counts[author], k)}
        )
        a = np.array([counts[author][w] / total for w in vocabulary])
        b = np.array([human[w] / human_total for w in vocabulary])
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        rows.append(
            {"author": author, "cosine_to_human": float(a @ b) / norm if norm else math.nan}
        )
    return pd.DataFrame(rows, columns=columns)
