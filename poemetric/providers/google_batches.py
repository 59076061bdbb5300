"""Gemini's batch mode with inline requests, the batch half of `GoogleProvider`: one batch job
created with the requests inside it (tagged by its `display_name`: `FindsBatches`), polled, its
inlined responses read back.

The SDK's `BatchJob` of the Developer API leaves out two things the API sends (google-genai
3.6): `metadata.batchStats` (the counts: the runner saw 0 of 0 requests until the end) and the
operation's `error` (why a batch failed: its requests only said "returned no result"). The
status poll reads the operation as sent, through the SDK's own HTTP client (`_operation`).
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from poemetric.providers.base import (
    BatchCapable,
    BatchSearch,
    BatchStatus,
    Completion,
    FindsBatches,
    GenerationRequest,
    ModelSpec,
    ProviderError,
    creating_batch,
)
from poemetric.providers.grpc_codes import as_http
from poemetric.providers.remote_errors import scrub, status_error

if TYPE_CHECKING:
    from google import genai
    from google.genai import types

_BATCH_STATES: dict[str, Any] = {
    "SUCCEEDED": "completed",
    "PARTIALLY_SUCCEEDED": "completed",
    "FAILED": "failed",
    "CANCELLED": "cancelled",
    "EXPIRED": "expired",
}
#: Batch jobs a user gave up (cancelled, or being cancelled): never found for a submission.
_GIVEN_UP = frozenset({"CANCELLED", "CANCELLING"})
#: Batch jobs asked for per page of the batch list.
LIST_PAGE = 100
#: Bytes the SDK adds to an inline request's JSON (70 with a system instruction).
_SDK_WRAPPING = 100


def _ended(state: object) -> str:
    """`SUCCEEDED` of the API's `BATCH_STATE_SUCCEEDED` and of the SDK's `JOB_STATE_SUCCEEDED`."""
    name = str(getattr(state, "value", state) or "")
    return name.removeprefix("BATCH_STATE_").removeprefix("JOB_STATE_")


class GeminiBatches(BatchCapable, FindsBatches):
    """The batch API of `GoogleProvider`, which gives it the client, the request's contents and
    config, the completion read from a response and the error translation."""

    name: ClassVar[str]
    spec: ModelSpec
    _key: str | None
    announces_creation: ClassVar[bool] = True  # `_submit` says `creating_batch()`
    #: Inline requests: the batch create's whole body stays under 20 MB (room for its envelope).
    max_batch_bytes: ClassVar[int | None] = 19_000_000
    #: Requests built to be sized (`batch_item_bytes`), by custom id, kept for the submission
    #: that follows: building one takes about 1 ms (pydantic), 10 s per 10,000 built twice.
    _sized: dict[str, tuple[GenerationRequest, types.InlinedRequest]]

    @property
    @abstractmethod
    def client(self) -> genai.Client:
        """The SDK client (`SDKProvider.client`)."""

    @abstractmethod
    def contents(self, request: GenerationRequest) -> list[types.Content]: ...

    @abstractmethod
    def config(self, request: GenerationRequest) -> types.GenerateContentConfig: ...

    @abstractmethod
    def to_completion(
        self, response: types.GenerateContentResponse, latency_s: float | None
    ) -> Completion: ...

    @abstractmethod
    def translate(self, error: BaseException) -> ProviderError: ...

    async def submit_batch(self, items: Sequence[tuple[str, GenerationRequest]]) -> str:
        return await self._submit(items, f"poemetric-{self.spec.name}")

    async def submit_tagged_batch(
        self, items: Sequence[tuple[str, GenerationRequest]], tag: str
    ) -> str:
        """The batch job's `display_name` ends with `tag` (the list shows it)."""
        return await self._submit(items, f"poemetric-{self.spec.name}-{tag}")

    async def find_batches(self, tag: str, *, since: float) -> BatchSearch:
        """The whole batch list (its order is not documented), those created before `since`
        left out, as are the cancelled ones."""
        client = self.client
        from google.genai import types

        found: list[str] = []
        searched = 0
        try:
            pager = await client.aio.batches.list(
                config=types.ListBatchJobsConfig(page_size=LIST_PAGE)
            )
            async for job in pager:
                if job.create_time is not None and job.create_time.timestamp() < since:
                    continue
                searched += 1
                given_up = _ended(job.state) in _GIVEN_UP
                if job.name and not given_up and (job.display_name or "").endswith(tag):
                    found.append(job.name)
        except Exception as error:
            raise self.translate(error) from error
        return BatchSearch(tuple(found), searched)

    async def _submit(
        self, items: Sequence[tuple[str, GenerationRequest]], display_name: str
    ) -> str:
        if len({custom_id for custom_id, _ in items}) != len(items):
            raise ProviderError(
                f"{self.name}: duplicate custom ids in batch", retryable=False, not_sent=True
            )
        client = self.client  # first: it imports the SDK, or says that it is missing
        from google.genai import types

        sized = self._sized_items()
        inlined = []
        for custom_id, request in items:
            kept = sized.pop(custom_id, None)
            built = kept[1] if kept and kept[0] is request else None
            inlined.append(built or self._inlined(custom_id, request))
        sized.clear()  # sized but not sent (over budget, or the next batch's first): built again
        creating_batch()
        try:
            job = await client.aio.batches.create(
                model=self.spec.model,
                src=inlined,
                config=types.CreateBatchJobConfig(display_name=display_name),
            )
        except Exception as error:
            raise self.translate(error) from error
        if not job.name:
            raise ProviderError(f"{self.name}: batch job has no name", retryable=True)
        return job.name

    def batch_item_bytes(self, custom_id: str, request: GenerationRequest) -> int:
        """The request as JSON, non-ASCII characters escaped as the SDK sends them, and room
        for what the SDK wraps it in (`request`, a system instruction's parts and role). The
        request built is kept for its submission (`_sized`)."""
        try:
            item = self._inlined(custom_id, request)
        except ImportError:  # the submission says that the SDK is missing
            return 0
        self._sized_items()[custom_id] = (request, item)
        dumped = item.model_dump(mode="json", by_alias=True, exclude_none=True)
        return len(json.dumps(dumped)) + _SDK_WRAPPING

    def _sized_items(self) -> dict[str, tuple[GenerationRequest, types.InlinedRequest]]:
        if not hasattr(self, "_sized"):
            self._sized = {}
        return self._sized

    def _inlined(self, custom_id: str, request: GenerationRequest) -> types.InlinedRequest:
        from google.genai import types

        return types.InlinedRequest(
            contents=self.contents(request),
            config=self.config(request),
            metadata={"key": custom_id},
        )

    async def _job(self, batch_id: str) -> types.BatchJob:
        try:
            return await self.client.aio.batches.get(name=batch_id)
        except Exception as error:
            raise self.translate(error) from error

    async def _operation(self, batch_id: str) -> dict[str, Any]:
        """The batch's operation as the API sends it (`metadata.batchStats`, `error`), read
        through the SDK's HTTP client: its base URL, key header, timeout and transport."""
        client = self.client
        try:
            response = await client.aio._api_client.async_request("get", batch_id, {})
            operation = json.loads(response.body or "{}")
        except Exception as error:
            raise self.translate(error) from error
        if not isinstance(operation, dict):
            raise ProviderError(
                f"{self.name}: batch {batch_id} is not a JSON object", retryable=True
            )
        return operation

    async def batch_status(self, batch_id: str) -> BatchStatus:
        operation = await self._operation(batch_id)
        metadata = operation.get("metadata") or {}
        state = _BATCH_STATES.get(_ended(metadata.get("state")), "in_progress")
        stats = metadata.get("batchStats") or {}
        total, succeeded, failed = (
            _count(stats, field)
            for field in ("requestCount", "successfulRequestCount", "failedRequestCount")
        )
        return BatchStatus(batch_id, state, total, succeeded, failed, _why(operation, self._key))

    async def batch_results(self, batch_id: str) -> dict[str, Completion | ProviderError]:
        job = await self._job(batch_id)
        if _BATCH_STATES.get(_ended(job.state)) is None:
            raise ProviderError(
                f"{self.name}: batch {batch_id} is still in progress; poll batch_status until "
                "it is done",
                retryable=True,
            )
        results: dict[str, Completion | ProviderError] = {}
        for index, item in enumerate((job.dest.inlined_responses if job.dest else None) or []):
            custom_id = (item.metadata or {}).get("key")
            if custom_id is None:
                raise ProviderError(
                    f"{self.name}: batch {batch_id} response {index} carries no metadata key",
                    retryable=False,
                )
            if item.error is not None:
                status, message = as_http(item.error.code or 0, str(item.error.message))
                results[custom_id] = status_error(
                    self.name,
                    status,
                    message,
                    body=item.error.details,
                    secret=self._key,
                )
            elif item.response is not None:
                try:
                    results[custom_id] = self.to_completion(item.response, None)
                except ProviderError as error:
                    results[custom_id] = error
            else:
                results[custom_id] = ProviderError(
                    f"{self.name}: batch item has neither response nor error", retryable=True
                )
        return results


def _count(stats: dict[str, Any], field: str) -> int:
    """A count of `batchStats` (an int64, sent as a string); 0 when absent or unreadable."""
    try:
        return int(stats.get(field) or 0)
    except (TypeError, ValueError):
        return 0


def _why(operation: dict[str, Any], secret: str | None) -> str | None:
    """Why a batch failed: the operation's `error` (a google.rpc.Status), its canonical code
    named (`INVALID_ARGUMENT (code 3): ...`), any key in it hidden."""
    error = operation.get("error")
    if not isinstance(error, dict):
        return None
    code, message = error.get("code"), str(error.get("message") or "").strip()
    _, said = as_http(code if isinstance(code, int) else 0, message)
    return scrub(said, secret) or None
