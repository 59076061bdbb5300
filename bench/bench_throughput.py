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
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KEY_ENV = "POEMETRIC_BENCH_KEY"
KEY = "bench-key"
DEMO_PROMPTS = 16


@dataclass
class Measured:
    jobs: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    rss_mb: list[float] = field(default_factory=list)
    requests: list[list[Any]] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)
    ok_jobs: int = 0
    rows: int = 0

    @property
    def successes(self) -> Counter[str]:
        """Answers the server computed (paid at a real provider), by request body: those
        delivered, and those a client's timeout gave up on."""
        return Counter(r[3] for r in self.requests if r[1] == 200 and r[2] in (None, "slow"))

    @property
    def repeated(self) -> int:
        return sum(n - 1 for n in self.successes.values())


class Server:
    def __init__(self, tmp: Path, **config: Any) -> None:
        self.config = {
            "port_file": str(tmp / "port"),
            "stats_file": str(tmp / "stats.json"),
            "api_key": KEY,
            **config,
        }
        (tmp / "server.json").write_text(json.dumps(self.config))
        Path(self.config["port_file"]).unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "throughput_server.py"), str(tmp / "server.json")],
            env=_env(),
            stderr=subprocess.DEVNULL,  # connections reset by the SIGKILLed runner
        )
        deadline = time.monotonic() + 30
        while not Path(self.config["port_file"]).is_file():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit("the bench server did not start")
            time.sleep(0.05)
        time.sleep(0.05)
        self.port = int(Path(self.config["port_file"]).read_text())

    def stop(self) -> list[list[Any]]:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(60)
        return json.loads(Path(self.config["stats_file"]).read_text())["requests"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env[KEY_ENV] = KEY
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(HERE.parent), env.get("PYTHONPATH", "")) if p
    )
    return env


def model_file(folder: Path, port: int, limits: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        "name: bench-remote",
        "provider: openai-compatible",
        "model: bench",
        f"base_url: http://127.0.0.1:{port}/v1",
        f"api_key_env: {KEY_ENV}",
        "settings: {seed: 1}",
        "pricing: {input_per_mtok: 1.0, output_per_mtok: 1.0, batch_discount: 0.5}",
        "limits: " + json.dumps(limits),
    ]
    (folder / "bench-remote.yaml").write_text("\n".join(lines) + "\n")


def cli(run: Path, models: Path, stage: str, samples: int) -> list[str]:
    command = [sys.executable, "-P", "-m", "poemetric"]
    if stage == "generate":
        command += ["generate", "--run", str(run), "--models", "bench-remote"]
    else:
        command += ["judge", "--run", str(run), "--judge", "bench-remote"]
    return [*command, "--samples", str(samples), "--no-progress"]


def run_cli(
    command: list[str],
    models: Path,
    measured: Measured,
    kill_after_rows: int | None = None,
    kill_signal: int = signal.SIGKILL,
) -> None:
    """Run one command; sample its memory; with `kill_after_rows`, send it `kill_signal` once
    the run holds that many ok rows."""
    env = _env()
    env["POEMETRIC_GENERATORS_DIR"] = env["POEMETRIC_JUDGES_DIR"] = str(models)
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    database = Path(command[command.index("--run") + 1]) / "poemetric.sqlite"
    table = "generations" if "generate" in command else "judgments"
    peak = 0.0
    while process.poll() is None:
        rss = _rss_mb(process.pid)
        if rss:
            measured.rss_mb.append(rss)
            peak = max(peak, rss)
        if kill_after_rows is not None and _ok_rows(database, table) >= kill_after_rows:
            os.kill(process.pid, kill_signal)
            kill_after_rows = None
        time.sleep(0.25)
    stderr = process.stderr.read() if process.stderr else ""
    if process.returncode not in (0, -signal.SIGKILL, 128 + signal.SIGTERM):
        print(stderr[-3000:], file=sys.stderr)
    measured.exit_codes.append(process.returncode)
    measured.wall_s += time.perf_counter() - started
    measured.peak_rss_mb = max(measured.peak_rss_mb, peak)


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _ok_rows(database: Path, table: str) -> int:
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1) as conn:
            return int(
                conn.execute(f"SELECT COUNT(*) FROM {table} WHERE status = 'ok'").fetchone()[0]
            )
    except sqlite3.Error:
        return 0


def children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def scenario(
    tmp: Path,
    name: str,
    *,
    jobs: int,
    limits: dict[str, Any],
    server: dict[str, Any],
    stage: str = "generate",
    run: Path | None = None,
    kill_at: float | None = None,
    kill_signal: int = signal.SIGKILL,
) -> Measured:
    work = tmp / name
    work.mkdir()
    run = run or work / "run"
    models = work / "models"
    samples = max(1, round(jobs / DEMO_PROMPTS))
    if stage == "judge":
        with sqlite3.connect(run / "poemetric.sqlite") as conn:
            poems = conn.execute("SELECT COUNT(*) FROM generations WHERE status='ok'").fetchone()
        samples = max(1, round(jobs / poems[0]))
    srv = Server(work, **server)
    model_file(models, srv.port, limits)
    command = cli(run, models, stage, samples)
    # Server processes are children too: measure the runner's CPU as the difference around it.
    measured = Measured(jobs=0, wall_s=0.0, cpu_s=0.0, peak_rss_mb=0.0)
    before = children_cpu()
    if kill_at is not None:
        total = samples * DEMO_PROMPTS
        run_cli(command, models, measured, int(total * kill_at), kill_signal)
    run_cli(command, models, measured)
    measured.cpu_s = children_cpu() - before
    measured.requests = srv.stop()
    table = "generations" if stage == "generate" else "judgments"
    with sqlite3.connect(run / "poemetric.sqlite") as conn:
        if table == "generations":
            counts = conn.execute(
                "SELECT COUNT(*), SUM(status='ok') FROM generations WHERE author='bench-remote'"
            ).fetchone()
        else:
            counts = conn.execute("SELECT COUNT(*), SUM(status='ok') FROM judgments").fetchone()
    measured.rows, measured.ok_jobs = counts[0], counts[1] or 0
    measured.jobs = (
        samples * DEMO_PROMPTS if stage == "generate" else measured.rows
    )  # a judge job per poem and sample
    return measured


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
