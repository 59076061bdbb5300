"""Uniqueness (Potash, Romanov & Rumshisky, Sec. 4.2): the largest tf-idf cosine similarity of a
poem to any text of a reference corpus, and which text that is.

1.0 means the poem is a verbatim copy of a reference text (up to case, punctuation and word
order within the bag of words); unrelated poems score near 0. As in the paper, the *maximum* over
the corpus is taken, so a poem made mostly of one reference text scores high even when it is far
from all the others.

The tf-idf representation (scikit-learn's `TfidfVectorizer`, imported when first needed):

* tokens: lower-cased words including one-letter words and inner apostrophes (*o'er*), read
  after the normalisation of `poemetric.text.tokens` (NFC, typographic apostrophes as
  ASCII ones), so a copy typed with *summer’s* is still a copy of *summer's*;
* unigrams and bigrams, so that copied phrasing weighs more than shared vocabulary;
* sublinear term frequency (1 + ln tf), so a word repeated in a refrain does not dominate;
* smoothed idf fitted on the reference corpus alone, so a poem's score does not depend on which
  other poems are scored with it. Words of the poem that no reference text uses get the idf of
  a word seen in no document and count in the poem's vector norm: appending new text to a copy
  lowers its similarity below 1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: Poems at or above this similarity to one reference text are flagged as near-copies. Measured
#: on the demo poems (docs/ghostwriting.md): a sonnet with 1, 2, 3, 4, 5 of its 14 lines replaced
#: scores 0.93, 0.86, 0.78, 0.71, 0.64; a limerick with 1 or 2 of 5 lines replaced 0.75, 0.55;
#: different demo poems score at most 0.21 against each other, and the demo's Markov poems (chains
#: over the same poems) at most 0.59 (2026-11-27). 0.7 flags a poem most of whose lines come from
#: one text.
NEAR_COPY_THRESHOLD = 0.7
# Similarities scored at once by `nearest` (texts x references): 4M cells, 32 MB per array.
SCORE_BLOCK_CELLS = 1 << 22

TOKEN_PATTERN = r"(?u)\b\w+(?:['’]\w+)*\b"


@dataclass(frozen=True)
class ReferenceText:
    """One text of the reference corpus: `id` is unique, `label` says what it is."""

    id: str
    text: str
    label: str


@dataclass(frozen=True)
class Nearest:
    """A poem's most similar reference text."""

    similarity: float
    reference_id: str | None
    reference_label: str | None


class UniquenessIndex:
    """tf-idf vectors of a reference corpus; `nearest` scores poems against it."""

    def __init__(self, references: Sequence[ReferenceText]) -> None:
        if not references:
            raise ValueError("the reference corpus is empty")
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.references = list(references)
        from poemetric.text.tokens import normalize_text

        self.vectorizer = TfidfVectorizer(
            preprocessor=normalize_text,  # lower-cases too (it replaces `lowercase`)
            token_pattern=TOKEN_PATTERN,
            ngram_range=(1, 2),
            sublinear_tf=True,
            smooth_idf=True,
            norm="l2",
        )
        self.matrix = self.vectorizer.fit_transform([r.text for r in self.references])
        self._analyzer = self.vectorizer.build_analyzer()
        self._vocabulary: dict[str, int] = self.vectorizer.vocabulary_
        self._idf: np.ndarray = self.vectorizer.idf_
        # The smoothed idf of a term no reference document contains: ln((1 + n) / 1) + 1.
        self._unseen_idf = math.log(1 + len(self.references)) + 1.0

    def _vectors(self, texts: Sequence[str]) -> tuple[Any, np.ndarray]:
        """Un-normalised tf-idf rows over the reference vocabulary, and each text's full norm
        (unseen terms included)."""
        import numpy as np
        from scipy import sparse

        rows: list[int] = []
        columns: list[int] = []
        values: list[float] = []
        norms = np.zeros(len(texts))
        for row, text in enumerate(texts):
            squared = 0.0
            for term, count in Counter(self._analyzer(text)).items():
                weight = 1.0 + math.log(count)
                column = self._vocabulary.get(term)
                if column is None:
                    squared += (weight * self._unseen_idf) ** 2
                    continue
                value = weight * float(self._idf[column])
                rows.append(row)
                columns.append(column)
                values.append(value)
                squared += value * value
            norms[row] = math.sqrt(squared)
        shape = (len(texts), len(self._vocabulary))
        return sparse.csr_matrix((values, (rows, columns)), shape=shape), norms

    def similarities(self, texts: Sequence[str]) -> np.ndarray:
        """Cosine similarity of each text (rows) to each reference (columns), in [0, 1]; NaN
        for a text without a word."""
        import numpy as np

        vectors, norms = self._vectors(texts)
        products = np.asarray((vectors @ self.matrix.T).todense(), dtype=float)
        safe = np.where(norms > 0, norms, 1.0)
        # Rounded so that a verbatim copy is exactly 1.0 rather than 0.9999999999999998.
        scores = np.clip(np.round(products / safe[:, None], 12), 0.0, 1.0)
        scores[norms == 0] = np.nan  # a text without a word is like nothing
        return scores

    def nearest(
        self, texts: Sequence[str], exclude: Sequence[Collection[str]] | None = None
    ) -> list[Nearest]:
        """Each text's most similar reference, leaving out the reference ids in `exclude[i]`
        for text i (e.g. a human poem itself, or the original a poem was prompted with)."""
        if not texts:
            return []
        positions: dict[str, list[int]] = {}
        for k, reference in enumerate(self.references):
            positions.setdefault(reference.id, []).append(k)
        results: list[Nearest] = []
        # Scored a block of texts at a time: the dense texts x references matrix of a run of
        # 31,000 poems against 1,000 references alone is 250 MB (and its temporaries 4 times).
        block = max(1, SCORE_BLOCK_CELLS // len(self.references))
        for start in range(0, len(texts), block):
            scores = self.similarities(texts[start : start + block])
            for offset, text_scores in enumerate(scores):
                results.append(self._best(text_scores, exclude, start + offset, positions))
        return results

    def _best(
        self,
        text_scores: np.ndarray,
        exclude: Sequence[Collection[str]] | None,
        row: int,
        positions: dict[str, list[int]],
    ) -> Nearest:
        import numpy as np

        skipped = exclude[row] if exclude is not None else ()
        masked = text_scores.copy()
        for reference_id in skipped:
            # Every text with the id: two with one id (a corpus built by hand) are both left out.
            masked[positions.get(reference_id, [])] = -1.0
        if np.isnan(masked).all():
            return Nearest(math.nan, None, None)
        best = int(np.argmax(masked))
        if masked[best] < 0:
            return Nearest(math.nan, None, None)
        if masked[best] == 0:
            # No word or word pair in common with any reference (a Chinese poem against an
            # English corpus): every text ties at 0, and none of them is "the nearest".
            return Nearest(0.0, None, None)
        reference = self.references[best]
        return Nearest(float(masked[best]), reference.id, reference.label)


def is_near_copy(similarity: float, threshold: float = NEAR_COPY_THRESHOLD) -> bool:
    return not math.isnan(similarity) and similarity >= threshold
