"""`poemetric form check --jobs N`: wall time of the whole process against the number of worker
processes, on distinct poems (bench/distinct_poems.py: the 163 gold poems, then Markov poems for
the gold requests; nothing repeated). Each job count runs `--runs` times in alternation with the
others (best and median wall time; CPU time of all processes together), and every output must be
byte-identical to the one-process output. Not pinned to one core: using more cores is the point.
Nothing is cached between processes except the per-machine tables (built before timing) and the
bytecode of the modules (on, as in a normal install; see bench_form_speed.py).

    .venv/bin/python bench/bench_form_parallel.py [--poems 1630 10000] [--jobs 1 2 4] [--runs 3]

`--input FILE ...` times poem files written beforehand (one JSON poem a line, as `poemetric form
check` reads them) instead of making them from ../shared/data: that is how the script runs on a
machine without the shared data (the 16-core device machine, docs/benchmarks.md); `--poems` is
then not used, and each file's poem count is its number of non-blank lines. Where no
`poemetric` script sits beside the interpreter, `python -m poemetric` is timed instead.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_form_speed import _open_tables, _timed
from shared_data import require


def main() -> None:
    from poemetric.form.parallel import available_cpus

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--poems", type=int, nargs="+", default=[1630])
    parser.add_argument("--jobs", type=int, nargs="+", default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--input", type=Path, nargs="+", default=None)
    args = parser.parse_args()
    cpus = available_cpus()
    jobs = args.jobs or sorted({1, 2, cpus} | ({4} if cpus >= 4 else set()))

    from distinct_poems import distinct_poems
    from mutations import GOLD_CSV, load_gold

    from poemetric.form import lexicon, meter_templates, meter_words

    _open_tables(lexicon, meter_words, meter_templates)  # build them once, outside the timings
    script = Path(sys.executable).with_name("poemetric")
    poemetric = [str(script)] if script.is_file() else [sys.executable, "-m", "poemetric"]
    print(f"CPUs available: {cpus}; job counts: {jobs}; runs: {args.runs} (alternating)")
    with tempfile.TemporaryDirectory() as tmp:
        if args.input:
            sources = list(args.input)
        else:
            gold = load_gold(require(GOLD_CSV))
            sources = [Path(tmp) / f"poems-{n}.jsonl" for n in args.poems]
            for n, source in zip(args.poems, sources, strict=True):
                source.write_text(
                    "".join(json.dumps(p.__dict__) + "\n" for p in distinct_poems(gold, n)),
                    encoding="utf-8",
                )
        for source in sources:
            n = sum(1 for line in source.read_text(encoding="utf-8").splitlines() if line.strip())
            walls: dict[int, list[float]] = {j: [] for j in jobs}
            cpus_used: dict[int, list[float]] = {j: [] for j in jobs}
            outputs: dict[int, bytes] = {}
            one = Path(tmp) / "one.jsonl"
            one.write_text(source.read_text(encoding="utf-8").split("\n", 1)[0] + "\n")
            warm = [*poemetric, "form", "check", str(one), "-o", str(Path(tmp) / "warm.jsonl")]
            _timed(warm, pin=False)  # untimed: writes the .pyc files
            command = [*poemetric, "form", "check", str(source)]
            for _ in range(args.runs):
                for j in jobs:
                    out = Path(tmp) / f"out-{n}-{j}.jsonl"
                    wall, cpu, code = _timed(
                        [*command, "-o", str(out), "--jobs", str(j)], pin=False
                    )
                    if code != 0:
                        raise SystemExit(f"`poemetric form check --jobs {j}` exited with {code}")
                    walls[j].append(wall)
                    cpus_used[j].append(cpu)
                    outputs[j] = out.read_bytes()
            base = min(walls[1]) if 1 in walls else None
            print(f"\n{n:,} distinct poems, whole `poemetric form check` process:")
            for j in jobs:
                best = min(walls[j])
                speedup = f", {base / best:.2f}x one process" if base else ""
                same = "identical" if outputs[j] == outputs[jobs[0]] else "DIFFERENT OUTPUT"
                print(
                    f"  --jobs {j}: best {best:.2f} s wall = {n / best:,.0f} poems/s "
                    f"(median {statistics.median(walls[j]):.2f} s{speedup}); "
                    f"CPU of all processes {min(cpus_used[j]):.1f} s; output {same}"
                )
                if outputs[j] != outputs[jobs[0]]:
                    raise SystemExit(1)


if __name__ == "__main__":
    main()
