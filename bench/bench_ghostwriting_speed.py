"""Speed of the per-poem ghostwriting text measures (`cached_measures.measure_text`: rhyme
density and its parts, Raplyzer, the English screen) on N distinct poems, and a check that a
change to their code leaves every value the same to the bit.

Poems: bench/distinct_poems.py (the 163 gold poems of ../shared/data, then Markov poems; none
repeated). Each poem is measured once, in a fresh process (cold per-word caches), as the first
`analyze` of a run measures it; CPU time of that process (time.process_time). Every value is
written as its repr (floats to the bit) with the rhymes `rhyme_density` explains.

`--before DIR` measures the same poems with an earlier checkout (`git archive COMMIT poemetric |
tar -x -C DIR`) in a child process, then here, and diffs every value; it exits 1 on any
difference. With `--repeat R` the checkouts take turns R times and the least CPU time of each
is printed (the machine's other load only ever adds time).

    .venv/bin/python bench/bench_ghostwriting_speed.py [--poems 2000] [--before DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def measured_values(poems: int) -> tuple[float, list[str]]:
    """(CPU seconds, one line of reprs per poem) of this checkout's measures."""
    from distinct_poems import distinct_poems
    from mutations import GOLD_CSV, load_gold
    from shared_data import require

    from poemetric.ghostwriting.cached_measures import measure_text
    from poemetric.ghostwriting.language import not_english_reason
    from poemetric.ghostwriting.metrics import DEFAULT_OPTIONS
    from poemetric.ghostwriting.raplyzer import cmu_vowel_words, rhyme_lengths
    from poemetric.ghostwriting.rhyme_density import rhyme_density

    texts = [poem.text for poem in distinct_poems(load_gold(require(GOLD_CSV)), poems)]
    if len(set(texts)) != len(texts):
        raise SystemExit("the poems are not distinct")
    started = time.process_time()
    measures = [measure_text(text, DEFAULT_OPTIONS) for text in texts]
    seconds = time.process_time() - started
    lines = [
        repr((
            tuple(measure),
            rhyme_density(text).rhymes,
            rhyme_lengths(cmu_vowel_words(text)),
            not_english_reason(text),
        ))
        for text, measure in zip(texts, measures, strict=True)
    ]  # fmt: skip
    return seconds, lines


def run_checkout(source: Path, poems: int, out: Path) -> float:
    """Measure in a child process with `source` first on the path; the values go to `out`."""
    env = {**os.environ, "PYTHONPATH": f"{source}{os.pathsep}{HERE}"}
    command = [sys.executable, "-P", str(Path(__file__)), "--poems", str(poems), "--dump", str(out)]
    subprocess.run(command, env=env, check=True)
    return float(json.loads(out.read_text())["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poems", type=int, default=2000)
    parser.add_argument("--before", type=Path, help="an earlier checkout to compare with")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.dump is not None:
        seconds, lines = measured_values(args.poems)
        args.dump.write_text(json.dumps({"seconds": seconds, "values": lines}))
        return
    from mutations import GOLD_CSV
    from shared_data import require

    require(GOLD_CSV)  # exits `SKIPPED` (run_all.py) without the shared data
    sources = {"after": HERE.parent}
    if args.before is not None:
        sources = {"before": args.before, **sources}
    values: dict[str, list[str]] = {}
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.repeat):
            for label, source in sources.items():
                out = Path(scratch) / f"{label}.json"
                seconds = run_checkout(source, args.poems, out)
                values[label] = json.loads(out.read_text())["values"]
                best[label] = min(seconds, best.get(label, seconds))
    for label, seconds in best.items():
        per_poem = seconds / args.poems * 1000
        print(f"{label:6s} {args.poems} poems  {seconds:6.2f} s CPU  {per_poem:5.2f} ms/poem")
    if "before" in values:
        differing = [
            k for k, (a, b) in enumerate(zip(values["before"], values["after"], strict=True))
            if a != b
        ]  # fmt: skip
        print(f"values differing: {len(differing)} of {args.poems} poems")
        for k in differing[:5]:
            print(f"  poem {k}:\n    before {values['before'][k]}\n    after  {values['after'][k]}")
        if differing:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
