"""`poemetric analyze` at the paper's scale: CPU time of the bootstrap score intervals.

The run is synthetic (poemetric.analysis.synthetic.paper_scale_run): 203 prompts over the seven
forms, the human poets and the 30 models of `paper30` (6,293 poems), one judgment per poem.
Prints, as CPU seconds (user + system, so other load on the machine does not count):

* the by-form judge-score table alone (`dimension_scores(..., by_form=True)`) with bootstrap
  CIs, in this process;
* the whole `poemetric analyze --ci bootstrap` and `poemetric analyze` (t intervals) as child
  processes (start-up included), with their wall time and the load average around them;
* `run_labels` alone in a fresh process (the display names `analyze` looks up at start).

Usage: .venv/bin/python bench/bench_analyze.py [--run DIR] [--prompts 203]
(--run reuses or creates a run there instead of a temporary one)
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from poemetric.analysis.data import load_run_data
from poemetric.analysis.scores import dimension_scores
from poemetric.analysis.synthetic import PAPER_FORMS, paper_scale_run
from poemetric.store import RunStore


def scaled_forms(prompts: int) -> dict[str, int]:
    total = sum(PAPER_FORMS.values())
    return {form: max(1, round(count * prompts / total)) for form, count in PAPER_FORMS.items()}


def child_cpu(command: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, wall


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def measure(run: Path) -> None:
    with RunStore(run) as store:
        poems = store.count("generations")
        judgments = load_run_data(store).judgments
    started = time.process_time()
    table = dimension_scores(judgments, by_form=True, method="bootstrap")
    by_form = time.process_time() - started
    print(f"run: {poems} poems; load average (1/5/15 min) {load()}")
    print(f"by-form table, bootstrap CIs: {by_form:.2f} s CPU ({len(table)} rows)")
    for label, extra in (("analyze --ci bootstrap", ["--ci", "bootstrap"]), ("analyze", [])):
        cpu, wall = child_cpu([sys.executable, "-m", "poemetric", "analyze", "--run", str(run),
                               *extra])  # fmt: skip
        print(f"{label}: {cpu:.2f} s CPU, {wall:.2f} s wall; load average {load()}")
    code = (
        "import sys, time\nfrom poemetric.store import RunStore\n"
        "from poemetric.analysis.labels import run_labels\n"
        f"with RunStore({str(run)!r}) as store:\n"
        "    started = time.process_time()\n    run_labels(store)\n"
        "    cpu = time.process_time() - started\n"
        "sdks = [m for m in ('anthropic', 'google.genai', 'openai') if m in sys.modules]\n"
        'print(f\'{cpu:.2f} s CPU; provider SDKs imported: {", ".join(sdks) or "none"}\')'
    )
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    print(f"run_labels in a fresh process: {done.stdout.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=None)
    parser.add_argument("--prompts", type=int, default=203)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = args.run or Path(tmp) / "run"
        if not (run / "poemetric.sqlite").exists():
            with paper_scale_run(run, prompts=scaled_forms(args.prompts)):
                pass
        measure(run)


if __name__ == "__main__":
    main()
