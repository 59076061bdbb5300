"""Throughput of the whole form check (parse, rhyme, metre, form rules, verdict) on one core.

The gold poems are written N times into a JSONL file and streamed through `check_file` (load
excluded: the file is read row by row while checking). Prints poems/s for a cold first pass (a
fresh process each time: empty pronunciation, metre and rhyme caches) and for the warm streamed
pass, each as best of `--runs` with the spread, and the peak RSS of a child process for 1x and
10x input (streaming: memory must not grow with the input).

    .venv/bin/python bench/bench_form_speed.py [--repeat 20] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutations import load_gold

from poemetric.form.checker import check_poem
from poemetric.form.io import check_file

DEFAULT_CSV = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "data"
    / "poemetric_human_poems_annotated.csv"
)


def _write_jsonl(path: Path, repeat: int) -> int:
    poems = load_gold(DEFAULT_CSV)
    with path.open("w", encoding="utf-8") as handle:
        for k in range(repeat):
            for p in poems:
                handle.write(
                    json.dumps(
                        {
                            "id": f"{k}-{p.row}",
                            "content": p.text,
                            "form": p.form,
                            "meter_pattern": p.meter,
                            "rhyme_pattern": p.rhyme,
                        }
                    )
                    + "\n"
                )
    return repeat * len(poems)


def _best_of(label: str, rates: list[float]) -> str:
    return (
        f"{label}: best {max(rates):,.0f} poems/s over {len(rates)} runs "
        f"(spread {min(rates):,.0f}-{max(rates):,.0f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3, help="timed runs; the best is reported")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cold-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        with open(os.devnull, "w") as sink:
            check_file(args.child, sink)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
        return
    if args.cold_child:
        poems = load_gold(DEFAULT_CSV)
        start = time.perf_counter()
        for p in poems:
            check_poem(p.text, p.form, p.meter, p.rhyme)
        print(len(poems) / (time.perf_counter() - start))
        return
    cold = [
        float(
            subprocess.run(
                [sys.executable, __file__, "--cold-child"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        for _ in range(args.runs)
    ]
    print(_best_of("cold pass (fresh process, 163 gold poems)", cold))
    poems = load_gold(DEFAULT_CSV)
    for p in poems:  # warm the caches once, as a long run would
        check_poem(p.text, p.form, p.meter, p.rhyme)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "gold.jsonl"
        n = _write_jsonl(source, args.repeat)
        warm = []
        for _ in range(args.runs):
            start = time.perf_counter()
            with open(os.devnull, "w") as sink:
                check_file(source, sink)
            warm.append(n / (time.perf_counter() - start))
        print(_best_of(f"warm, streamed x{args.repeat} ({n} poems, JSON in/out included)", warm))
        for factor in (1, 10):
            path = Path(tmp) / f"x{factor}.jsonl"
            _write_jsonl(path, factor)
            rss = subprocess.run(
                [sys.executable, __file__, "--child", str(path)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            print(f"peak RSS, {factor:>2}x gold input: {rss} MiB")


if __name__ == "__main__":
    main()
