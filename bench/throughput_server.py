"""The local OpenAI wire-protocol server of `bench_throughput.py`, in a process of its own.

A runner killed with SIGKILL must not take the server (and its count of the calls it answered)
with it, and the runner's CPU time is measured apart from the server's. Started as

    python bench/throughput_server.py CONFIG.json

with CONFIG a JSON object: `port_file` (where the port is written once listening),
`stats_file` (where the request log is written on SIGTERM), `latency` ([low, high] seconds, drawn
per request from a hash of its body), `rate_rps` (server limit: 429 with Retry-After above it,
sliding one-second window), `fault_share` (transient 500/503/429/truncated faults, seeded),
`storm` ([start, end] seconds after the first request: every request between them is answered
429 with Retry-After and x-ratelimit-reset-requests saying when the storm ends), `outage`
([start, end]: every request between them answered 503, no Retry-After), `slow_share`
and `slow_s` (answers delayed past the client's timeout).

Every answer is a judge answer whose scores come from a hash of the request (it serves as a
"poem" for the generation stage too), so each distinct request gets its own answer.
"""

from __future__ import annotations

import hashlib
import json
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from poemetric.testing.servers import (
    ChatCall,
    Fault,
    FaultPlan,
    FaultWindow,
    OpenAIServer,
    RateLimitStorm,
)

JUDGE_ITEMS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12)


def answer_for(request: str) -> str:
    """A parsable judge answer, its scores drawn from a hash of the request."""
    digest = hashlib.sha256(request.encode("utf-8")).digest()
    answer: dict[str, object] = {}
    for index, question in enumerate(JUDGE_ITEMS):
        low = 0 if question in (7, 8) else 1
        answer[str(question)] = low + digest[index] % (6 - low)
    answer.update({"9": "devices", "11": "quality", "13": "authorship"})
    ordered = dict(sorted(answer.items(), key=lambda item: int(item[0])))
    return "Here is my evaluation.\n```json\n" + json.dumps(ordered) + "\n```"


class Responder:
    """Answers after a latency in [low, high] drawn from a hash of the request."""

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def __call__(self, call: ChatCall) -> str:
        key = json.dumps(call.body, sort_keys=True)
        if self.high > 0:
            share = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") / 2**32
            time.sleep(self.low + share * (self.high - self.low))
        # From the whole request (its seed too): every sample gets a poem of its own, so the
        # judge's requests are distinct as well.
        return answer_for(key)


def build(config: dict[str, Any]) -> OpenAIServer:
    low, high = config.get("latency", [0.0, 0.0])
    plan: FaultPlan | None = None
    if config.get("fault_share"):
        plan = FaultPlan.transient(config["fault_share"], seed=config.get("seed", 0))
    if config.get("slow_share"):
        plan = FaultPlan(
            random_faults=[(Fault.slow(config["slow_s"]), config["slow_share"])],
            seed=config.get("seed", 0),
        )
    if config.get("outage"):
        start, end = config["outage"]
        plan = FaultWindow(Fault.server_error(503), end - start, start_s=start, then=plan)
    if config.get("storm"):
        start, end = config["storm"]
        plan = RateLimitStorm(end - start, start_s=start, then=plan)
    return OpenAIServer(
        Responder(low, high),
        faults=plan,
        rate_limit_rps=config.get("rate_rps"),
        api_key=config.get("api_key"),
    )


def stats(server: OpenAIServer) -> dict[str, Any]:
    """The log, compactly: per generation request its time, status, fault, body hash and the
    tokens its answer counted."""
    rows = []
    for record in server.generation_requests:
        body = hashlib.sha256(json.dumps(record.body, sort_keys=True).encode()).hexdigest()[:16]
        usage = (record.response or {}).get("usage") or {}
        tokens = int(usage.get("total_tokens") or 0)
        rows.append([record.received_at, record.status, record.fault, body, tokens])
    return {"requests": rows}


def main(config_path: str) -> int:
    config = json.loads(Path(config_path).read_text())
    server = build(config)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with server:
        Path(config["port_file"]).write_text(str(server.port))
        while not done.wait(0.2):
            pass
        Path(config["stats_file"]).write_text(json.dumps(stats(server)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
