"""The local wire-protocol servers themselves: faults, rate limit, latency, log, shutdown."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from openai import AsyncOpenAI

from poemetric.testing import (
    AnthropicServer,
    ChatCall,
    Fault,
    FaultPlan,
    GeminiServer,
    OpenAIServer,
    RateLimiter,
)

CHAT: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello"}]}


def post_chat(server: OpenAIServer, body: dict[str, Any] = CHAT) -> httpx.Response:
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=5)


def test_fault_plan_script_then_seeded_random() -> None:
    def sequence(seed: int) -> list[str | None]:
        plan = FaultPlan(
            script=[Fault.server_error(503), None],
            random_faults=[(Fault.rate_limited(1.0), 0.3), (Fault.truncated(), 0.2)],
            seed=seed,
        )
        return [
            None if f is None else f"{f.kind}:{f.status}"
            for f in (plan.next_fault() for _ in range(200))
        ]

    first = sequence(1)
    assert first[:2] == ["status:503", None]
    assert first == sequence(1) and first != sequence(2)
    rate = first[2:].count("status:429") / 198
    assert 0.2 < rate < 0.4
    with pytest.raises(ValueError, match="sum to at most 1"):
        FaultPlan(random_faults=[(Fault.truncated(), 0.7), (Fault.slow(1), 0.6)])


def test_rate_limiter_window() -> None:
    limiter = RateLimiter(3)
    assert [limiter.admit() for _ in range(3)] == [None, None, None]
    wait = limiter.admit()
    assert wait is not None and 0 < wait <= 1.0


def test_log_records_requests_successes_and_duplicates() -> None:
    with OpenAIServer(faults=[Fault.server_error(500)]) as server:
        failed = post_chat(server)
        assert failed.status_code == 500 and failed.json()["error"]["type"] == "server_error"
        assert post_chat(server).status_code == 200
        assert server.duplicate_successes() == []
        assert post_chat(server).status_code == 200
        other: dict[str, Any] = {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "other"}],
        }
        assert post_chat(server, other).status_code == 200
        records = server.requests
        assert [r.seq for r in records] == [1, 2, 3, 4]
        assert [r.status for r in records] == [500, 200, 200, 200]
        assert [r.fault for r in records] == ["status:500", None, None, None]
        assert len(server.successful_generations) == 3
        assert server.successful_generations[0].response["choices"][0]["message"]["content"] == (
            "Echo: hello"
        )
        assert server.duplicate_successes() == [CHAT]
        server.clear_log()
        assert server.requests == []


def test_retry_after_headers_and_unknown_route() -> None:
    with OpenAIServer(faults=[Fault.rate_limited(1.25)]) as server:
        response = post_chat(server)
        assert response.status_code == 429
        assert (
            response.headers["retry-after"] == "2" and response.headers["retry-after-ms"] == "1250"
        )
        assert httpx.get(f"{server.base_url}/nothing", timeout=5).status_code == 404


def test_server_side_rate_limit_answers_429() -> None:
    with OpenAIServer(rate_limit_rps=2) as server:
        statuses = [post_chat(server).status_code for _ in range(4)]
    assert statuses == [200, 200, 429, 429]


def test_latency_and_concurrency_with_the_real_sdk() -> None:
    async def many(server: OpenAIServer) -> list[str]:
        client = AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=10)
        replies = await asyncio.gather(
            *(
                client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": f"poem {i}"}]
                )
                for i in range(40)
            )
        )
        await client.close()
        return [r.choices[0].message.content or "" for r in replies]

    with OpenAIServer(latency_s=0.2) as server:
        started = time.perf_counter()
        texts = asyncio.run(many(server))
        elapsed = time.perf_counter() - started
        assert len(server.successful_generations) == 40
    assert sorted(texts) == sorted(f"Echo: poem {i}" for i in range(40))
    assert 0.2 <= elapsed < 4.0  # handled concurrently, not 40 x 0.2 s


def test_slow_answer_is_not_a_success_and_stop_is_prompt() -> None:
    server = OpenAIServer(faults=[Fault.slow(30.0)]).start()
    with pytest.raises(httpx.ReadTimeout):
        post_chat_timeout = httpx.post(
            f"{server.base_url}/chat/completions", json=CHAT, timeout=0.2
        )
        del post_chat_timeout
    started = time.perf_counter()
    server.stop()
    assert time.perf_counter() - started < 2.0
    assert server.successful_generations == []
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url


def test_responder_sees_normalised_calls() -> None:
    seen: list[ChatCall] = []

    def responder(call: ChatCall) -> str:
        seen.append(call)
        return "ok"

    with AnthropicServer(responder) as server:
        body = {
            "model": "c",
            "max_tokens": 10,
            "system": "sys",
            "messages": [{"role": "user", "content": "u"}],
        }
        assert httpx.post(f"{server.base_url}/v1/messages", json=body, timeout=5).status_code == 200
        missing = {"model": "c", "messages": [{"role": "user", "content": "u"}]}
        answer = httpx.post(f"{server.base_url}/v1/messages", json=missing, timeout=5)
        assert (
            answer.status_code == 400 and answer.json()["error"]["type"] == "invalid_request_error"
        )
    with GeminiServer(responder) as gemini:
        body = {"contents": [{"role": "user", "parts": [{"text": "g"}]}],
                "systemInstruction": {"parts": [{"text": "gs"}]}}  # fmt: skip
        url = f"{gemini.base_url}/v1beta/models/gemini-x:generateContent"
        assert httpx.post(url, json=body, timeout=5).json()["candidates"][0]["content"][
            "parts"
        ] == [{"text": "ok"}]
    assert [(c.api, c.model, c.messages) for c in seen] == [
        (
            "anthropic",
            "c",
            [{"role": "system", "content": "sys"}, {"role": "user", "content": "u"}],
        ),
        (
            "gemini",
            "gemini-x",
            [{"role": "system", "content": "gs"}, {"role": "user", "content": "g"}],
        ),
    ]
