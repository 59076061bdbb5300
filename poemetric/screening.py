"""Is a model's answer a poem at all? One definition for every stage that has to decide.

Neutral ground: the judge stage uses it to leave non-poems unjudged (and unpaid), and any other
stage may use it without importing another stage. A text is *not a poem* when it is empty (after
extraction), a refusal, a single line, or mostly not in Latin script (the prompts ask for English
verse). Everything else is a poem, however bad: judging quality is the judge's job.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter

#: A refusal opens with an apology or a statement of inability. Checked on the first line only,
#: and only for short texts, so that a poem beginning "I cannot tell..." is never taken for one.
_REFUSAL_OPENING = re.compile(
    r"^[\W_]*(?:i'?m sorry|i am sorry|sorry,|i apologi[sz]e|i can'?t|i cannot|i can not|"
    r"i won'?t|i will not|i'?m (?:not able|unable)|i am (?:not able|unable)|"
    r"as an ai\b|unfortunately,? i\b|i must decline|i'?m afraid i)",
    re.IGNORECASE,
)
#: A refusal is short; a poem that happens to open like one is longer than this.
REFUSAL_MAX_LINES = 6
MIN_LATIN_SHARE = 0.5


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def looks_like_refusal(text: str) -> bool:
    """A short text whose first line apologises or declines ("I'm sorry, but I can't...")."""
    lines = _lines(text.replace("\u2019", "'"))
    return (
        bool(lines)
        and len(lines) <= REFUSAL_MAX_LINES
        and bool(_REFUSAL_OPENING.match(lines[0].strip()))
    )


def latin_share(text: str) -> float:
    """Share of the letters that are Latin (1.0 for a text without letters)."""
    if text.isascii():
        return 1.0  # every letter is Latin (or there is none)
    # Counted per distinct character: a poem repeats a few dozen characters thousands of times.
    letters = {ch: n for ch, n in Counter(text).items() if ch.isalpha()}
    if not letters:
        return 1.0
    latin = sum(
        n for ch, n in letters.items() if ch.isascii() or "LATIN" in unicodedata.name(ch, "")
    )
    return latin / sum(letters.values())


def not_a_poem_reason(text: str | None) -> str | None:
    """Why `text` is not a poem ("empty", "refusal", ...), or None when it is one."""
    if text is None or not text.strip():
        return "empty: no text left after extraction"
    if looks_like_refusal(text):
        return "refusal: the model declined to write the poem"
    if len(_lines(text)) < 2:
        return "a single line, not a poem"
    if latin_share(text[:5000]) < MIN_LATIN_SHARE:
        return "not in Latin script (English verse expected)"
    return None


@functools.lru_cache(maxsize=1 << 16)
def is_poem(text: str | None) -> bool:
    """Whether `text` is a poem by `not_a_poem_reason` (the rule the judge stage screens by).
    Kept per text: `analyze`, `figures` and `report` ask it of the same answers once per table,
    caption and section (about 50 us each, 0.3 s over a 30-model run's answers)."""
    return not_a_poem_reason(text) is None
