"""OpenAI chat completions, and any OpenAI-compatible endpoint (DeepSeek, Together, `vllm serve`).

One call per `generate`, with the SDK's own retries disabled: the batch runner retries, using the
`ProviderError` this module raises. Settings left `None` are not sent, so the API's defaults apply.
The `openai` SDK is imported when a client is built, not with this module (`SDKProvider`).
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ProviderError,
    TokenUsage,
    refuse_settings,
)

# The batch API, in a module of its own; its names are imported from here as well.
from poemetric.providers.extra_keys import SAMPLING, refused_extra
from poemetric.providers.openai_batches import CHAT_ENDPOINT as CHAT_ENDPOINT
from poemetric.providers.openai_batches import LIST_PAGE as LIST_PAGE
from poemetric.providers.openai_batches import SUBMISSION_TAG_KEY as SUBMISSION_TAG_KEY
from poemetric.providers.openai_batches import OpenAIBatches
from poemetric.providers.openai_batches import refuses_metadata as refuses_metadata
from poemetric.providers.remote_common import SDKProvider, split_base_url_query
from poemetric.providers.remote_errors import scrub_raw, translate_stainless_error
from poemetric.redaction import url_to_copy, url_without_credentials

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

#: o1, o3-mini, o4-mini, gpt-5...: `max_completion_tokens`, `reasoning_effort`, no temperature.
REASONING_MODEL_RE = re.compile(r"^(o\d|gpt-5)")


class OpenAIProvider(SDKProvider["AsyncOpenAI"], OpenAIBatches):
    """`provider: openai`. `options.reasoning_model: true|false` overrides the name-based guess.
    Its batch API (`BatchCapable`, `FindsBatches`) is `OpenAIBatches`."""

    name: ClassVar[str] = "openai"
    option_keys: ClassVar[frozenset[str] | None] = frozenset({"reasoning_model"})
    takes_seed: ClassVar[bool] = True
    default_key_envs: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    sdk_module: ClassVar[str] = "openai"
    sdk_package: ClassVar[str] = "openai>=1.50"

    def create_client(self, api_key: str) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        base_url, query = split_base_url_query(self.spec.base_url)
        return AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            default_query=query,
            max_retries=0,
            timeout=self.spec.limits.timeout_s,
        )

    async def close_client(self, client: AsyncOpenAI) -> None:
        await client.close()

    # -- request -----------------------------------------------------------------------------
    @property
    def is_reasoning_model(self) -> bool:
        return _is_reasoning_model(self.name, self.spec)

    @classmethod
    def refused_settings(cls, spec: ModelSpec) -> dict[str, str]:
        """`temperature`/`top_p` for a reasoning model, `top_k` for the OpenAI API, and
        `reasoning_budget_tokens`: each would be left out of (or refused by) every request; and
        a key of `extra` that the body already takes from a typed setting, the model file or
        the prompt (`extra.temperature`: `extra_keys`)."""
        return _refusals(cls.name, _is_reasoning_model(cls.name, spec), spec.settings)

    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON body of a chat completion request (also one line of a batch file)."""
        settings = request.settings
        refuse_settings(self.name, _refusals(self.name, self.is_reasoning_model, settings))
        body: dict[str, Any] = {
            "model": self.spec.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if self.is_reasoning_model:
            # Reasoning models reject max_tokens, and sample at fixed values (no temperature or
            # top_p: `_refusals`, so a record never names one that was not sent).
            _put(body, "max_completion_tokens", settings.max_tokens)
            _put(body, "reasoning_effort", settings.reasoning_effort)
        else:
            _put(body, "temperature", settings.temperature)
            _put(body, "top_p", settings.top_p)
            _put(body, "max_tokens", settings.max_tokens)
            if settings.reasoning_effort is not None:
                body["reasoning_effort"] = settings.reasoning_effort
        _put(body, "seed", settings.seed)
        if settings.stop is not None:
            body["stop"] = list(settings.stop)
        if settings.top_k is not None:  # vLLM / Together accept it as an extra field
            body["top_k"] = settings.top_k
        if request.response_schema is not None:
            wanted = request.response_schema
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": wanted.name,
                    "description": wanted.description,
                    "schema": wanted.schema,
                    "strict": True,
                },
            }
        body.update(settings.extra)
        return body

    # -- response ----------------------------------------------------------------------------
    def to_completion(self, response: ChatCompletion, latency_s: float | None) -> Completion:
        if not response.choices:
            raise ProviderError(f"{self.name}: response has no choices", retryable=True)
        choice = response.choices[0]
        message = choice.message
        extra = message.model_extra or {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        usage = TokenUsage()
        if response.usage is not None:
            # A compatible server may leave a count out or null (the SDK does not validate):
            # None would end the stage at the cost sum, the answers paid for unstored.
            usage.input_tokens = getattr(response.usage, "prompt_tokens", None) or 0
            usage.output_tokens = getattr(response.usage, "completion_tokens", None) or 0
            details = getattr(response.usage, "completion_tokens_details", None)
            counted = getattr(details, "reasoning_tokens", None)
            if counted is not None:
                usage.reasoning_tokens = counted
            elif reasoning:  # reasoning sent without a count of it (vLLM's, Ollama's server)
                usage.reasoning_tokens = None
        # A refusal under structured outputs comes in `refusal`, with `content` null: it is the
        # answer's text, so that it reads (and counts) as the refusal it is, not as no answer.
        return Completion(
            text=message.content or getattr(message, "refusal", None) or "",
            reasoning=str(reasoning) if reasoning else None,
            raw=scrub_raw(response.model_dump(mode="json"), self._key),
            usage=usage,
            request_id=getattr(response, "_request_id", None),
            finish_reason=choice.finish_reason,
            provider_model=response.model,
            latency_s=latency_s,
        )

    # -- one call ----------------------------------------------------------------------------
    async def generate(self, request: GenerationRequest) -> Completion:
        body = self.request_body(request)
        client = self.client
        started = time.perf_counter()
        try:
            response = await client.chat.completions.create(**_sdk_kwargs(body))
        except Exception as error:
            raise self.translate(error) from error
        return self.to_completion(response, time.perf_counter() - started)

    def translate(self, error: BaseException) -> ProviderError:
        """SDK exception → `ProviderError` with the right `retryable` and retry hint."""
        if isinstance(error, ProviderError):  # ours (a missing SDK or key): no SDK to import
            return error
        import openai

        return translate_stainless_error(self.name, error, self._key, openai, self.endpoint)


class OpenAICompatibleProvider(OpenAIProvider):
    """`provider: openai-compatible` with `base_url` (DeepSeek, Together, a `vllm serve` endpoint).

    Reads DeepSeek's `reasoning_content` (or vLLM's `reasoning`) into `Completion.reasoning`;
    text with inline `<think>` tags is kept as-is. The key comes from `api_key_env` (required;
    `api_key_env: false` for a server that checks none: the SDK then sends `NO_KEY`).
    """

    name: ClassVar[str] = "openai-compatible"
    default_key_envs: ClassVar[tuple[str, ...]] = ()
    accepts_no_key: ClassVar[bool] = True
    needs_base_url: ClassVar[bool] = True
    needs_api_key_env: ClassVar[bool] = True
    #: Not every compatible server accepts `seed` (DeepSeek's API documents none).
    takes_seed: ClassVar[bool] = False

    def __init__(self, spec: Any) -> None:
        if not spec.base_url:
            raise ProviderError(
                f"model {spec.name!r}: provider 'openai-compatible' needs base_url", retryable=False
            )
        super().__init__(spec)

    def translate(self, error: BaseException) -> ProviderError:
        """As `OpenAIProvider.translate`; a 404 from a `base_url` without a path (`vllm serve`
        and Ollama answer under `/v1`, so every call would 404) or with the endpoint's own
        path (`.../v1/chat/completions`, which the SDK adds) stops the model with a hint."""
        translated = super().translate(error)
        if translated.status != 404:
            return translated
        base_url = url_without_credentials(self.spec.base_url or "")
        to_copy, login_note = url_to_copy(self.spec.base_url or "")
        path = urlsplit(base_url).path.rstrip("/")
        if path == "":
            hint = (
                f"base_url {base_url} has no path: OpenAI-compatible servers such as vllm serve "
                f"and Ollama answer under /v1, e.g. {to_copy.rstrip('/')}/v1"
            )
        elif path.endswith(_ENDPOINT_PATH):
            hint = (
                f"base_url {base_url} ends in {_ENDPOINT_PATH}, which the SDK adds to it itself: "
                f"write base_url: {to_copy.rstrip('/').removesuffix(_ENDPOINT_PATH)}"
            )
        else:
            return translated
        if login_note:
            hint += f"; {login_note}"
        return ProviderError(
            f"{translated} ({hint})", retryable=False, status=404, raw=translated.raw, fatal=True
        )


#: The path the SDK appends to `base_url` for a chat completion.
_ENDPOINT_PATH = "/chat/completions"


def _is_reasoning_model(provider: str, spec: ModelSpec) -> bool:
    """`options.reasoning_model` when the file says, else (provider `openai` only) the name."""
    explicit = spec.options.get("reasoning_model")
    if explicit is not None:
        return bool(explicit)
    return provider == "openai" and bool(REASONING_MODEL_RE.match(spec.model))


def _refusals(provider: str, reasoning_model: bool, settings: GenerationSettings) -> dict[str, str]:
    """The settings that cannot be sent as written, each with why (`refused_settings`)."""
    refused: dict[str, str] = {}
    if reasoning_model:
        for field in ("temperature", "top_p"):
            if getattr(settings, field) is not None:
                refused[field] = (
                    "a reasoning model takes none (the API samples at its own fixed value, "
                    "and would refuse or ignore it): remove it from the model's settings, or "
                    "write options.reasoning_model: false if the model is not one"
                )
    if provider == "openai" and settings.top_k is not None:
        refused["top_k"] = "the OpenAI API has no top_k; remove it from the model's settings"
    if settings.reasoning_budget_tokens is not None:
        refused["reasoning_budget_tokens"] = (
            "not an OpenAI chat-completions setting; use reasoning_effort, or settings.extra "
            "for a server-specific field"
        )
    refused.update(refused_extra(settings.extra, _SENT_FROM))
    return refused


#: The body fields `request_body` fills itself (`refused_extra`).
_SENT_FROM = {
    **SAMPLING,
    "max_tokens": "settings.max_tokens",
    "max_completion_tokens": "settings.max_tokens",
    "stop": "settings.stop",
    "reasoning_effort": "settings.reasoning_effort",
    "model": "the model file's model",
    "messages": "the prompt",
}


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


_SDK_PARAMS = frozenset(
    {"model", "messages", "temperature", "top_p", "max_tokens", "max_completion_tokens", "seed",
     "stop", "reasoning_effort", "response_format"}
)  # fmt: skip


def _sdk_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    """Known parameters as SDK arguments; everything else (top_k, extras) in `extra_body`."""
    kwargs = {k: v for k, v in body.items() if k in _SDK_PARAMS}
    extra = {k: v for k, v in body.items() if k not in _SDK_PARAMS}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs
