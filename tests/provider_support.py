"""Helpers shared by the provider adapter tests (each adapter against its local server)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from poemetric.providers.base import (
    BatchCapable,
    BatchStatus,
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    Provider,
    ProviderError,
    RateLimits,
)
from poemetric.testing.http_base import LocalServer

DEFAULT_PROMPT = "Write a poem"


def local_spec(server: LocalServer, *, timeout_s: float = 2.0, **fields: Any) -> ModelSpec:
    """A model file for an adapter against a local server: the server's URL and a short
    timeout (`fields` may replace either)."""
    return ModelSpec(
        **{"base_url": server.base_url, "limits": RateLimits(timeout_s=timeout_s), **fields}
    )


def chat_request(*messages: tuple[str, str], **settings: Any) -> GenerationRequest:
    """A request of (role, text) messages; one user message by default."""
    chat = messages or (("user", DEFAULT_PROMPT),)
    return GenerationRequest(
        messages=tuple(ChatMessage(role=role, content=text) for role, text in chat),
        settings=GenerationSettings(**settings),
    )


def run(provider: Provider, request: GenerationRequest) -> Completion:
    """One `generate` call, closing the provider's client afterwards."""

    async def go() -> Completion:
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def failure(provider: Provider, request: GenerationRequest | None = None) -> ProviderError:
    """The `ProviderError` a call raises (the test fails if it succeeds)."""
    with pytest.raises(ProviderError) as caught:
        run(provider, request or chat_request())
    return caught.value


@dataclass
class BatchRound:
    """What `batch_round` saw: the state of each status poll, the last status, the results."""

    states: list[str]
    last: BatchStatus
    results: dict[str, Completion | ProviderError]
    statuses: list[BatchStatus]


def batch_round(
    provider: Provider, items: Sequence[tuple[str, GenerationRequest]], polls: int
) -> BatchRound:
    """Submit `items` as one batch, poll its status `polls` times, fetch its results and close
    the provider's client."""
    assert isinstance(provider, BatchCapable) and polls >= 1

    async def go() -> BatchRound:
        try:
            batch_id = await provider.submit_batch(items)
            statuses = [await provider.batch_status(batch_id) for _ in range(polls)]
            results = await provider.batch_results(batch_id)
        finally:
            await provider.aclose()
        return BatchRound([str(s.state) for s in statuses], statuses[-1], results, statuses)

    return asyncio.run(go())


def early_batch_results(provider: Provider) -> ProviderError:
    """The `ProviderError` of asking for a batch's results right after submitting it (the test
    fails if there are results)."""
    assert isinstance(provider, BatchCapable)

    async def go() -> ProviderError:
        try:
            batch_id = await provider.submit_batch([("a", chat_request())])
            with pytest.raises(ProviderError) as caught:
                await provider.batch_results(batch_id)
        finally:
            await provider.aclose()
        return caught.value

    return asyncio.run(go())
