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

    def load(self) -> None:
        """Load the engine (weights, tokenizer) now, in the calling thread; a failure is left
        for `run_batch` to report. The runner calls it in a background thread before the first
        chunk, so that a stop (Ctrl-C, SIGTERM) need not wait for a long load
        (`poemetric.runner.loading`). Default: nothing (`run_batch` loads what it needs)."""

    @abstractmethod
    def run_batch(self, requests: list[GenerationRequest]) -> list[Completion | ProviderError]:
        """Serve every request; a failed one is a `ProviderError` in its place."""
