"""Run every benchmark script in bench/ (each prints its own measured numbers).

Usage: python bench/run_all.py [NAME ...]   e.g. `python bench/run_all.py rhyme meter`
(`make bench ARGS="rhyme meter"`); a NAME that is no benchmark is an error (exit 2).
Scripts that need a GPU (bench_vllm.py, bench_probe_gpu.py), or minutes of a CPU
(bench_local_stop.py, bench_judge_local.py, bench_throughput.py), are skipped unless named
explicitly. A script whose input
in ../shared/data is missing exits with `shared_data.SKIPPED` and is reported as skipped; the run
fails only when a script fails.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from shared_data import SKIPPED

HERE = Path(__file__).resolve().parent
GPU_ONLY = {
    "bench_vllm.py",
    "bench_probe_gpu.py",
    "bench_local_stop.py",
    "bench_judge_local.py",
    "bench_throughput.py",
}


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if {"-h", "--help"} & set(argv):
        print(__doc__.strip())
        print("Benchmarks:", ", ".join(_name(s.name) for s in scripts))
        return 0
    if argv:
        # A name that matches no script (a typo, `--help` before it was read) ran nothing and
        # exited 0: "0 benchmarks ran, 0 failed: none".
        unknown = [name for name in argv if _script(name) not in {s.name for s in scripts}]
        if unknown:
            print(
                f"error: no benchmark {', '.join(unknown)} (nothing was run); benchmarks: "
                + ", ".join(_name(s.name) for s in scripts),
                file=sys.stderr,
            )
            return 2
        wanted = {_script(name) for name in argv}
        scripts = [s for s in scripts if s.name in wanted]
    else:
        scripts = [s for s in scripts if s.name not in GPU_ONLY]
    failed: list[str] = []
    skipped: list[str] = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], check=False)
        elapsed = time.perf_counter() - started
        if result.returncode == SKIPPED:
            skipped.append(script.name)
            print(f"--- {script.name}: skipped (its shared data is missing) after {elapsed:.1f}s")
            continue
        print(f"--- {script.name}: exit {result.returncode} in {elapsed:.1f}s")
        if result.returncode != 0:
            failed.append(script.name)
    ran = len(scripts) - len(skipped)
    print(f"\n{ran} benchmarks ran, {len(failed)} failed: {', '.join(failed) or 'none'}", end="")
    print(f"; {len(skipped)} skipped: {', '.join(skipped)}" if skipped else "")
    return 1 if failed else 0


def _script(name: str) -> str:
    """`rhyme`, `bench_rhyme` and `bench_rhyme.py` all name bench_rhyme.py."""
    return f"bench_{name.removeprefix('bench_').removesuffix('.py')}.py"


def _name(script: str) -> str:
    return script.removeprefix("bench_").removesuffix(".py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
