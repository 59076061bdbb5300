"""Capacity of the local wire-protocol servers (poemetric.testing) with the real SDKs.

The batch runner's throughput benchmark assumes the local server is not the bottleneck; this
prints the request rate each server sustains with no added latency (concurrency C), and the
overhead of a fixed latency at high concurrency. Prints numbers only.

Usage: python bench/bench_servers.py [--requests 400] [--concurrency 32] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Callable

from poemetric.providers.anthropic_provider import AnthropicProvider
from poemetric.providers.base import (
    ChatMessage,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    Provider,
)
from poemetric.providers.google_provider import GoogleProvider
from poemetric.providers.openai_provider import OpenAIProvider
from poemetric.testing import AnthropicServer, GeminiServer, LocalServer, OpenAIServer

KEY_ENV = "POEMETRIC_BENCH_KEY"
CASES: list[tuple[str, type[LocalServer], type[Provider], str]] = [
    ("openai", OpenAIServer, OpenAIProvider, "gpt-4o"),
    ("anthropic", AnthropicServer, AnthropicProvider, "claude-x"),
    ("google", GeminiServer, GoogleProvider, "gemini-x"),
]


async def drive(provider: Provider, n: int, concurrency: int) -> float:
    """Send n distinct requests, at most `concurrency` in flight; return requests per second."""
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        request = GenerationRequest(
            (ChatMessage(role="user", content=f"write poem number {i}"),), GenerationSettings()
        )
        async with gate:
            await provider.generate(request)

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    elapsed = time.perf_counter() - started
    await provider.aclose()
    return n / elapsed


def measure(
    server_cls: type[LocalServer], make: Callable[[str], Provider], n: int, c: int, latency: float
) -> float:
    with server_cls(latency_s=latency) as server:
        return asyncio.run(drive(make(server.base_url), n, c))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ[KEY_ENV] = "bench-key"
    for name, server_cls, provider_cls, model in CASES:

        def make(
            base_url: str, cls: type[Provider] = provider_cls, model: str = model, api: str = name
        ) -> Provider:
            spec = ModelSpec(
                name=api, provider=api, model=model, base_url=base_url, api_key_env=KEY_ENV
            )
            return cls(spec)

        for latency in (0.0, args.latency):
            rates = [
                measure(server_cls, make, args.requests, args.concurrency, latency)
                for _ in range(args.repeat)
            ]
            ideal = f" (ideal {args.concurrency / latency:.0f})" if latency else ""
            print(
                f"{name:9s} latency {latency:.2f}s concurrency {args.concurrency}: "
                f"best {max(rates):.0f} req/s{ideal}, median {statistics.median(rates):.0f}, "
                f"spread {max(rates) - min(rates):.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
