"""A reasoning block the chat template opened: local engines see the rendered prompt.

The chat templates of DeepSeek-R1 distills and QwQ end the prompt with ``<think>\\n``, so the
model's answer starts inside that block and holds only its closing ``</think>``. An answer cut at
the token limit before that tag holds no tag at all: its whole reasoning read as the poem. A
local adapter (vLLM's offline engine, transformers) knows the prompt, so it puts the opening tag
the template wrote back in front of a free-text answer that closes the block or was cut at the
token limit (`with_template_opening`), and extraction reads a cut answer as an unclosed `<think>`
block (reasoning, no poem) and a finished one as the block it is. A structured (JSON-constrained) answer is decoded as the answer from its first
token, so it is left as it is. A remote server's prompt is not seen: its reasoning parser
(`vllm serve --reasoning-parser deepseek_r1`) keeps the reasoning apart in its own field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from poemetric.providers.finish_reasons import stopped_at_token_limit

#: The last tokens of a rendered prompt decoded to look for the opening tag (one to a few).
TAIL_TOKENS = 16
_OPENED_AT_END = re.compile(r"<(think|thinking|thought|reasoning)>\s*\Z", re.IGNORECASE)
_OPENS = re.compile(r"\s*<(think|thinking|thought|reasoning)>", re.IGNORECASE)
_CLOSES = re.compile(r"</(think|thinking|thought|reasoning)>", re.IGNORECASE)


def template_opening(prompt_tail: str) -> str | None:
    """The opening reasoning tag (with the whitespace after it) that ends a rendered prompt,
    as a thinking model's chat template writes it ("<think>\\n"), or None."""
    match = _OPENED_AT_END.search(prompt_tail)
    return match.group(0) if match else None


def opening_of_prompt(ids: Sequence[int], decode: Callable[[list[int]], str]) -> str | None:
    """`template_opening` of a prompt given as token ids, its tail decoded by `decode`; None
    too when the tokenizer cannot decode them (the answer is then kept as the engine gave it)."""
    try:
        tail = decode([int(i) for i in ids[-TAIL_TOKENS:]])
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        return None
    return template_opening(tail) if isinstance(tail, str) else None


def with_template_opening(text: str, opening: str | None, finish_reason: str | None) -> str:
    """`text` (an answer that continues the prompt) with the tag the template opened put back
    in front of it, when the answer closes the block or was cut at the token limit (inside it).
    Unchanged when the template opened none, the answer opens one itself, or the model ended an
    answer with no closing tag: a tokenizer that drops the tag as a special token, or a model
    that never thought, would have its whole answer read as reasoning."""
    if not opening or _OPENS.match(text):
        return text
    if _CLOSES.search(text) or stopped_at_token_limit(finish_reason):
        return opening + text
    return text
