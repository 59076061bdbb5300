"""Batch-runner throughput and integrity against the local OpenAI wire-protocol server.

Two scenarios, each with the real `openai` SDK and the generation stage over the demo prompts
(x samples, with a fixed seed so that every job is a distinct request; the number of prompts is
read from the data):

1. clean: the server adds LATENCY to every answer and answers 429 above RATE requests per
   second (sliding one-second window); the runner is configured at the same rate. Reported:
   sustained request rate as a share of RATE (target >= 90%).
2. faults: the same, plus 10% of requests failing transiently (500/503/429 with Retry-After,
   truncated bodies). Reported: jobs lost (no ok row) and duplicated (more than one row, or more
   than one successful answer for the same request) — target 0 and 0.

Usage: python bench/bench_runner.py [--rate 20] [--latency 0.2] [--jobs 400] [--repeat 1]
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import verdict

from poemetric.data import load_dataset
from poemetric.generation.stage import run_generation
from poemetric.pipeline import prepare_run
from poemetric.providers.base import ModelSpec
from poemetric.runner.runner import RunnerOptions
from poemetric.store import RunStore
from poemetric.testing.servers import FaultPlan, OpenAIServer

KEY_ENV = "POEMETRIC_BENCH_KEY"


@dataclass
class Outcome:
    jobs: int
    wall_s: float
    request_rate: float
    success_rate: float
    requests: int
    rejected_429: int
    injected: int
    lost: int
    duplicated_rows: int
    duplicated_answers: int


def spec_for(base_url: str, rate: float, concurrency: int) -> ModelSpec:
    return ModelSpec.model_validate(
        {
            "name": "bench-model",
            "provider": "openai-compatible",
            "model": "bench",
            "base_url": base_url,
            "api_key_env": KEY_ENV,
            "settings": {"seed": 1},
            "limits": {
                "max_concurrency": concurrency,
                "requests_per_minute": rate * 60,
                "timeout_s": 10,
                "max_retries": 10,
            },
        }
    )


def scenario(rate: float, latency: float, samples: int, fault_share: float, seed: int) -> Outcome:
    faults = FaultPlan.transient(fault_share, seed) if fault_share else None
    concurrency = max(4, int(rate * latency * 4))
    with (
        tempfile.TemporaryDirectory() as tmp,
        OpenAIServer(
            faults=faults, latency_s=latency, rate_limit_rps=rate, api_key="bench-key"
        ) as server,
    ):
        store = RunStore(Path(tmp))
        prepare_run(store, "demo")
        prompts = store.count("prompts")  # counted from the data, never assumed
        spec = spec_for(server.base_url, rate, concurrency)
        options = RunnerOptions(samples=samples, progress=False, retry_base_s=0.2)
        started = time.perf_counter()
        run_generation(store, [spec], options=options)
        wall = time.perf_counter() - started
        requests = server.generation_requests
        answered = server.successful_generations
        span = max(r.received_at for r in requests) - min(r.received_at for r in requests)
        rows = store.query(
            "SELECT prompt_id, sample_index, COUNT(*) AS n, SUM(status = 'ok') AS ok "
            "FROM generations WHERE author = ? GROUP BY prompt_id, sample_index",
            (spec.name,),
        )
        jobs = prompts * samples
        bodies: dict[str, int] = {}
        for record in answered:
            key = json.dumps(record.body, sort_keys=True)
            bodies[key] = bodies.get(key, 0) + 1
        outcome = Outcome(
            jobs=jobs,
            wall_s=wall,
            request_rate=len(requests) / span if span else float("nan"),
            success_rate=len(answered) / wall,
            requests=len(requests),
            rejected_429=sum(r.fault == "rate_limit" for r in requests),
            injected=sum(r.fault not in (None, "rate_limit") for r in requests),
            lost=jobs - sum(1 for r in rows if r["ok"] == 1),
            duplicated_rows=sum(1 for r in rows if r["n"] > 1),
            duplicated_answers=sum(n - 1 for n in bodies.values() if n > 1),
        )
        store.close()
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=20.0, help="requests/s (server and runner)")
    parser.add_argument("--latency", type=float, default=0.2, help="server latency in seconds")
    parser.add_argument(
        "--jobs", type=int, default=400, help="jobs (rounded to demo prompts x samples)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each scenario")
    args = parser.parse_args()
    os.environ[KEY_ENV] = "bench-key"
    prompts = len(load_dataset("demo").poems)
    samples = max(1, round(args.jobs / prompts))
    print(
        f"runner benchmark: {prompts * samples} jobs ({prompts} demo prompts x {samples} samples),"
        f" server latency {args.latency * 1000:.0f} ms, server limit {args.rate:g} req/s, runner "
        f"limit {args.rate:g} req/s"
    )
    correct = rate_met = True
    clean_shares: list[float] = []
    for attempt in range(args.repeat):
        clean = scenario(args.rate, args.latency, samples, 0.0, attempt)
        share = clean.request_rate / args.rate
        clean_shares.append(share)
        print(
            f"clean  #{attempt + 1}: {clean.requests} requests in {clean.wall_s:.1f} s wall; "
            f"sustained {clean.request_rate:.2f} req/s = {share:.1%} of the limit; "
            f"{clean.rejected_429} answered 429; lost {clean.lost}, duplicated rows "
            f"{clean.duplicated_rows}, repeated answers {clean.duplicated_answers}"
        )
        rate_met &= share >= 0.9
        correct &= clean.lost == clean.duplicated_rows == 0
    for attempt in range(args.repeat):
        faulty = scenario(args.rate, args.latency, samples, 0.10, attempt)
        print(
            f"faults #{attempt + 1}: {faulty.requests} requests ({faulty.injected} injected "
            f"transient failures = {faulty.injected / faulty.requests:.1%}, "
            f"{faulty.rejected_429} server 429s) in {faulty.wall_s:.1f} s; sustained "
            f"{faulty.request_rate:.2f} req/s = {faulty.request_rate / args.rate:.1%} of the limit;"
            f" jobs lost {faulty.lost}, duplicated rows {faulty.duplicated_rows}, repeated "
            f"successful answers {faulty.duplicated_answers}"
        )
        correct &= faulty.lost == faulty.duplicated_rows == faulty.duplicated_answers == 0
    if len(clean_shares) > 1:
        print(
            f"clean share of the limit: best {max(clean_shares):.1%}, "
            f"spread {min(clean_shares):.1%}..{max(clean_shares):.1%}"
        )
    return verdict.report(correct, rate_met)


if __name__ == "__main__":
    sys.exit(main())
