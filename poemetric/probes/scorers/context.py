"""Texts longer than a model's context, refused before scoring with the pairs they belong to.

A causal model with a table of learned positions (GPT-2, the model of both papers: 1,024 tokens)
stops with `IndexError: index out of range in self` on a longer text, after a traceback and with
nothing written; a model with rotary positions scores it, but past the context it was trained on
its log-probabilities are not the model's. The project's own dataset has ballads of 6,700 tokens.
So `hf:` measures every text first and refuses a run with any text that does not fit, naming
the pairs and poems, before a model pass is spent on the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from poemetric.probes.pairs import Pair
from poemetric.providers.model_source import LocalModelError
from poemetric.text.plural import counted, plural

#: Configuration fields that give a model's positions (GPT-2 names them `n_positions`, `n_ctx`).
POSITION_FIELDS = ("max_position_embeddings", "n_positions", "n_ctx")
#: A tokenizer's `model_max_length` at or above this means "not set" (transformers' default is
#: 1e30).
UNSET_MAX_LENGTH = 1_000_000


def model_context(config: Any, tokenizer: Any = None) -> int | None:
    """The most tokens one sequence may have, special and prefix tokens included: the model's
    positions (`POSITION_FIELDS` of its configuration) or the tokenizer's `model_max_length`,
    whichever is smaller (RoBERTa's table has 514 rows for 512 tokens); None when neither says."""
    limits: list[int] = []
    for name in POSITION_FIELDS:
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            limits.append(value)
            break
    declared = getattr(tokenizer, "model_max_length", None)
    if isinstance(declared, int) and 0 < declared < UNSET_MAX_LENGTH:
        limits.append(declared)
    return min(limits) if limits else None


def refuse_too_long(
    texts: Sequence[str],
    lengths: Sequence[int],
    limit: int | None,
    pairs: Sequence[Pair],
) -> None:
    """`LocalModelError` when a text's length (in tokens, as the model reads it) passes `limit`,
    naming the longest, the pairs and the poems they belong to; nothing when all fit."""
    if limit is None:
        return
    long = {text: length for text, length in zip(texts, lengths, strict=True) if length > limit}
    if not long:
        return
    longest = max(long, key=lambda text: long[text])
    touched = [p for p in pairs if p.original in long or p.corrupted in long]
    where = _where(longest, touched)
    poems = list(dict.fromkeys(p.poem_id for p in touched))
    shown = ", ".join(poems[:5]) + (f" and {len(poems) - 5} more" if len(poems) > 5 else "")
    which = (
        f"{counted(len(touched), 'pair')} of {counted(len(poems), 'poem')} ({shown})"
        if touched
        else plural(len(long), "it", "they")
    )
    raise LocalModelError(
        f"{counted(len(long), 'text')} {plural(len(long), 'is', 'are')} longer than the "
        f"{limit} tokens the model takes (its context): the longest has {long[longest]} tokens"
        f"{where}; {which} cannot be scored, since a model reads nothing past its context "
        "(GPT-2 stops with an index error; a model with rotary positions gives "
        "log-probabilities it was never trained for). Build the pairs from shorter poems (`probe build ... --forms "
        "limerick,sonnet`) or score with a model of a longer context; nothing was scored"
    )


def _where(text: str, pairs: Sequence[Pair]) -> str:
    for pair in pairs:
        if text in (pair.original, pair.corrupted):
            side = "original" if text == pair.original else "corrupted text"
            return f" (the {side} of pair {pair.id!r}, poem {pair.poem_id!r})"
    return ""
