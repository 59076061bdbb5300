"""Rhyme density as in Potash, Romanov & Rumshisky: rhymed syllables / all syllables, weighted
by the entropy of the poem's tokens.

Rhymes are found in the manner of Hirjee & Brown's rhyme analyser (the tool the paper used):
every syllable is compared with the syllables before it in its own line and the
`window_lines` lines above, so internal rhymes count as well as line endings, and a rhyme may run
over several syllables and words (*gritty* / *city*, *stolen art* / *swollen heart*).

1. Two syllables *match* when they have the same vowel and codas of the same shape
   (`Syllable.rhyme_key`), belong to different words, and the words are not the same word: a
   word repeated is not a rhyme (identity). A line that repeats an earlier line of the poem
   (same words) takes no part in matching: its syllables count among all syllables, but it
   rhymes nothing that its first occurrence did not already rhyme.
2. Matches that continue one another (syllable j-1 with i-1, j with i ...) form a run. The
   rhyme in a run starts at its first pair of stressed syllables and ends at its last pair that
   ends a word on both sides: a rhyme runs from a stressed vowel to the end of a word (*gritty* /
   *city*, *stolen art* / *swollen heart*), so a run of two unstressed syllables (*the* / *a*) or a
   match inside words that then differ (*heaven* / *every*) is no rhyme.
3. Every syllable on either side of a rhyme is *rhymed*. The raw density is rhymed syllables /
   all syllables.

The entropy weighting (paper, Sec. 4.2). The paper says it computes "entropy at the token level
and divide[s] by total number of tokens"; taken literally (H / N) the weight would fall with the
length of any poem, repetitive or not (a 10-token text would weigh 0.33, a sonnet 0.06), while
the paper reports that weighting left the average density of its non-degenerate verses
unchanged. We read it as the entropy divided by its maximum for that many tokens:
``w = H / log2(N)``, the normalised (Pielou) entropy, 1 when no token repeats and lower the more
the text repeats itself; ``rhyme_density = w x raw``.

The paper applied the weight to a detector (Hirjee's) that counts a repeated word as a rhyme.
No weighting of that kind can keep repetition from raising the score: a line without rhymes,
repeated, would go from 0 to a positive density under any positive weight, and in the demo
set even with identity excluded, repeating the internally rhyming last line of Sonnet 18 nine
times raises H/log2(N) x raw from 0.117 to 0.125. So the repetitions are removed at the source
(steps 1 and 3): repeating a line adds syllables but no rhymed syllables, the raw density falls,
and the entropy weight lowers it further (tests/test_ghostwriting_density.py).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from operator import itemgetter

from poemetric.ghostwriting.syllables import Syllable, Word, poem_syllables, poem_words
from poemetric.text.tokens import tokenize

#: Lines above the current one searched for rhymes: 3 reaches the first line of an ABBA quatrain
#: from its fourth and the second line of a limerick from its fifth.
DEFAULT_WINDOW_LINES = 3


@dataclass(frozen=True)
class RhymeDensity:
    """The paper's rhyme density of one text and its parts."""

    syllables: int
    rhymed_syllables: int
    entropy_weight: float
    #: Pairs of rhyming word sequences, as text (for explanations and tests).
    rhymes: tuple[tuple[str, str], ...]

    @property
    def raw(self) -> float:
        return self.rhymed_syllables / self.syllables if self.syllables else math.nan

    @property
    def density(self) -> float:
        return self.raw * self.entropy_weight


def entropy_weight(tokens: list[str]) -> float:
    """Normalised token entropy H / log2(N) in [0, 1]; 1 for fewer than two tokens."""
    total = len(tokens)
    if total < 2:
        return 1.0
    # 0.0 - sum, not -sum: negated, the sum 0.0 of a text of one repeated word was -0.0, printed
    # as "-0.000" (its density too) in every table; every other value is the same to the bit.
    entropy = 0.0 - sum(
        count / total * math.log2(count / total) for count in Counter(tokens).values()
    )
    return entropy / math.log2(total)


