"""Base class of in-process engines that serve a whole batch of requests in one call."""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from poemetric.providers.base import Completion, GenerationRequest, Provider, ProviderError


class InProcessBatchProvider(Provider):
    """A local engine (vLLM, transformers): the runner hands it chunks of requests
    (`prefers_batches`), which `run_batch` serves in a worker thread so the event loop stays free.
    A single request is a batch of one."""

    prefers_batches: ClassVar[bool] = True
    remote: ClassVar[bool] = False

    async def generate(self, request: GenerationRequest) -> Completion:
        result = (await self.generate_batch([request]))[0]
        if isinstance(result, ProviderError):
            raise result
        return result

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        return await asyncio.to_thread(self.run_batch, list(requests))

    def chunk_limit(self) -> int | None:
        """The most requests worth handing over in one call, or None for no limit. An engine
        that serves a chunk a few requests at a time (transformers' `batch_size`) says so: the
        runner stores each chunk's answers when it returns, so a chunk larger than what the
        engine works on at once would only delay storing (a stop or a crash would lose it all)
        and a stop's wait for the chunk in flight."""
        return None

    @abstractmethod
    def run_batch(self, requests: list[GenerationRequest]) -> list[Completion | ProviderError]:
        """Serve every request; a failed one is a `ProviderError` in its place."""
