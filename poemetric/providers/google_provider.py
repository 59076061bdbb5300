"""Google Gemini through `google-genai` (Developer API): generateContent, and inline batch jobs
(`google_batches`).

The SDK is pointed at `spec.base_url` with `HttpOptions(base_url=...)`, its timeout is set in
milliseconds from `spec.limits.timeout_s`, and its retries are switched off with
`HttpRetryOptions(attempts=1)` (which also disables the SDK's implicit retry of aiohttp connection
errors). Thought parts (`part.thought`) become `Completion.reasoning`. The SDK is imported when a
client is built, not with this module (`SDKProvider`).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ValidationError

from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    ModelSpec,
    ProviderError,
    TokenUsage,
    refuse_settings,
)
from poemetric.providers.google_batches import LIST_PAGE as LIST_PAGE
from poemetric.providers.google_batches import GeminiBatches
from poemetric.providers.google_settings import refusals
from poemetric.providers.quota_errors import used_up_gemini_quota
from poemetric.providers.remote_common import SDKProvider
from poemetric.providers.remote_errors import (
    malformed_error,
    scrub,
    scrub_raw,
    status_error,
    transport_error,
)

if TYPE_CHECKING:
    from google import genai
    from google.genai import types

_DURATION = re.compile(r"^\s*([\d.]+)s\s*$")


class GoogleProvider(SDKProvider["genai.Client"], GeminiBatches):
    """`provider: google`. `reasoning_budget_tokens` → `thinking_budget` (0 turns thinking off),
    `reasoning_effort` → `thinking_level`; thoughts are requested whenever thinking is configured
    or the model file says `thinking: true`. `settings.extra` holds `GenerateContentConfig` fields.
    """

    name: ClassVar[str] = "google"
    option_keys: ClassVar[frozenset[str] | None] = frozenset()
    takes_seed: ClassVar[bool] = True
    default_key_envs: ClassVar[tuple[str, ...]] = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    default_base_url: ClassVar[str] = "https://generativelanguage.googleapis.com"
    sdk_module: ClassVar[str] = "google.genai"
    sdk_package: ClassVar[str] = "google-genai>=1.0"

    def create_client(self, api_key: str) -> genai.Client:
        from google import genai
        from google.genai import types

        timeout_s = self.spec.limits.timeout_s  # `.inf` in a model file: no timeout
        options = types.HttpOptions(
            base_url=self.spec.base_url,
            timeout=max(1, round(timeout_s * 1000)) if math.isfinite(timeout_s) else None,
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        return genai.Client(api_key=api_key, http_options=options)

    async def close_client(self, client: genai.Client) -> None:
        await client.aio.aclose()

    # -- request -----------------------------------------------------------------------------
    @classmethod
    def refused_settings(cls, spec: ModelSpec) -> dict[str, str]:
        """A key of `extra` that the config already takes from a typed setting or the prompt
        (`extra.temperature`), and a `thinking_config` block beside the typed thinking settings
        or `thinking: true` (`google_settings`)."""
        return refusals(spec.settings, spec.thinking)

    def contents(self, request: GenerationRequest) -> list[types.Content]:
        from google.genai import types

        return [
            types.Content(
                role="model" if m.role == "assistant" else "user",
                parts=[types.Part(text=m.content)],
            )
            for m in request.messages
            if m.role != "system"
        ]

    def config(self, request: GenerationRequest) -> types.GenerateContentConfig:
        from google.genai import types

        settings = request.settings
        refuse_settings(self.name, refusals(settings, self.spec.thinking))
        fields: dict[str, Any] = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "top_k": settings.top_k,
            "max_output_tokens": settings.max_tokens,
            "seed": settings.seed,
            "stop_sequences": list(settings.stop) if settings.stop is not None else None,
        }
        system = [m.content for m in request.messages if m.role == "system"]
        if system:
            fields["system_instruction"] = "\n\n".join(system)
        budget = settings.reasoning_budget_tokens
        effort = settings.reasoning_effort
        if budget is not None or effort is not None or self.spec.thinking:
            fields["thinking_config"] = types.ThinkingConfig(
                thinking_budget=budget,
                thinking_level=types.ThinkingLevel(effort.upper()) if effort else None,
                include_thoughts=budget != 0,
            )
        if request.response_schema is not None:
            fields["response_mime_type"] = "application/json"
            fields["response_json_schema"] = request.response_schema.schema
        fields.update(settings.extra)
        try:
            return types.GenerateContentConfig(**{k: v for k, v in fields.items() if v is not None})
        except ValidationError as error:
            raise ProviderError(
                f"google: invalid generation settings for {self.spec.name!r}: {error}",
                retryable=False,
            ) from error

    # -- response ----------------------------------------------------------------------------
    def to_completion(
        self, response: types.GenerateContentResponse, latency_s: float | None
    ) -> Completion:
        raw = scrub_raw(
            response.model_dump(mode="json", exclude_none=True, exclude={"sdk_http_response"}),
            self._key,
        )
        if not response.candidates:
            feedback = response.prompt_feedback
            if feedback is not None and feedback.block_reason is not None:
                reason = getattr(feedback.block_reason, "value", feedback.block_reason)
                raise ProviderError(
                    f"google: prompt blocked (block reason {reason})",
                    retryable=False,
                    raw=str(raw),
                )
            raise ProviderError("google: response has no candidates", retryable=True, raw=str(raw))
        candidate = response.candidates[0]
        texts: list[str] = []
        thoughts: list[str] = []
        for part in (candidate.content.parts if candidate.content else None) or []:
            if part.text is None:
                continue
            (thoughts if part.thought else texts).append(part.text)
        usage = TokenUsage()
        meta = response.usage_metadata
        if meta is not None:
            usage.input_tokens = meta.prompt_token_count or 0
            usage.reasoning_tokens = meta.thoughts_token_count or 0
            usage.output_tokens = (meta.candidates_token_count or 0) + usage.reasoning_tokens
        finish = candidate.finish_reason
        return Completion(
            text="".join(texts),
            reasoning="".join(thoughts) if thoughts else None,
            raw=raw,
            usage=usage,
            request_id=response.response_id,
            finish_reason=finish.value if finish is not None else None,
            provider_model=response.model_version,
            latency_s=latency_s,
        )

    async def generate(self, request: GenerationRequest) -> Completion:
        client = self.client  # first: it imports the SDK, or says that it is missing
        contents, config = self.contents(request), self.config(request)
        started = time.perf_counter()
        try:
            response = await client.aio.models.generate_content(
                model=self.spec.model, contents=contents, config=config
            )
        except Exception as error:
            raise self.translate(error) from error
        return self.to_completion(response, time.perf_counter() - started)

    def translate(self, error: BaseException) -> ProviderError:
        if isinstance(error, ProviderError):  # ours (a missing SDK or key): no SDK to import
            return error
        from google.genai import errors as genai_errors

        if isinstance(error, genai_errors.APIError):
            headers: Mapping[str, str] = getattr(error.response, "headers", None) or {}
            converted = status_error(
                self.name,
                error.code,
                f"{error.status}: {error.message}",
                headers=headers,
                body=error.details,
                secret=self._key,
            )
            used_up = used_up_gemini_quota(error.details) if error.code == 429 else None
            if used_up is not None:  # a daily quota: retries until midnight would all be refused
                return ProviderError(
                    f"{converted}{used_up}", retryable=False, status=429, raw=converted.raw,
                    fatal=True,
                )  # fmt: skip
            if converted.retry_after_s is None:
                converted.retry_after_s = _retry_delay(error.details)
            converted.key_refused = error.code == 400 and _key_invalid(error.details)
            return converted
        if isinstance(error, _transport_errors()):
            return transport_error(self.name, error, self._key, self.endpoint)
        if isinstance(error, ValueError | ValidationError):
            return malformed_error(self.name, error, self._key)
        return ProviderError(
            scrub(f"{self.name}: unexpected {type(error).__name__}: {error}", self._key),
            retryable=False,
        )


@cache
def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP clients' timeouts and dropped connections: google-genai >= 2 speaks httpx2,
    older releases httpx (imported here, with the SDK, not with this module). Where aiohttp is
    installed (vLLM and `datasets` install it), the SDK's async client speaks aiohttp instead:
    its timeout is asyncio's `TimeoutError`, a refused or dropped connection an
    `aiohttp.ClientConnectionError`, a body cut off mid-transfer an `aiohttp.ClientPayloadError`
    (each was an "unexpected" error, not retried)."""
    import httpx

    kinds: tuple[type[BaseException], ...] = (httpx.TransportError, TimeoutError)
    try:
        import httpx2

        kinds += (httpx2.TransportError,)
    except ImportError:  # pragma: no cover - depends on the installed SDK
        pass
    try:
        import aiohttp

        kinds += (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError)
    except ImportError:  # not installed: the SDK speaks httpx
        pass
    return kinds


def _key_invalid(details: Any) -> bool:
    """Gemini's answer to a wrong or expired key: HTTP 400 INVALID_ARGUMENT with a
    `google.rpc.ErrorInfo` detail whose reason is API_KEY_INVALID ("API key not valid. Please
    pass a valid API key."), not the 401/403 of the other APIs."""
    error = details.get("error", details) if isinstance(details, dict) else None
    if not isinstance(error, dict):
        return False
    reasons = [d.get("reason") for d in error.get("details") or [] if isinstance(d, dict)]
    return "API_KEY_INVALID" in reasons or "API key not valid" in str(error.get("message", ""))


def _retry_delay(details: Any) -> float | None:
    """Gemini's `google.rpc.RetryInfo` detail ("retryDelay": "37s"), when present."""
    error = details.get("error", details) if isinstance(details, dict) else None
    for detail in (error or {}).get("details", []) if isinstance(error, dict) else []:
        match = _DURATION.match(str(detail.get("retryDelay", "")))
        if match:
            return float(match.group(1))
    return None
