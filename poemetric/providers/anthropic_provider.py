"""Anthropic Messages API (with extended thinking) and Message Batches.

`max_tokens` is required by the API, so when a model file leaves it unset this adapter sends
`DEFAULT_MAX_TOKENS` (4096), or `DEFAULT_MAX_TOKENS_THINKING` (16000, or the thinking budget plus
4096 when that is larger) with extended thinking (`reasoning_budget_tokens`, or a `thinking`
block in `settings.extra`, alike). System messages go into `system=`.

The `anthropic` SDK is imported when a client is built, not with this module (`SDKProvider`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from poemetric.providers.base import (
    BatchCapable,
    BatchStatus,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ProviderError,
    TokenUsage,
    creating_batch,
    refuse_settings,
)
from poemetric.providers.extra_keys import refused_extra
from poemetric.providers.remote_common import SDKProvider, split_base_url_query
from poemetric.providers.remote_errors import malformed_error, scrub_raw, translate_stainless_error

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_MAX_TOKENS = 4096
DEFAULT_MAX_TOKENS_THINKING = 16000
_ANSWER_ROOM = 4096  # tokens left for the answer beyond a large thinking budget
#: The least `thinking.budget_tokens` the Messages API takes.
MIN_THINKING_BUDGET = 1024


class AnthropicProvider(SDKProvider["AsyncAnthropic"], BatchCapable):
    """`provider: anthropic`. `settings.reasoning_budget_tokens` enables extended thinking."""

    name: ClassVar[str] = "anthropic"
    option_keys: ClassVar[frozenset[str] | None] = frozenset()
    default_key_envs: ClassVar[tuple[str, ...]] = ("ANTHROPIC_API_KEY",)
    default_base_url: ClassVar[str] = "https://api.anthropic.com"
    sdk_module: ClassVar[str] = "anthropic"
    sdk_package: ClassVar[str] = "anthropic>=0.40"
    announces_creation: ClassVar[bool] = True  # `submit_batch` says `creating_batch()`
    #: A Message Batch holds at most 100,000 requests and 256 MB (room left for the envelope).
    max_batch_requests: ClassVar[int | None] = 100_000
    max_batch_bytes: ClassVar[int | None] = 250_000_000

    def create_client(self, api_key: str) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic

        base_url, query = split_base_url_query(self.spec.base_url)
        return AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            default_query=query,
            max_retries=0,
            timeout=self.spec.limits.timeout_s,
        )

    async def close_client(self, client: AsyncAnthropic) -> None:
        await client.close()

    # -- request -----------------------------------------------------------------------------
    @classmethod
    def refused_settings(cls, spec: ModelSpec) -> dict[str, str]:
        """`seed` and `reasoning_effort`, which the Messages API does not have, and with
        extended thinking a budget below 1024, a `max_tokens` not above the budget, a
        `temperature` other than 1, `top_k`, or `top_p` below 0.95, which it refuses: each
        request would be refused, one error row per job. And a key of `extra` that the request
        already takes from a typed setting, the model file or the prompt (`extra_keys`)."""
        return _refusals(spec.settings)

    def request_params(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON parameters of one Messages request (also the `params` of a batch item)."""
        settings = request.settings
        refuse_settings(self.name, _refusals(settings))
        system = [m.content for m in request.messages if m.role == "system"]
        params: dict[str, Any] = {
            "model": self.spec.model,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
        }
        thinking = _thinking(settings)  # the typed budget, or a `thinking` block in extra
        budget = None if thinking is None else thinking[1]
        if settings.max_tokens is not None:
            params["max_tokens"] = settings.max_tokens
        elif thinking is not None:
            params["max_tokens"] = max(DEFAULT_MAX_TOKENS_THINKING, (budget or 0) + _ANSWER_ROOM)
        else:
            params["max_tokens"] = DEFAULT_MAX_TOKENS
        if thinking is not None and thinking[0] == _TYPED:  # extra's block goes in as it is
            params["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if system:
            params["system"] = "\n\n".join(system)
        sampling = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "top_k": settings.top_k,
        }
        params.update({key: number for key, number in sampling.items() if number is not None})
        if settings.stop is not None:
            params["stop_sequences"] = list(settings.stop)
        if request.response_schema is not None:
            wanted = request.response_schema
            params["tools"] = [
                {
                    "name": wanted.name,
                    "description": wanted.description or f"Record the {wanted.name}.",
                    "input_schema": wanted.schema,
                }
            ]
            # Extended thinking allows only tool_choice "auto": the model may then answer in text
            # (nothing is added to the prompt), which the judge reads as a free-text answer.
            params["tool_choice"] = (
                {"type": "auto"} if thinking is not None else {"type": "tool", "name": wanted.name}
            )
        params.update(settings.extra)
        return params

    # -- response ----------------------------------------------------------------------------
    def parse_message(self, message: Any, latency_s: float | None) -> Completion:
        """The completion of a message; a retryable `ProviderError` for a malformed one (a 2xx
        body without `content` or `usage`: the SDK does not validate what it reads)."""
        try:
            return self.to_completion(message, message.model_dump(mode="json"), latency_s)
        except (AttributeError, TypeError, ValueError) as error:
            raise malformed_error(self.name, error, self._key) from error

    def to_completion(
        self, message: Any, raw: dict[str, Any], latency_s: float | None
    ) -> Completion:
        texts: list[str] = []
        thoughts: list[str] = []
        thought = False  # a thinking block, its text shown or redacted
        for block in message.content:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "thinking":
                thoughts.append(block.thinking)
                thought = True
            elif kind == "redacted_thinking":
                thought = True
            elif kind == "tool_use":
                # Structured output arrives as the tool's input; it becomes the answer text.
                texts.append(("\n" if texts else "") + json.dumps(block.input, ensure_ascii=False))
        counts = message.usage
        if counts is None:  # no `usage` at all: a malformed reply (`parse_message`), retried
            raise ValueError("the message has no usage")
        # A compatible server may leave a count out or null (the SDK does not validate): None
        # failed the job, the answer paid for dropped and bought again by every later run.
        usage = TokenUsage(
            input_tokens=getattr(counts, "input_tokens", None) or 0,
            output_tokens=getattr(counts, "output_tokens", None) or 0,
            reasoning_tokens=_thinking_tokens(counts, thought),
        )
        return Completion(
            text="".join(texts),
            reasoning="\n\n".join(thoughts) if thoughts else None,
            raw=scrub_raw(raw, self._key),
            usage=usage,
            request_id=getattr(message, "_request_id", None),
            finish_reason=message.stop_reason,
            provider_model=message.model,
            latency_s=latency_s,
        )

    async def generate(self, request: GenerationRequest) -> Completion:
        params = self.request_params(request)
        client = self.client
        started = time.perf_counter()
        try:
            message = await client.messages.create(**_sdk_kwargs(params))
        except Exception as error:
            raise self.translate(error) from error
        return self.parse_message(message, time.perf_counter() - started)

    def translate(self, error: BaseException) -> ProviderError:
        """SDK exception → `ProviderError` with the right `retryable` and retry hint."""
        if isinstance(error, ProviderError):  # ours (a missing SDK or key): no SDK to import
            return error
        import anthropic

        return translate_stainless_error(self.name, error, self._key, anthropic, self.endpoint)

    # -- message batches ---------------------------------------------------------------------
    def batch_item_bytes(self, custom_id: str, request: GenerationRequest) -> int:
        """The request's item of the batch as JSON (with spaces: the SDK sends no more)."""
        return len(json.dumps(self._batch_item(custom_id, request)).encode())

    def _batch_item(self, custom_id: str, request: GenerationRequest) -> dict[str, Any]:
        return {"custom_id": custom_id, "params": self.request_params(request)}

    async def submit_batch(self, items: Sequence[tuple[str, GenerationRequest]]) -> str:
        requests = [self._batch_item(custom_id, request) for custom_id, request in items]
        if len({item["custom_id"] for item in requests}) != len(requests):
            raise ProviderError(
                f"{self.name}: duplicate custom ids in batch", retryable=False, not_sent=True
            )
        client = self.client  # first: it imports the SDK, or says that it is missing
        creating_batch()
        try:
            batch = await client.messages.batches.create(requests=requests)  # type: ignore[arg-type]
        except Exception as error:
            raise self.translate(error) from error
        return batch.id

    async def batch_status(self, batch_id: str) -> BatchStatus:
        try:
            batch = await self.client.messages.batches.retrieve(batch_id)
        except Exception as error:
            raise self.translate(error) from error
        counts = batch.request_counts
        failed = counts.errored + counts.canceled + counts.expired
        total = counts.processing + counts.succeeded + failed
        if batch.processing_status != "ended":
            state: Any = "in_progress"
        elif batch.cancel_initiated_at is not None:
            state = "cancelled"
        elif counts.expired and not counts.succeeded:
            state = "expired"
        else:
            state = "completed"
        return BatchStatus(batch.id, state, total, counts.succeeded, failed)

    async def batch_results(self, batch_id: str) -> dict[str, Completion | ProviderError]:
        results: dict[str, Completion | ProviderError] = {}
        status = await self.batch_status(batch_id)
        if not status.done:
            raise ProviderError(
                f"{self.name}: batch {batch_id} is still in progress; poll batch_status until "
                "it is done",
                retryable=True,
            )
        try:
            stream = await self.client.messages.batches.results(batch_id)
            async for line in stream:
                results[line.custom_id] = self._batch_result(line.result)
        except Exception as error:
            raise self.translate(error) from error
        return results

    def _batch_result(self, result: Any) -> Completion | ProviderError:
        kind = result.type
        if kind == "succeeded":
            try:
                return self.parse_message(result.message, None)
            except ProviderError as error:
                return error
        if kind == "errored":
            detail = result.error.error
            message = getattr(detail, "message", str(detail))
            error_type = getattr(detail, "type", "api_error")
            retryable = error_type in {"api_error", "overloaded_error", "rate_limit_error"}
            return ProviderError(
                f"{self.name}: batch item errored ({error_type}): {message}", retryable=retryable
            )
        return ProviderError(
            f"{self.name}: batch item {kind} before it was processed", retryable=True
        )


def _thinking_tokens(counts: Any, thought: bool) -> int | None:
    """The thinking tokens of a message's `usage`: `output_tokens_details.thinking_tokens`
    where the API gives it (recent releases); else, as thinking is then counted only inside
    `output_tokens`, unknown (None) for an answer that thought, not 0, and 0 for one without
    a thinking block."""
    details = getattr(counts, "output_tokens_details", None)
    if isinstance(details, dict):  # an SDK release that does not declare the field
        counted = details.get("thinking_tokens")
    else:
        counted = getattr(details, "thinking_tokens", None)
    if isinstance(counted, int) and not isinstance(counted, bool):
        return counted
    return None if thought else 0


_TYPED = "reasoning_budget_tokens"
_EXTRA = "extra.thinking"


def _thinking(settings: GenerationSettings) -> tuple[str, int | None] | None:
    """How requests with `settings` ask for extended thinking, and its budget; None: they do
    not. `reasoning_budget_tokens` above 0, or a `thinking` block in `settings.extra` of a type
    other than "disabled" (its `budget_tokens`, None where it gives none), which the API
    treats alike: the same refusals (`_refusals`), the same `max_tokens` left room."""
    budget = settings.reasoning_budget_tokens
    if budget is not None and budget > 0:
        return _TYPED, budget
    block = settings.extra.get("thinking")
    if isinstance(block, dict) and block.get("type") != "disabled":
        given = block.get("budget_tokens")
        return _EXTRA, given if isinstance(given, int) and not isinstance(given, bool) else None
    return None


