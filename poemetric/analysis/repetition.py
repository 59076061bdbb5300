"""Repetition of the human original, with a chance baseline (paper Sec. 4.2, Fig. 5).

For an LLM poem P written for the prompt of human poem H:

* `repetition_all` = |{tokens t of P : type(t) occurs in H}| / |tokens of P| (token level: a
  shared word repeated in P counts each time). 0 = no word shared, 1 = every word of P is in H.
* `repetition_all_chance` = the mean of the same overlap between P and the originals of the
  *other* prompts of the same form (all other prompts when H is the only poem of its form).
  Any two English poems share words ("the", "love", "night"): this is what P would share with
  an original it was not asked to imitate.
* `repetition_all_excess` = `repetition_all` − `repetition_all_chance`: the overlap the prompt's
  own original explains. Near 0 = no more imitation than chance.
* `repetition_content*`: the same with the stop list removed from both poems.
* `chance_pool`: how many other originals the baseline averages over.

Human poems get NaN (a poem trivially repeats itself). Computed as a sparse poem × word-type
product, a block of poems at a time, so 6,090 poems × 203 originals take well under a second and
31,000 poems × 1,000 originals stay within tens of MB.
"""

from __future__ import annotations

import math
from array import array

import numpy as np
import pandas as pd
from scipy import sparse

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.lexical import content_words
from poemetric.text.tokens import tokenize

REPETITION_COLUMNS = [
    "generation_id",
    "repetition_all",
    "repetition_all_chance",
    "repetition_all_excess",
    "repetition_content",
    "repetition_content_chance",
    "repetition_content_excess",
    "chance_pool",
]


def repetition_rate(poem: str, original: str, *, content_only: bool = False) -> float:
    """Share of `poem`'s tokens whose type also occurs in `original` (NaN if `poem` is empty)."""
    tokens, reference = tokenize(poem), tokenize(original)
    if content_only:
        tokens, reference = content_words(tokens), content_words(reference)
    if not tokens:
        return math.nan
    vocabulary = set(reference)
    return sum(token in vocabulary for token in tokens) / len(tokens)


# Poems scored at once (poems x originals, dense): 1M cells, 8 MB per array, the sparse product
# and two dense copies of it held at once (4M cells: 19 MB more at the peak of `analyze` at
# 14,833 poems, the time the same). The whole matrix of 31,000 poems x 1,000 originals was
# 250 MB, and 1.6 GB with the sparse product before it.
OVERLAP_BLOCK_CELLS = 1 << 20


def _overlap_counts(
    poems: list[list[str]], originals: list[list[str]]
) -> tuple[sparse.csr_matrix, sparse.csc_matrix, np.ndarray]:
    """Each poem's token counts and each original's word types over the originals' vocabulary
    (their product is the poems x originals shared-token counts), and each poem's token count."""
    vocabulary: dict[str, int] = {}
    rows, cols = [], []
    for index, tokens in enumerate(originals):
        for word in set(tokens):
            rows.append(index)
            cols.append(vocabulary.setdefault(word, len(vocabulary)))
    present = sparse.csr_matrix(
        (np.ones(len(rows)), (rows, cols)), shape=(len(originals), max(len(vocabulary), 1))
    )
    # Built as CSR arrays of machine integers, a poem's row at a time: lists of Python ints
    # (row and column, 36 bytes each a token) and their COO conversion held several times the
    # matrix. A word repeated in a poem is stored once per token: the product adds them up, and
    # counts are small integers, so the sums are exact in any order.
    columns, row_ends = array("i"), array("q", [0])
    for tokens in poems:
        columns.extend(column for column in map(vocabulary.get, tokens) if column is not None)
        row_ends.append(len(columns))
    counts = sparse.csr_matrix(
        (
            np.ones(len(columns)),
            np.frombuffer(columns, dtype=np.int32),
            np.frombuffer(row_ends, dtype=np.int64),
        ),
        shape=(len(poems), present.shape[1]),
    )
    lengths = np.array([len(tokens) for tokens in poems], dtype=float)
    return counts, present.T, lengths


def _own_and_chance(
    poems: list[list[str]], originals: list[list[str]], own: np.ndarray, pools: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Each poem's repetition rate of its own original, and the mean over its chance pool;
    a block of poems at a time (`OVERLAP_BLOCK_CELLS`)."""
    counts, present, lengths = _overlap_counts(poems, originals)
    own_rate = np.empty(len(poems))
    chance = np.empty(len(poems))
    block = max(1, OVERLAP_BLOCK_CELLS // max(len(originals), 1))
    for start in range(0, len(poems), block):
        stop = min(start + block, len(poems))
        shared = np.asarray((counts[start:stop] @ present).todense())
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = shared / lengths[start:stop, None]
        own_rate[start:stop] = rates[np.arange(stop - start), own[start:stop]]
        chance[start:stop] = [
            rates[i - start, pools[i]].mean() if pools[i].size else np.nan
            for i in range(start, stop)
        ]
    return own_rate, chance


def repetition_features(generations: pd.DataFrame) -> pd.DataFrame:
    """Per generation: repetition of its own original, the chance baseline and the excess."""
    # Only the columns read here: a filtered frame copies every string column it holds (the
    # human original's text on every row among them).
    llm = generations.loc[
        generations["author"] != HUMAN_AUTHOR, ["generation_id", "poem_id", "poem"]
    ]
    if llm.empty:
        return pd.DataFrame(columns=REPETITION_COLUMNS)
    originals = (
        generations.drop_duplicates("poem_id")[["poem_id", "poem_form", "human_poem"]]
        .sort_values("poem_id")
        .reset_index(drop=True)
    )
    position = {poem_id: i for i, poem_id in enumerate(originals["poem_id"])}
    forms = originals["poem_form"].to_numpy()
    own = llm["poem_id"].map(position).to_numpy()
    pool_of: dict[int, np.ndarray] = {}  # one array per original, shared by its poems
    for index in dict.fromkeys(own.tolist()):
        same_form = np.flatnonzero(forms == forms[index])
        pool = same_form[same_form != index]
        if pool.size == 0:
            pool = np.delete(np.arange(len(originals)), index)
        pool_of[index] = pool
    pools = [pool_of[index] for index in own.tolist()]
    result: dict[str, object] = {
        "generation_id": llm["generation_id"].to_numpy(),
        "chance_pool": [len(pool) for pool in pools],
    }
    original_tokens = [tokenize(str(text or "")) for text in originals["human_poem"]]
    poem_tokens = [tokenize(str(text)) for text in llm["poem"]]
    for name, keep in (("all", False), ("content", True)):
        poems = [content_words(t) for t in poem_tokens] if keep else poem_tokens
        refs = [content_words(t) for t in original_tokens] if keep else original_tokens
        own_rate, chance = _own_and_chance(poems, refs, own, pools)
        result[f"repetition_{name}"] = own_rate
        result[f"repetition_{name}_chance"] = chance
        result[f"repetition_{name}_excess"] = own_rate - chance
    return pd.DataFrame(result)[REPETITION_COLUMNS]