def repeated_lines(words: list[Word]) -> set[int]:
    """Lines (0-based) whose words repeat those of an earlier line."""
    by_line: dict[int, list[str]] = defaultdict(list)
    for word in words:
        by_line[word.line].append(word.text)
    seen: set[tuple[str, ...]] = set()
    repeated: set[int] = set()
    for line in sorted(by_line):
        key = tuple(by_line[line])
        if key in seen:
            repeated.add(line)
        seen.add(key)
    return repeated


def _matches(
    syllables: list[Syllable], words: list[Word], window_lines: int
) -> set[tuple[int, int]]:
    """Pairs (j, i), j < i, of matching syllables within the window, repeated lines aside."""
    earlier: dict[tuple[str, tuple[str, ...]], list[int]] = defaultdict(list)
    found: set[tuple[int, int]] = set()
    repeated = repeated_lines(words)
    # Read once per syllable, not once per pair tried.
    lines = [syllable.line for syllable in syllables]
    word_of = [syllable.word for syllable in syllables]
    spelling = [words[word].text for word in word_of]
    for i, syllable in enumerate(syllables):
        line = lines[i]
        if line in repeated:
            continue
        same_key = earlier[syllable.rhyme_key]
        first_line = line - window_lines
        word, text = word_of[i], spelling[i]
        for j in reversed(same_key):
            if lines[j] < first_line:
                break
            if word_of[j] != word and spelling[j] != text:
                found.add((j, i))
        same_key.append(i)
    return found


def find_rhymes(
    syllables: list[Syllable], words: list[Word], window_lines: int = DEFAULT_WINDOW_LINES
) -> list[list[tuple[int, int]]]:
    """The rhymes: runs of matching syllable pairs, each from its first stressed pair on."""
    matches = _matches(syllables, words, window_lines)
    stressed = [syllable.stressed for syllable in syllables]
    word_final = [
        k + 1 == len(syllables) or syllables[k + 1].word != syllable.word
        for k, syllable in enumerate(syllables)
    ]
    rhymes: list[list[tuple[int, int]]] = []
    for j, i in sorted(matches, key=itemgetter(1, 0)):
        if (j - 1, i - 1) in matches:
            continue  # not the start of a run
        run = [(j, i)]
        while (run[-1][0] + 1, run[-1][1] + 1) in matches:
            run.append((run[-1][0] + 1, run[-1][1] + 1))
        trimmed = _trim(run, stressed, word_final)
        if trimmed:
            rhymes.append(trimmed)
    return rhymes


def _trim(
    run: list[tuple[int, int]], stressed: list[bool], word_final: list[bool]
) -> list[tuple[int, int]]:
    """The rhyme inside a run of matching pairs: it starts at the first pair stressed on both
    sides and ends at the last pair that ends a word on both sides (a rhyme runs from a stressed
    vowel to the end of a word: *gritty* / *city*, not *heaven* / *every*). Empty when the run
    has no such span. `stressed` and `word_final` say so of each syllable of the poem."""
    both_stressed = [stressed[a] and stressed[b] for a, b in run]
    if not any(both_stressed):
        return []
    first = both_stressed.index(True)
    ends = [k for k in range(first, len(run)) if word_final[run[k][0]] and word_final[run[k][1]]]
    return run[first : ends[-1] + 1] if ends else []


def _words_text(syllables: list[Syllable], words: list[Word], indices: list[int]) -> str:
    word_ids = dict.fromkeys(syllables[k].word for k in indices)
    return " ".join(words[w].text for w in word_ids)


def rhyme_density(text: str, *, window_lines: int = DEFAULT_WINDOW_LINES) -> RhymeDensity:
    """Rhyme density of `text` (a poem: one line per line) as the paper defines it."""
    words = poem_words(text)
    syllables = poem_syllables(words)
    rhymes = find_rhymes(syllables, words, window_lines)
    rhymed = {index for run in rhymes for pair in run for index in pair}
    described = tuple(
        (
            _words_text(syllables, words, [a for a, _ in run]),
            _words_text(syllables, words, [b for _, b in run]),
        )
        for run in rhymes
    )
    return RhymeDensity(
        syllables=len(syllables),
        rhymed_syllables=len(rhymed),
        entropy_weight=entropy_weight(tokenize(text)),
        rhymes=described,
    )
