"""Finish reasons that mean "stopped at the token limit", in every provider's spelling: OpenAI,
`openai-compatible`, vLLM and transformers `length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`;
and those of an answer the model ended itself (`OWN_STOPS`), so that the rest say that the
provider ended it (OpenAI `content_filter`, Gemini `SAFETY` or `RECITATION`, Anthropic `refusal`).

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


#: Finish reasons (lower case) of an answer the model ended itself, across providers (None:
#: the provider gave none). Compatible servers spell the model's end-of-sequence token their own
#: way: Together `eos`, Hugging Face TGI before 2.2.1 and IBM watsonx `eos_token`.
OWN_STOPS = frozenset(
    {
        "stop",
        "end_turn",
        "stop_sequence",
        "tool_use",
        "tool_calls",
        "finish_reason_unspecified",
        "eos",
        "eos_token",
    }
)


def ended_by_provider(finish_reason: str | None) -> bool:
    """Whether the provider, not the model, ended the answer: a finish reason that is neither
    the model's own stop nor the token limit (a safety or content filter, a refusal)."""
    if not finish_reason:  # none given (some compatible servers send "")
        return False
    reason = finish_reason.lower()
    return reason not in OWN_STOPS and reason not in TOKEN_LIMIT_FINISHES
