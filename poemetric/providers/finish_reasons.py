"""Finish reasons that mean "stopped at the token limit", in every provider's spelling: OpenAI,
`openai-compatible`, vLLM and transformers `length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`.

Shared by the stages that say so: the judge names an answer cut at the limit in its parse error
(`poemetric.judge.finish`), and `generate` and the analysis count the poems stored cut
(`poemetric.store.cut_poems`).
"""

from __future__ import annotations

#: Finish reasons (lower case) that mean "stopped at the token limit", across providers.
TOKEN_LIMIT_FINISHES = frozenset({"length", "max_tokens"})


def stopped_at_token_limit(finish_reason: str | None) -> bool:
    """Whether a provider's `finish_reason` says the answer was stopped at the token limit."""
    return (finish_reason or "").lower() in TOKEN_LIMIT_FINISHES
