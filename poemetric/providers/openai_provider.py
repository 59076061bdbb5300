"""OpenAI chat completions, and any OpenAI-compatible endpoint (DeepSeek, Together, `vllm serve`).

One call per `generate`, with the SDK's own retries disabled: the batch runner retries, using the
`ProviderError` this module raises. Settings left `None` are not sent, so the API's defaults apply.
The `openai` SDK is imported when a client is built, not with this module (`SDKProvider`).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import ValidationError

from poemetric.providers.base import (
    BatchCapable,
    BatchSearch,
    BatchStatus,
    Completion,
    FindsBatches,
    GenerationRequest,
    ProviderError,
    TagRefused,
    TokenUsage,
)
from poemetric.providers.list_order import ListOrder
from poemetric.providers.remote_common import (
    SDKProvider,
    malformed_error,
    scrub_raw,
    status_error,
    translate_stainless_error,
)
from poemetric.redaction import url_to_copy, url_without_credentials

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

#: o1, o3-mini, o4-mini, gpt-5...: `max_completion_tokens`, `reasoning_effort`, no temperature.
REASONING_MODEL_RE = re.compile(r"^(o\d|gpt-5)")
CHAT_ENDPOINT: Literal["/v1/chat/completions"] = "/v1/chat/completions"
#: The `metadata` key of a batch that carries its submission's tag (`FindsBatches`).
SUBMISSION_TAG_KEY = "poemetric_submission"
#: Batches asked for per page of the batch list (the API's most).
LIST_PAGE = 100
_BATCH_STATES: dict[str, Any] = {
    "validating": "in_progress",
    "in_progress": "in_progress",
    "finalizing": "in_progress",
    "cancelling": "in_progress",
    "completed": "completed",
    "failed": "failed",
    "expired": "expired",
    "cancelled": "cancelled",
}


class OpenAIProvider(SDKProvider["AsyncOpenAI"], BatchCapable, FindsBatches):
    """`provider: openai`. `options.reasoning_model: true|false` overrides the name-based guess."""

    name: ClassVar[str] = "openai"
    option_keys: ClassVar[frozenset[str] | None] = frozenset({"reasoning_model"})
    takes_seed: ClassVar[bool] = True
    default_key_envs: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"
    sdk_module: ClassVar[str] = "openai"
    sdk_package: ClassVar[str] = "openai>=1.50"

    def create_client(self, api_key: str) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        return AsyncOpenAI(
            api_key=api_key,
            base_url=self.spec.base_url,
            max_retries=0,
            timeout=self.spec.limits.timeout_s,
        )

    async def close_client(self, client: AsyncOpenAI) -> None:
        await client.close()

    # -- request -----------------------------------------------------------------------------
    @property
    def is_reasoning_model(self) -> bool:
        explicit = self.spec.options.get("reasoning_model")
        if explicit is not None:
            return bool(explicit)
        return self.name == "openai" and bool(REASONING_MODEL_RE.match(self.spec.model))

    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON body of a chat completion request (also one line of a batch file)."""
        settings = request.settings
        body: dict[str, Any] = {
            "model": self.spec.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if self.is_reasoning_model:
            # Reasoning models reject max_tokens, temperature and top_p; the paper's "provider
            # default" sampling means we simply do not send them.
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
        if settings.top_k is not None:
            if self.name == "openai":
                raise ProviderError(
                    "openai: the OpenAI API has no top_k; remove it from the model's settings",
                    retryable=False,
                )
            body["top_k"] = settings.top_k  # vLLM / Together accept it as an extra field
        if settings.reasoning_budget_tokens is not None:
            raise ProviderError(
                f"{self.name}: reasoning_budget_tokens is not an OpenAI chat-completions setting; "
                "use reasoning_effort, or settings.extra for a server-specific field",
                retryable=False,
            )
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
            usage.input_tokens = response.usage.prompt_tokens
            usage.output_tokens = response.usage.completion_tokens
            details = response.usage.completion_tokens_details
            if details is not None and details.reasoning_tokens:
                usage.reasoning_tokens = details.reasoning_tokens
        return Completion(
            text=message.content or "",
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

    # -- batch API ---------------------------------------------------------------------------
    async def submit_batch(self, items: Sequence[tuple[str, GenerationRequest]]) -> str:
        return await self._submit(items, None)

    async def submit_tagged_batch(
        self, items: Sequence[tuple[str, GenerationRequest]], tag: str
    ) -> str:
        return await self._submit(items, {SUBMISSION_TAG_KEY: tag})

    async def find_batches(self, tag: str, *, since: float) -> BatchSearch:
        """The batch list, read down to the first batch created before `since` once the list
        shows itself newest first (OpenAI's order); a compatible API's list in another order
        (oldest first) is read whole. A batch listed again (a cursor the API ignores) ends the
        reading. A batch cancelled (or being cancelled) is not counted as found: it was given
        up."""
        found: list[str] = []
        seen: set[str] = set()
        order = ListOrder()
        try:
            async for batch in self.client.batches.list(limit=LIST_PAGE):
                if batch.id in seen:  # the list goes round: nothing more in it
                    break
                seen.add(batch.id)
                if order.ends_before(batch.created_at, since):
                    break
                if batch.created_at < since:
                    continue
                order.searched += 1
                given_up = batch.status in ("cancelling", "cancelled")
                if not given_up and (batch.metadata or {}).get(SUBMISSION_TAG_KEY) == tag:
                    found.append(batch.id)
        except Exception as error:
            raise self.translate(error) from error
        return BatchSearch(tuple(found), order.searched)

    async def _submit(
        self, items: Sequence[tuple[str, GenerationRequest]], metadata: dict[str, str] | None
    ) -> str:
        lines = [
            json.dumps(
                {
                    "custom_id": custom_id,
                    "method": "POST",
                    "url": CHAT_ENDPOINT,
                    "body": self.request_body(request),
                }
            )
            for custom_id, request in items
        ]
        if len(set(custom_id for custom_id, _ in items)) != len(items):
            raise ProviderError(
                f"{self.name}: duplicate custom ids in batch", retryable=False, not_sent=True
            )
        import openai

        client = self.client
        try:
            upload = await client.files.create(
                file=("poemetric-batch.jsonl", "\n".join(lines).encode()), purpose="batch"
            )
        except Exception as error:  # the batch is not created yet: sending again buys none
            failed = self.translate(error)
            failed.not_sent = True
            raise failed from error
        try:
            batch = await client.batches.create(
                input_file_id=upload.id,
                endpoint=CHAT_ENDPOINT,
                completion_window="24h",
                # Untagged (`submit_batch`): no `metadata` key at all, as before tags.
                metadata=metadata if metadata else openai.omit,
            )
        except Exception as error:
            failed = self.translate(error)
            if metadata and refuses_metadata(error, openai):
                raise TagRefused(str(failed), status=failed.status, raw=failed.raw) from error
            raise failed from error
        return batch.id

    async def batch_status(self, batch_id: str) -> BatchStatus:
        try:
            batch = await self.client.batches.retrieve(batch_id)
        except Exception as error:
            raise self.translate(error) from error
        counts = batch.request_counts
        return BatchStatus(
            batch_id=batch.id,
            state=_BATCH_STATES.get(batch.status, "failed"),
            total=counts.total if counts else 0,
            completed=counts.completed if counts else 0,
            failed=counts.failed if counts else 0,
        )

    async def batch_results(self, batch_id: str) -> dict[str, Completion | ProviderError]:
        client = self.client
        results: dict[str, Completion | ProviderError] = {}
        try:
            batch = await client.batches.retrieve(batch_id)
            if _BATCH_STATES.get(batch.status) == "in_progress":
                raise ProviderError(
                    f"{self.name}: batch {batch_id} is still {batch.status}; poll batch_status "
                    "until it is done",
                    retryable=True,
                )
            submitted = await self._read_jsonl(batch.input_file_id)
            for file_id in (batch.output_file_id, batch.error_file_id):
                for line in await self._read_jsonl(file_id):
                    results[line["custom_id"]] = self._batch_line(line)
        except ProviderError:
            raise
        except Exception as error:
            raise self.translate(error) from error
        for line in submitted:
            if line["custom_id"] not in results:
                results[line["custom_id"]] = ProviderError(
                    f"{self.name}: batch {batch_id} ended ({batch.status}) without a result "
                    "for this request",
                    retryable=True,
                )
        return results

    async def _read_jsonl(self, file_id: str | None) -> list[dict[str, Any]]:
        if not file_id:
            return []
        content = await self.client.files.content(file_id)
        lines: list[dict[str, Any]] = []
        for number, text in enumerate(content.text.splitlines(), start=1):
            if not text.strip():
                continue
            try:
                lines.append(json.loads(text))
            except ValueError as error:
                raise ProviderError(
                    f"{self.name}: batch file {file_id} line {number} is not JSON: {error}",
                    retryable=True,
                ) from error
        return lines

    def _batch_line(self, line: dict[str, Any]) -> Completion | ProviderError:
        from openai.types.chat import ChatCompletion

        response = line.get("response") or {}
        status = int(response.get("status_code") or 0)
        body = response.get("body") or {}
        if line.get("error") or status != 200:
            error = line.get("error") or body.get("error") or {}
            message = error.get("message") if isinstance(error, dict) else str(error)
            if not status:
                return ProviderError(f"{self.name}: batch item failed: {message}", retryable=True)
            return status_error(self.name, status, str(message), body=body, secret=self._key)
        try:
            completion = self.to_completion(ChatCompletion.model_validate(body), None)
        except (ValidationError, ProviderError) as error:
            return malformed_error(self.name, error, self._key)
        completion.request_id = response.get("request_id") or completion.request_id
        return completion


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


#: Statuses of a request refused as malformed: OpenAI's and most servers' 400, FastAPI's 422.
_MALFORMED = frozenset({400, 422})
#: Where an error body echoes what was sent (FastAPI's `input`, pydantic's `ctx`), not why.
_ECHOED = frozenset({"input", "ctx"})
_METADATA_WORD = re.compile(r"\bmetadata\b", re.IGNORECASE)


def refuses_metadata(error: BaseException, sdk: Any) -> bool:
    """Whether a batch create was refused because of its `metadata` field: HTTP 400 or 422 with
    `metadata` in what the error body says (OpenAI's `message` or `param`: "Unrecognized
    request argument supplied: metadata"; FastAPI's `loc`: ["body", "metadata"], "Extra inputs
    are not permitted"), not in what it echoes of the request (`input`). A timeout or a 5xx is
    never such a refusal (the batch may exist). A refusal for another reason that mentions
    `metadata` costs one more refused create (none is paid for) and the model's tags for the
    run."""
    if not isinstance(error, sdk.APIStatusError) or error.status_code not in _MALFORMED:
        return False
    return any(_METADATA_WORD.search(text) for text in _said(error.body))


def _said(body: Any) -> Iterator[str]:
    """The strings of an error body, without those under an echo of the request (`_ECHOED`)."""
    if isinstance(body, str):
        yield body
    elif isinstance(body, dict):
        for key, value in body.items():
            if key not in _ECHOED:
                yield from _said(value)
    elif isinstance(body, list):
        for value in body:
            yield from _said(value)
