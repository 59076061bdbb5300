"""One scenario of `bench_throughput.py`: the bench server in a process of its own
(`throughput_server.py`), a model file pointing at it, the `poemetric` command run (and killed
when asked) with its memory sampled, and what the run store and the server's log hold after.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
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
