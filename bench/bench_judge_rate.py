"""A judge file with no limits against a rate-limited, faulty OpenAI-compatible server.

What a researcher runs: `poemetric judge` over every poem of a run, with a judge file that sets
no `limits` (8 requests in flight, no request rate), against a server that allows RATE
requests/s (429 with Retry-After beyond it, sliding one-second window), adds LATENCY to every
answer and fails 10% of the requests it admits (500, 503, 429 with Retry-After, truncated
bodies). The runner must find the server's rate by itself: one pass, no error rows, stored
scores equal to the server's answers, sustaining at least 85% of the allowed rate.

Poems: the 163 gold poems of ../shared/data (human + Markov = 326 distinct poems) when
present, else the bundled demo (16 human poems + 20 Markov samples each = 336). Every poem gets
its own answer from the server (scores drawn from a hash of the prompt), so nothing repeats.

Usage: python bench/bench_judge_rate.py [--rate 20] [--latency 0.2] [--repeat 1]
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import verdict
from shared_data import SHARED_DATA

from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.pipeline import prepare_run
from poemetric.prompts import render_judge_prompt
from poemetric.providers.base import ModelSpec
from poemetric.roster import get_model
from poemetric.runner.runner import RunnerOptions
from poemetric.store import RunStore
from poemetric.testing.servers import ChatCall, FaultPlan, OpenAIServer

KEY_ENV = "POEMETRIC_BENCH_KEY"
SHARED_CSV = SHARED_DATA / "poemetric_human_poems_annotated.csv"
TARGET_SHARE = 0.85


def answer_for(prompt: str) -> dict[str, object]:
    """The server's answer to one judge prompt: scores from a hash of the prompt."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    answer: dict[str, object] = {}
    for index, question in enumerate((1, 2, 3, 4, 5, 6, 7, 8, 10, 12)):
        low = 0 if question in (7, 8) else 1
        answer[str(question)] = low + digest[index] % (6 - low)
    answer.update({"9": "devices", "11": "quality", "13": "authorship"})
    return dict(sorted(answer.items(), key=lambda item: int(item[0])))


