"""Time `analyze`, `report` and `figures` run one after another on one run, as `make analyze
report figures` runs them: CPU seconds (user + system of each child process) and wall seconds
per command and for the three. Before each sequence the run's kept measures are dropped
(poemetric.store.measure_cache), so the first command measures every poem and the next two read
what it kept. `--before DIR` also times a checkout of earlier code (`git archive COMMIT poemetric
| tar -x -C DIR`), alternating with this one, sequence by sequence; the best of `--repeat` is
printed last. Outputs go to a temporary folder; the run itself gains only the kept measures.

Without RUN, the run is made by `poemetric demo --no-progress` (16 prompts, 32 poems) in a
temporary folder; a larger one: `bench_stages.py --keep DIR`.

Usage: .venv/bin/python bench/bench_kept_measures.py [RUN] [--before DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import closing
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
COMMANDS = ("analyze", "report", "figures")


def forget(run: Path) -> None:
    """Drop the run's kept measures (none in a run only older code has read)."""
    with closing(sqlite3.connect(run / "poemetric.sqlite")) as conn:
        conn.execute("DROP TABLE IF EXISTS measure_cache")
        conn.execute("DROP TABLE IF EXISTS measure_cache_versions")


def timed(args: list[str], source: Path) -> tuple[float, float]:
    """CPU and wall seconds of `poemetric ARGS` run from the checkout `source`."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as output:
        # -P: the current folder (a checkout, maybe the other one) is not put before PYTHONPATH.
        child = subprocess.Popen([sys.executable, "-P", "-m", "poemetric", *args], env=env,
                                 stdout=output, stderr=subprocess.STDOUT)  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status):
            output.seek(0)
            raise SystemExit(f"poemetric {' '.join(args)} failed:\n{output.read()}")
    return usage.ru_utime + usage.ru_stime, wall


def sequence(run: Path, source: Path, out: Path) -> dict[str, tuple[float, float]]:
    forget(run)
    times: dict[str, tuple[float, float]] = {}
    for command in COMMANDS:
        target = out / ("index.html" if command == "report" else command)
        extra = ["--no-progress"] if command == "analyze" else []
        times[command] = timed([command, "--run", str(run), "--out", str(target), *extra], source)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, nargs="?", help="default: a new demo run")
    parser.add_argument("--before", type=Path, help="a checkout of earlier code to time too")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    sources = {"after": HERE} if args.before is None else {"before": args.before, "after": HERE}
    best: dict[str, dict[str, tuple[float, float]]] = defaultdict(dict)
    with tempfile.TemporaryDirectory() as scratch:
        run = args.run
        if run is None:
            run = Path(scratch) / "demo"
            timed(["demo", "--run", str(run), "--no-progress"], HERE)
        print(f"run {run}; load {os.getloadavg()[0]:.2f}")
        for round_ in range(1, args.repeat + 1):
            for label, source in sources.items():
                times = sequence(run, source, Path(scratch) / f"{label}-{round_}")
                cpu, wall = (sum(t[k] for t in times.values()) for k in (0, 1))
                shown = ", ".join(f"{c} {t[0]:.2f}/{t[1]:.2f}" for c, t in times.items())
                print(f"{label:<6} #{round_}: {shown}; all {cpu:.2f} s CPU / {wall:.2f} s wall "
                      f"(load {os.getloadavg()[0]:.2f})", flush=True)  # fmt: skip
                for command, (c, w) in [*times.items(), ("all", (cpu, wall))]:
                    if command not in best[label] or c < best[label][command][0]:
                        best[label][command] = (c, w)
        print("best of", args.repeat, "(CPU s / wall s of that sequence's command):")
        for label, commands in best.items():
            print(f"  {label:<6} " + ", ".join(f"{c} {t[0]:.2f}/{t[1]:.2f}"
                                               for c, t in commands.items()))  # fmt: skip


if __name__ == "__main__":
    main()
