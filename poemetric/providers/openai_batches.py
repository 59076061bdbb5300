"""OpenAI's Batch API (and an OpenAI-compatible one's), the batch half of `OpenAIProvider`:
a JSONL file of chat completion requests uploaded, one batch created for it (tagged with its
`unconfirmed-...` row in `metadata`: `FindsBatches`), polled, its output and error files read
back. A compatible API that refuses `metadata` is told by `refuses_metadata` (`TagRefused`).
"""

from __future__ import annotations

import contextlib
import json
import re
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

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
    creating_batch,
)
from poemetric.providers.list_order import ListOrder
from poemetric.providers.remote_errors import malformed_error, scrub, status_error

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

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


class OpenAIBatches(BatchCapable, FindsBatches):
    """The batch API of `OpenAIProvider`, which gives it the client, the request body, the
    completion read from a response and the error translation."""

    name: ClassVar[str]
    announces_creation: ClassVar[bool] = True
    #: An input file holds at most 50,000 requests and 200 MB.
    max_batch_requests: ClassVar[int | None] = 50_000
    max_batch_bytes: ClassVar[int | None] = 200_000_000
    _key: str | None

    @property
    @abstractmethod
    def client(self) -> AsyncOpenAI:
        """The SDK client (`SDKProvider.client`)."""

    @abstractmethod
    def request_body(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON body of a chat completion request: one line of a batch file."""

    @abstractmethod
    def to_completion(self, response: ChatCompletion, latency_s: float | None) -> Completion:
        """A chat completion response as a `Completion`."""

    @abstractmethod
    def translate(self, error: BaseException) -> ProviderError:
        """An SDK exception as a `ProviderError`."""

    async def submit_batch(self, items: Sequence[tuple[str, GenerationRequest]]) -> str:
        return await self._submit(items, None)

    def batch_item_bytes(self, custom_id: str, request: GenerationRequest) -> int:
        """The request's line of the input file, its newline included."""
        return len(self._batch_input_line(custom_id, request).encode()) + 1

    def _batch_input_line(self, custom_id: str, request: GenerationRequest) -> str:
        return json.dumps(
            {
                "custom_id": custom_id,
                "method": "POST",
                "url": CHAT_ENDPOINT,
                "body": self.request_body(request),
            }
        )

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
        lines = [self._batch_input_line(custom_id, request) for custom_id, request in items]
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
        creating_batch()  # the upload made no batch: this request may
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
                # No batch holds the upload: remove it (the untagged submission uploads anew).
                with contextlib.suppress(Exception):
                    await client.files.delete(upload.id)
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
        ended = (
            f"{self.name}: batch {batch_id} ended ({batch.status}) without a result for this "
            "request"
        )
        if why := _batch_errors(batch):  # a batch failed whole says why only there
            ended = scrub(f"{ended}: {why}", self._key)
        for line in submitted:
            if line["custom_id"] not in results:
                results[line["custom_id"]] = ProviderError(ended, retryable=True)
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


#: The most of a failed batch's `errors` said in its requests' errors.
_ERRORS_SAID = 3


def _batch_errors(batch: Any) -> str:
    """What a batch's `errors` say (a batch OpenAI failed whole, as for "token_limit_exceeded":
    "Enqueued token limit reached ..."; a refused input file, by line): "" when none."""
    errors = (batch.errors.data if batch.errors else None) or []
    said = [
        f"{error.code or 'error'}: {error.message or ''}".rstrip(": ")
        + (f" (input line {error.line})" if error.line is not None else "")
        for error in errors[:_ERRORS_SAID]
    ]
    if len(errors) > _ERRORS_SAID:
        said.append(f"and {len(errors) - _ERRORS_SAID} more")
    return "; ".join(said)


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
