"""Run every benchmark script in bench/ (each prints its own measured numbers).

Usage: python bench/run_all.py [NAME ...]   e.g. `python bench/run_all.py rhyme meter`
Scripts that need a GPU (bench_vllm.py) are skipped unless named explicitly.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GPU_ONLY = {"bench_vllm.py", "bench_probe_gpu.py"}


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        wanted = {f"bench_{name.removeprefix('bench_').removesuffix('.py')}.py" for name in argv}
        scripts = [s for s in scripts if s.name in wanted]
    else:
        scripts = [s for s in scripts if s.name not in GPU_ONLY]
    failures = 0
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], check=False)
        print(
            f"--- {script.name}: exit {result.returncode} in {time.perf_counter() - started:.1f}s"
        )
        failures += result.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