def _refusals(settings: GenerationSettings) -> dict[str, str]:
    """The settings the Messages API does not have, each with why (`refused_settings`)."""
    refused: dict[str, str] = {}
    if "thinking" in settings.extra and settings.reasoning_budget_tokens is not None:
        refused[_EXTRA] = (
            "a thinking block beside reasoning_budget_tokens: the block would replace the "
            "setting in every request while the run records the setting; keep one"
        )
    if settings.seed is not None:
        refused["seed"] = (
            "the Anthropic Messages API has no seed; remove it from the model's settings"
        )
    if settings.reasoning_effort is not None:
        refused["reasoning_effort"] = (
            "the Anthropic Messages API has no reasoning_effort; use reasoning_budget_tokens "
            "for extended thinking"
        )
    asked = _thinking(settings)
    if asked is not None:  # extended thinking: the API refuses these with it
        source, budget = asked
        named = source if source == _TYPED else f"{source}.budget_tokens"
        if budget is not None and budget < MIN_THINKING_BUDGET:
            refused[source] = (
                f"extended thinking takes a budget of {MIN_THINKING_BUDGET} tokens or more "
                f"(0 or none: no thinking); {budget} is refused"
            )
        if budget is not None and settings.max_tokens is not None and settings.max_tokens <= budget:
            refused["max_tokens"] = (
                f"{settings.max_tokens} is not above {named} {budget}: the API "
                "takes the thinking out of max_tokens and refuses a budget that is not below it; "
                "raise max_tokens, or leave it out (the adapter then sends "
                f"max({DEFAULT_MAX_TOKENS_THINKING}, budget + {_ANSWER_ROOM}))"
            )
        thinking = f"extended thinking ({source}) takes"
        if settings.temperature not in (None, 1):
            refused["temperature"] = f"{thinking} no temperature but 1; remove it"
        if settings.top_k is not None:
            refused["top_k"] = f"{thinking} no top_k; remove it"
        if settings.top_p is not None and settings.top_p < 0.95:
            refused["top_p"] = f"{thinking} top_p from 0.95 to 1 only"
    refused.update(refused_extra(settings.extra, _SENT_FROM))
    return refused


#: The parameters `request_params` fills itself (`refused_extra`); `thinking` is `_thinking`'s.
_SENT_FROM = {
    "temperature": "settings.temperature",
    "top_p": "settings.top_p",
    "top_k": "settings.top_k",
    "max_tokens": "settings.max_tokens",
    "stop_sequences": "settings.stop",
    "model": "the model file's model",
    "messages": "the prompt",
    "system": "the prompt's system messages",
}


#: Parameters passed as SDK keyword arguments. Sampling parameters (temperature, top_p, top_k) go
#: through `extra_body`: recent SDK releases no longer list them as arguments, the API accepts them.
_SDK_PARAMS = frozenset(
    {"model", "messages", "max_tokens", "system", "thinking", "stop_sequences", "tools",
     "tool_choice"}
)  # fmt: skip


def _sdk_kwargs(params: dict[str, Any]) -> dict[str, Any]:
    kwargs = {k: v for k, v in params.items() if k in _SDK_PARAMS}
    extra = {k: v for k, v in params.items() if k not in _SDK_PARAMS}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs
