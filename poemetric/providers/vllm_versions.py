"""What differs between the vLLM releases the `vllm` extra allows (0.7 to current), for the
offline adapter (`vllm_provider`).

- `LLM.chat(..., chat_template_kwargs=)` exists only from vLLM 0.9.0 (vLLM PR #17356, merged
  after 0.8.5): 0.7.x-0.8.x refuse it with a TypeError. There the adapter renders the prompt as
  those releases' own `LLM.chat` does (the tokenizer's chat template as text, encoded without
  special tokens) and sends the token ids to `LLM.generate` (`rendered_prompt`).
- Structured output: `vllm.sampling_params.StructuredOutputsParams` and
  `SamplingParams(structured_outputs=)` since vLLM PR #22772 (merged 2025-08-13),
  `GuidedDecodingParams` and `guided_decoding=` before (removed by PR #29326, late 2025)
  (`json_constraint`).
- `RequestOutput.outputs[i].finish_reason`: "stop" and "length" in every release, "abort"
  too; recent V1 engines also "error" (a request-level engine failure that vLLM calls
  retryable) and "repetition". An aborted or failed request is no answer of the model's (`engine_failure`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any

from poemetric.providers.base import ProviderError

#: Finish reasons of a request the engine ended without an answer of the model's.
ENGINE_FAILURES = frozenset({"abort", "error"})


def chat_takes_template_kwargs(chat: Callable[..., Any]) -> bool:
    """Whether this vLLM's `LLM.chat` accepts `chat_template_kwargs` (vLLM >= 0.9.0)."""
    try:
        parameters = inspect.signature(chat).parameters
    except (TypeError, ValueError):  # no signature to read: assume the current interface
        return True
    return "chat_template_kwargs" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def rendered_prompt(
    tokenizer: Any, conversation: list[dict[str, str]], template_kwargs: dict[str, Any]
) -> dict[str, list[int]]:
    """`conversation` as vLLM 0.7-0.8's `LLM.chat` renders it (the chat template as text with
    the generation prompt, encoded without adding special tokens: the template wrote them),
    with `template_kwargs` given to the template; a `TokensPrompt` for `LLM.generate`."""
    text = tokenizer.apply_chat_template(
        conversation, tokenize=False, add_generation_prompt=True, **template_kwargs
    )
    return {"prompt_token_ids": list(tokenizer.encode(text, add_special_tokens=False))}


def json_constraint(vllm: ModuleType) -> dict[str, Any]:
    """The `SamplingParams` keyword and class that constrain decoding to a JSON schema in this
    vLLM: `("structured_outputs", StructuredOutputsParams)` or `("guided_decoding",
    GuidedDecodingParams)`, as a one-entry dict of keyword to class."""
    params = getattr(vllm, "sampling_params", None)  # imported with the engine (`vllm.LLM`)
    structured = getattr(params, "StructuredOutputsParams", None)
    if structured is not None:
        return {"structured_outputs": structured}
    guided = getattr(params, "GuidedDecodingParams", None)
    if guided is not None:
        return {"guided_decoding": guided}
    raise ProviderError(
        "vllm: this vLLM has no guided decoding (StructuredOutputsParams or "
        "GuidedDecodingParams); set `structured: off` in the judge file",
        retryable=False,
    )


def engine_failure(finish_reason: str | None, request_id: Any) -> ProviderError | None:
    """A retryable error for an output the engine aborted or failed ("abort", "error"): its
    text, if any, is no answer to store (a stored answer is never asked again); else None."""
    if (finish_reason or "").lower() not in ENGINE_FAILURES:
        return None
    return ProviderError(
        f"vllm: the engine ended request {request_id} with finish_reason {finish_reason!r} "
        "(no answer of the model's); asked again",
        retryable=True,
    )