class Judge:
    """Thread-safe responder that remembers what it answered."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answered: dict[str, dict[str, object]] = {}

    def __call__(self, call: ChatCall) -> str:
        answer = answer_for(call.prompt)
        with self.lock:
            self.answered[call.prompt] = answer
        return "Here is my evaluation.\n```json\n" + json.dumps(answer) + "\n```"


def prepared(run_dir: Path, use_shared: bool, demo_samples: int = 20) -> tuple[RunStore, str]:
    store = RunStore(run_dir)
    markov = get_model("markov")
    if use_shared and SHARED_CSV.is_file():
        prepare_run(store, SHARED_CSV)
        samples, source = 1, f"{SHARED_CSV.name}: human + Markov"
    else:
        prepare_run(store, "demo")
        samples = demo_samples
        source = f"demo dataset: human + {samples} Markov samples per prompt"
    options = RunnerOptions(samples=samples, progress=False)
    report = run_generation(store, [markov], options=options)
    if report.errors:
        raise SystemExit(f"preparing the poems failed: {report.summary_line()}")
    return store, source


@dataclass
class Outcome:
    poems: int
    wall_s: float
    requests: int
    rejected_429: int
    injected: int
    sustained_rate: float
    admitted_rate: float
    answered_rate: float
    tail_s: float
    error_rows: int
    wrong_scores: int
    missing: int


def judge_once(store: RunStore, rate: float, latency: float, seed: int) -> Outcome:
    store.conn.execute("DELETE FROM judgments")
    store.conn.execute("DELETE FROM response_cache WHERE provider = 'openai-compatible'")
    faults = FaultPlan.transient(0.10, seed)
    responder = Judge()
    with OpenAIServer(
        responder, faults=faults, latency_s=latency, rate_limit_rps=rate, api_key="bench-key"
    ) as server:
        # A judge file with no `limits:` block, as the shipped API judge files are.
        spec = ModelSpec.model_validate(
            {"name": "no-limits-judge", "provider": "openai-compatible", "model": "judge",
             "base_url": server.base_url, "api_key_env": KEY_ENV}
        )  # fmt: skip
        started = time.perf_counter()
        run_judging(store, spec, options=RunnerOptions(progress=False))
        wall = time.perf_counter() - started
        requests = server.generation_requests
    start = min(r.received_at for r in requests)
    span = max(r.received_at for r in requests) - start
    admitted = [r for r in requests if r.fault != "rate_limit"]
    answered = [r for r in requests if r.succeeded]
    # Sustained rate: while jobs were still waiting for their first request (after that only
    # the retries of the last unlucky jobs remain, paced by their backoff, not by the runner).
    first_sent: dict[str, float] = {}
    for record in requests:
        first_sent.setdefault(json.dumps(record.body["messages"]), record.received_at)
    backlog_end = max(first_sent.values())
    in_backlog = [r for r in admitted if r.received_at <= backlog_end]
    rows = store.query(
        "SELECT j.*, p.text AS prompt, g.poem FROM judgments j "
        "JOIN generations g USING (generation_id) JOIN prompts p ON p.prompt_id = g.prompt_id"
    )
    wrong = 0
    for row in rows:
        if row["status"] != "ok":
            continue
        expected = answer_for(render_judge_prompt(row["prompt"], row["poem"] or "").text)
        stored = {
            "1": row["form"], "2": row["theme"], "3": row["vocabulary"], "4": row["creativity"],
            "5": row["idiosyncrasy"], "6": row["emotional_resonance"], "7": row["imagery"],
            "8": row["literary_devices"], "10": row["overall_quality"],
            "12": row["human_authorship"],
        }  # fmt: skip
        wrong += any(stored[k] != expected[k] for k in stored)
    poems = store.count("generations", "status = 'ok'")
    return Outcome(
        poems=poems,
        wall_s=wall,
        requests=len(requests),
        rejected_429=len(requests) - len(admitted),
        injected=sum(r.fault not in (None, "rate_limit") for r in requests),
        sustained_rate=len(in_backlog) / (backlog_end - start),
        admitted_rate=len(admitted) / span,
        answered_rate=len(answered) / span,
        tail_s=span - (backlog_end - start),
        error_rows=sum(r["status"] == "error" for r in rows),
        wrong_scores=wrong,
        missing=poems - sum(r["status"] == "ok" for r in rows),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=20.0, help="server limit, requests/s")
    parser.add_argument("--latency", type=float, default=0.2, help="server latency, seconds")
    parser.add_argument("--repeat", type=int, default=1, help="judge passes")
    parser.add_argument(
        "--demo", action="store_true", help="use the demo dataset even when shared data exists"
    )
    args = parser.parse_args()
    os.environ[KEY_ENV] = "bench-key"
    correct = rate_met = True
    with tempfile.TemporaryDirectory() as tmp:
        store, source = prepared(Path(tmp), use_shared=not args.demo)
        poems = store.count("generations", "status = 'ok'")
        print(
            f"judge rate benchmark: {poems} poems ({source});"
            f" server limit {args.rate:g} req/s, latency {args.latency * 1000:.0f} ms, 10% "
            "injected faults; judge file without limits"
        )
        for attempt in range(args.repeat):
            outcome = judge_once(store, args.rate, args.latency, seed=attempt)
            share = outcome.sustained_rate / args.rate
            print(
                f"pass #{attempt + 1}: {outcome.poems} poems judged in {outcome.wall_s:.1f} s; "
                f"{outcome.requests} requests ({outcome.rejected_429} answered 429 by the "
                f"limit, {outcome.injected} injected faults); sustained "
                f"{outcome.sustained_rate:.2f} admitted req/s = {share:.1%} of the limit while "
                f"jobs waited, {outcome.admitted_rate:.2f} req/s and {outcome.answered_rate:.2f} "
                f"answers/s over the whole pass (the last {outcome.tail_s:.1f} s were retries of "
                f"the last failed jobs); error rows {outcome.error_rows}, missing "
                f"{outcome.missing}, scores differing from the server's {outcome.wrong_scores}"
            )
            rate_met &= share >= TARGET_SHARE
            correct &= outcome.error_rows == outcome.missing == outcome.wrong_scores == 0
        store.close()
    return verdict.report(correct, rate_met)


if __name__ == "__main__":
    sys.exit(main())
