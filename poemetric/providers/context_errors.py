"""What to change when a provider refuses a request for its length (HTTP 400, not retried).

Two kinds of refusal read alike but need different changes. OpenAI and vLLM count the prompt
plus `max_tokens` against the context window, so a smaller `settings.max_tokens` (or a larger
server context) helps. Anthropic's "prompt is too long" and Gemini's "input token count ...
exceeds" count the prompt alone, where `max_tokens` changes nothing.
"""

from __future__ import annotations

import re

#: Prompt plus completion beyond the context window (OpenAI, vLLM and compatible servers).
_CONTEXT_EXCEEDED = re.compile(
    r"maximum context length|context_length_exceeded|maximum model length", re.IGNORECASE
)
#: The prompt alone beyond the input limit (Anthropic; Gemini API and Vertex AI).
_PROMPT_TOO_LONG = re.compile(
    r"prompt is too long|"
    r"input token count\b.{0,40}?(?:exceeds the maximum number of tokens|only supports up to)",
    re.IGNORECASE,
)
CONTEXT_HINT = (
    " (the prompt plus max_tokens exceed the model's context: lower `settings.max_tokens` in the "
    "model file, or raise the server's context, e.g. vLLM's --max-model-len)"
)
PROMPT_HINT = (
    " (the prompt alone exceeds the model's input limit, so a lower max_tokens will not help: "
    "use a model with a longer context, or a shorter prompt template)"
)


def length_hint(error_text: str) -> str:
    """The hint to append to a 400's message about the request's length, or ""."""
    if _PROMPT_TOO_LONG.search(error_text):
        return PROMPT_HINT
    if _CONTEXT_EXCEEDED.search(error_text):
        return CONTEXT_HINT
    return ""
