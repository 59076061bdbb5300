"""Lexical features of poems (paper Sec. 4.2 and App. F).

Definitions (also in docs/analysis.md):

* Tokens: lower-cased alphabetic words; inner apostrophes and hyphens kept ("o'er", "sun-lit"),
  curly apostrophes normalised, digits and punctuation dropped.
* TTR: distinct tokens / tokens of one poem.
* MATTR (window w = 50, Covington & McFall 2010): the mean TTR of every w-token window; a poem
  shorter than w gets its plain TTR.
* Repetition of the human original: the share of the LLM poem's tokens whose word type also
  occurs in the human poem of the same prompt (`repetition_all`), and the same over content words
  only, i.e. with the stop list removed from both poems (`repetition_content`). 0 = no word
  shared, 1 = every word also in the original. Not defined for the human poems themselves.
* Top words: token counts per author without stop words. Opening word: first token of a poem.
* Profile similarity: cosine between an author's and the human relative-frequency vectors over
  the union of both authors' top-k content words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from poemetric.analysis.data import HUMAN_AUTHOR, author_order

MATTR_WINDOW = 50

#: A small English stop list (function words, auxiliaries, archaic pronouns common in poems).
_STOP_LIST = """
a about above after again against all am an and any are as at be been before being below
between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just
me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up upon very was we were what when where
which while who whom why will with would you your yours yourself yourselves
let may might must shall yet though thus till 'tis 'twas o oh ah
thee thou thy thine ye hath doth art shalt wilt dost hast ere
i'm i'll i'd i've it's don't can't won't that's there's let's
"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_LIST.split())

_TOKEN = re.compile(r"[a-z]+(?:['\-][a-z]+)*")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens of a text (see module docstring)."""
    normalised = text.lower().replace("\u2019", "'").replace("\u2018", "'").replace("\u2014", " ")
    return _TOKEN.findall(normalised)


def content_words(tokens: Iterable[str]) -> list[str]:
    return [t for t in tokens if t not in STOP_WORDS]


def type_token_ratio(tokens: Sequence[str]) -> float:
    return len(set(tokens)) / len(tokens) if tokens else math.nan


def mattr(tokens: Sequence[str], window: int = MATTR_WINDOW) -> float:
    """Moving-average TTR in O(n) with a sliding counter."""
    if not tokens:
        return math.nan
    if len(tokens) <= window:
        return type_token_ratio(tokens)
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


def repetition_rate(poem: str, original: str, *, content_only: bool = False) -> float:
    """Share of `poem`'s tokens whose type also occurs in `original` (NaN if `poem` is empty)."""
    tokens, reference = tokenize(poem), tokenize(original)
    if content_only:
        tokens, reference = content_words(tokens), content_words(reference)
    if not tokens:
        return math.nan
    vocabulary = set(reference)
    return sum(token in vocabulary for token in tokens) / len(tokens)


def poem_features(generations: pd.DataFrame, window: int = MATTR_WINDOW) -> pd.DataFrame:
    """One row per generated poem: tokens, TTR, MATTR, repetition of the human original."""
    rows: list[dict[str, object]] = []
    for row in generations.itertuples(index=False):
        tokens = tokenize(str(row.poem))
        is_human = row.author == HUMAN_AUTHOR
        original = str(row.human_poem) if row.human_poem is not None else ""
        rows.append(
            {
                "generation_id": row.generation_id,
                "author": row.author,
                "poem_form": row.poem_form,
                "tokens": len(tokens),
                "ttr": type_token_ratio(tokens),
                "mattr": mattr(tokens, window),
                "repetition_all": math.nan
                if is_human
                else repetition_rate(str(row.poem), original),
                "repetition_content": math.nan
                if is_human
                else repetition_rate(str(row.poem), original, content_only=True),
            }
        )
    return pd.DataFrame(
        rows,
        columns=["generation_id", "author", "poem_form", "tokens", "ttr", "mattr",
                 "repetition_all", "repetition_content"],
    )  # fmt: skip


def lexical_summary(features: pd.DataFrame) -> pd.DataFrame:
    """Per author: poems, mean tokens, and mean / SD of TTR, MATTR and repetition rates."""
    metrics = ["tokens", "ttr", "mattr", "repetition_all", "repetition_content"]
    if features.empty:
        return pd.DataFrame(
            columns=["author", "n", *[f"{m}_{s}" for m in metrics for s in ("mean", "sd")]]
        )
    grouped = features.groupby("author")[metrics].agg(["mean", "std"])
    level_metric = grouped.columns.get_level_values(0)
    level_stat = grouped.columns.get_level_values(1)
    grouped.columns = pd.Index(
        [f"{m}_{'sd' if s == 'std' else s}" for m, s in zip(level_metric, level_stat, strict=True)]
    )
    grouped.insert(0, "n", features.groupby("author").size())
    return grouped.loc[author_order(grouped.index)].reset_index()


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
        for rank, (word, count) in enumerate(counts.most_common(k), start=1):
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
        for rank, (word, count) in enumerate(firsts.most_common(k), start=1):
            rows.append(
                {
                    "author": author,
                    "rank": rank,
                    "word": word.capitalize(),
                    "count": count,
                    "share": count / total,
                }
            )
    return pd.DataFrame(rows, columns=["author", "rank", "word", "count", "share"])


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
            {w for w, _ in human.most_common(k)} | {w for w, _ in counts[author].most_common(k)}
        )
        a = np.array([counts[author][w] / total for w in vocabulary])
        b = np.array([human[w] / human_total for w in vocabulary])
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        rows.append(
            {"author": author, "cosine_to_human": float(a @ b) / norm if norm else math.nan}
        )
    return pd.DataFrame(rows, columns=columns)
