"""Shared helpers for the runner / generate / judge tests (no tests here)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from poemetric.pipeline import prepare_run
from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    ModelSpec,
    Provider,
    ProviderError,
    TokenUsage,
)
from poemetric.providers.registry import register_provider
from poemetric.runner.runner import RunnerOptions
from poemetric.store import RunStore
from poemetric.testing.servers import ChatCall

TEST_KEY_ENV = "POEMETRIC_TEST_API_KEY"
TEST_KEY = "sk-test-secret-0123456789abcdef"

#: Fast retries for tests (the policy itself is tested separately).
FAST = RunnerOptions(progress=False, retry_base_s=0.01, retry_cap_s=0.05)

VALID_JUDGE_ANSWER = (
    '{"1": 4, "2": 5, "3": 3, "4": 4, "5": 2, "6": 3, "7": 4, "8": 0, '
    '"9": "no devices", "10": 4, "11": "solid", "12": 2, "13": "too regular"}'
)


class HoldAfter:
    """A responder that answers the first `n` generation requests and holds every later one
    until the test sets `release`: the command is certainly still at work when the test
    interrupts or kills it, however loaded the machine (under load a test once sent Ctrl-C only
    after all 24 answers). `held` lists the bodies of the requests held before the release."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.release = threading.Event()
        self.held: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._seen = 0

    def __call__(self, call: ChatCall) -> str:
        with self._lock:
            self._seen += 1
            hold = self._seen > self.n and not self.release.is_set()
            if hold:
                self.held.append(call.body)
        if hold:
            self.release.wait(timeout=120)
        return f"Echo: {call.prompt}"


def prepared_store(path: Path, poems: int = 4) -> RunStore:
    store = RunStore(path)
    prepare_run(store, "demo", limit=poems)
    return store


def openai_spec(base_url: str, name: str = "remote", **limits: Any) -> ModelSpec:
    return ModelSpec.model_validate(
        {
            "name": name,
            "provider": "openai-compatible",
            "model": "test-model",
            "base_url": base_url,
            "api_key_env": TEST_KEY_ENV,
            "pricing": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
            "limits": {"max_concurrency": 8, "timeout_s": 5, "max_retries": 6, **limits},
        }
    )


Behaviour = Callable[[GenerationRequest, int], Completion]


class ScriptedProvider(Provider):
    """In-process provider: answers from `behaviour(request, call_number)`, counts calls."""

    name: ClassVar[str] = "scripted"
    remote: ClassVar[bool] = False
    behaviour: ClassVar[Behaviour | None] = None
    calls: ClassVar[list[GenerationRequest]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    async def generate(self, request: GenerationRequest) -> Completion:
        with self.lock:
            type(self).calls.append(request)
            number = len(type(self).calls)
        await asyncio.sleep(0)
        if type(self).behaviour is not None:
            return type(self).behaviour(request, number)  # type: ignore[misc]
        prompt = request.messages[-1].content
        return Completion(
            text=f"A poem for sample {request.sample_index}\nof {len(prompt)} characters",
            usage=TokenUsage(input_tokens=100, output_tokens=50),
            raw={"n": number},
        )


def use_scripted(behaviour: Behaviour | None = None) -> type[ScriptedProvider]:
    ScriptedProvider.behaviour = behaviour
    ScriptedProvider.calls = []
    register_provider("scripted", ScriptedProvider)
    return ScriptedProvider


def scripted_spec(name: str = "scripted-model", **fields: Any) -> ModelSpec:
    data: dict[str, Any] = {
        "name": name,
        "provider": "scripted",
        "model": "scripted-1",
        "pricing": {"input_per_mtok": 10.0, "output_per_mtok": 20.0},
        "limits": {"max_concurrency": 4},
    }
    data.update(fields)
    return ModelSpec.model_validate(data)


class IsolatedProvider(Provider):
    """Reports the pid of the process that served the request."""

    name: ClassVar[str] = "isolated"
    remote: ClassVar[bool] = False
    isolate_process: ClassVar[bool] = True
    prefers_batches: ClassVar[bool] = True

    async def generate(self, request: GenerationRequest) -> Completion:
        raise ProviderError("use generate_batch", retryable=False)

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        return [
            Completion(
                text=f"poem {r.sample_index}", raw={"pid": os.getpid(), "chunk": len(requests)}
            )
            for r in requests
        ]


def generation_rows(store: RunStore, author: str) -> list[dict[str, Any]]:
    return [
        dict(r)
        for r in store.query(
            "SELECT * FROM generations WHERE author = ? ORDER BY prompt_id, sample_index", (author,)
        )
    ]
