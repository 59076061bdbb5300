"""Helpers shared by the provider adapter tests (each adapter against its local server)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    Provider,
    ProviderError,
)

DEFAULT_PROMPT = "Write a poem"


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
