"""Batch runner at scale: `poemetric generate` / `judge` of thousands of jobs, as a user runs them.

The runner is the real CLI in a process of its own (real `openai` SDK), the server the local
OpenAI wire-protocol server in another (`throughput_server.py`), so that the runner's CPU time
and memory are its own and a SIGKILLed runner leaves the server's count of answered calls
intact. Everything is simulated locally: no network, no key, no GPU.

Scenarios (`--scenario`, several comma-separated; default all):

- instant: the server answers at once; runner jobs/s, runner CPU per job, peak memory and
  memory sampled over the run (does it grow with the jobs?);
- latency: 0.5-3 s per answer (drawn per request), `--concurrency` in flight; jobs/s against
  the ideal concurrency / mean latency;
- rpm: a model file with requests_per_minute under a server limit; the sustained rate;
- tpm: a model file with tokens_per_minute; tokens answered per minute (server's count);
- storm: a 429 storm (every request answered 429 with Retry-After and
  x-ratelimit-reset-requests naming the storm's end) in the middle of the run: requests sent
  during the storm (ideal: about one per request in flight when it began, not one per job
  waiting) and the largest number sent in any 100 ms after it (a herd coming back at once);
- outage: every request answered 503 for 30 s (no Retry-After), 800 jobs, 16 in flight:
  requests sent into it and jobs left as error rows;
- faults: 10% transient faults (500, 503, 429 with Retry-After, truncated bodies) plus 2% of
  answers slower than the model's timeout;
- kill: SIGKILL of the runner halfway, then the same command again: calls answered twice by the
  server (paid twice: at most those in flight at the kill) and jobs without an ok row; the same
  with SIGTERM (the calls in flight are let finish and stored: none answered twice);
- judge: `poemetric judge` of the generations of the instant scenario's run.

For every scenario: jobs without an ok row, rows per job, and calls the server answered
successfully more than once (counted on the server side).

Usage: python bench/bench_throughput.py [--jobs 4000] [--concurrency 32] [--scenario ...]
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
from collections import Counter
from pathlib import Path

from throughput_runs import Measured, scenario


def max_in_window(times: list[float], width: float) -> int:
    best, start = 0, 0
    for end, moment in enumerate(times):
        while moment - times[start] > width:
            start += 1
        best = max(best, end - start + 1)
    return best


def max_tokens_in(rows: list[tuple[float, int]], width: float) -> int:
    best = total = start = 0
    for moment, tokens in rows:
        total += tokens
        while moment - rows[start][0] > width:
            total -= rows[start][1]
            start += 1
        best = max(best, total)
    return best


def describe(name: str, m: Measured, concurrency: int) -> str:
    sent = len(m.requests)
    statuses = Counter(str(r[1] or "unanswered") for r in m.requests)
    growth = ""
    if len(m.rss_mb) >= 8:
        quarter = len(m.rss_mb) // 4
        growth = (
            f"; RSS first quarter {max(m.rss_mb[:quarter]):.0f} MB, last quarter "
            f"{max(m.rss_mb[-quarter:]):.0f} MB"
        )
    return (
        f"{name}: {m.jobs} jobs in {m.wall_s:.1f} s = {m.jobs / m.wall_s:.1f} jobs/s; runner CPU "
        f"{m.cpu_s:.1f} s = {m.cpu_s / max(1, m.jobs) * 1000:.2f} ms/job; peak RSS "
        f"{m.peak_rss_mb:.0f} MB{growth}; {sent} requests ({dict(sorted(statuses.items()))}); "
        f"ok jobs {m.ok_jobs}/{m.jobs}, rows {m.rows}, answered twice {m.repeated}; "
        f"exit {m.exit_codes}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument(
        "--scenario",
        default="instant,latency,rpm,tpm,storm,outage,faults,kill,judge",
        help="comma-separated",
    )
    args = parser.parse_args(argv)
    wanted = args.scenario.split(",")
    c = args.concurrency
    base = {"max_concurrency": c, "timeout_s": 10, "max_retries": 6}
    correct = True
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if "instant" in wanted or "judge" in wanted:
            m = scenario(tmp, "instant", jobs=args.jobs, limits=base, server={})
            print(describe("instant", m, c), flush=True)
            correct &= m.ok_jobs == m.jobs and m.repeated == 0
            if "judge" in wanted:
                j = scenario(
                    tmp,
                    "judge",
                    jobs=args.jobs,
                    limits=base,
                    server={},
                    stage="judge",
                    run=tmp / "instant" / "run",
                )
                print(describe("judge (instant)", j, c), flush=True)
                correct &= j.ok_jobs == j.rows and j.repeated == 0
        if "latency" in wanted:
            jobs = min(args.jobs, 2000)
            m = scenario(tmp, "latency", jobs=jobs, limits=base, server={"latency": [0.5, 3.0]})
            print(describe("latency 0.5-3 s", m, c) + f"; ideal {c / 1.75:.1f} jobs/s", flush=True)
            correct &= m.ok_jobs == m.jobs and m.repeated == 0
        if "rpm" in wanted:
            rpm = 1800  # 30/s
            m = scenario(
                tmp,
                "rpm",
                jobs=min(args.jobs, 1200),
                limits={**base, "requests_per_minute": rpm},
                server={"rate_rps": 40, "latency": [0.05, 0.2]},
            )
            times = sorted(r[0] for r in m.requests)
            rate = (len(times) - 1) / (times[-1] - times[0])
            print(
                describe("rpm 1800 (server limit 40/s)", m, c)
                + f"; sustained {rate:.1f} req/s, busiest second {max_in_window(times, 1.0)}",
                flush=True,
            )
            correct &= m.ok_jobs == m.jobs and m.repeated == 0
        if "tpm" in wanted:
            tpm = 60_000
            m = scenario(
                tmp,
                "tpm",
                jobs=min(args.jobs, 320),
                limits={**base, "tokens_per_minute": tpm},
                server={"latency": [0.05, 0.2]},
            )
            rows = sorted((r[0], r[4]) for r in m.requests)
            span = rows[-1][0] - rows[0][0]
            tokens = sum(t for _, t in rows)
            print(
                describe(f"tpm {tpm:,}", m, c)
                + f"; {tokens:,} tokens answered, sustained {tokens / span * 60:,.0f} tokens/min,"
                f" busiest minute {max_tokens_in(rows, 60.0):,}, busiest 10 s "
                f"{max_tokens_in(rows, 10.0):,} (bucket: {tpm // 6:,} at once, then "
                f"{tpm // 60:,}/s)",
                flush=True,
            )
            correct &= m.ok_jobs == m.jobs and m.repeated == 0
        if "storm" in wanted:
            m = scenario(
                tmp,
                "storm",
                jobs=min(args.jobs, 2000),
                limits=base,
                server={"storm": [2.0, 7.0], "latency": [0.05, 0.15]},
            )
            times = sorted(r[0] for r in m.requests)
            start = times[0]
            during = [t for t in times if 2.0 <= t - start < 7.0]
            after = [t for t in times if t - start >= 7.0]
            print(
                describe("storm 2-7 s", m, c)
                + f"; sent during the storm {len(during)}, most in 100 ms after it "
                f"{max_in_window(after, 0.1) if after else 0}",
                flush=True,
            )
            correct &= m.ok_jobs == m.jobs and m.repeated == 0
        if "outage" in wanted:
            m = scenario(
                tmp,
                "outage",
                jobs=min(args.jobs, 800),
                limits={**base, "max_concurrency": 16},
                server={"outage": [2.0, 32.0], "latency": [0.05, 0.15]},
            )
            failed = sum(1 for r in m.requests if r[1] == 503)
            print(
                describe("outage 2-32 s", m, c) + f"; 503s (sent during the outage) {failed}",
                flush=True,
            )
            correct &= m.repeated == 0  # error rows: retried by the next run
        if "faults" in wanted:
            m = scenario(
                tmp,
                "faults",
                jobs=min(args.jobs, 2000),
                limits={**base, "timeout_s": 2},
                server={"fault_share": 0.10, "latency": [0.0, 0.05]},
            )
            print(describe("10% transient faults", m, c), flush=True)
            correct &= m.ok_jobs == m.jobs
            m = scenario(
                tmp,
                "slow",
                jobs=min(args.jobs, 1000),
                limits={**base, "timeout_s": 2},
                server={"slow_share": 0.02, "slow_s": 3.0},
            )
            print(describe("2% slower than the timeout", m, c), flush=True)
            correct &= m.ok_jobs == m.jobs
        if "kill" in wanted:
            m = scenario(
                tmp,
                "kill",
                jobs=args.jobs,
                limits=base,
                server={"latency": [0.0, 0.02]},
                kill_at=0.5,
            )
            print(describe("SIGKILL at half, then resumed", m, c), flush=True)
            correct &= m.ok_jobs == m.jobs and m.rows == m.jobs and m.repeated <= c
            m = scenario(
                tmp,
                "term",
                jobs=args.jobs,
                limits=base,
                server={"latency": [0.0, 0.02]},
                kill_at=0.5,
                kill_signal=signal.SIGTERM,
            )
            print(describe("SIGTERM at half, then resumed", m, c), flush=True)
            correct &= m.ok_jobs == m.jobs and m.rows == m.jobs and m.repeated == 0
    print("all jobs stored once" if correct else "FAILED: a job was lost or answered twice")
    return 0 if correct else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
