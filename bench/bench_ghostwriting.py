"""Ghostwriting measures: speed, Raplyzer CMU-vs-eSpeak agreement, near-copy calibration.

Inputs are distinct poems: the 163 POEMetric gold poems (../shared/data) and the 16 demo poems;
"paper-scale" candidates are 163 x 30 = 4,890 distinct variants of the gold poems (each with a
seeded random share of its lines replaced by lines of other gold poems), as many poems as 30
models writing for every prompt. Timings are CPU time of this process (time.process_time) unless
marked wall; the whole-process row runs the CLI in a child process and reports its CPU time.

    .venv/bin/python bench/bench_ghostwriting.py [--models 30]
"""

from __future__ import annotations

import argparse
import csv
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pandas as pd
from scipy import stats
from shared_data import SHARED_DATA, require

from poemetric.ghostwriting.metrics import poem_measures
from poemetric.ghostwriting.raplyzer import raplyzer_density
from poemetric.ghostwriting.rhyme_density import rhyme_density
from poemetric.ghostwriting.uniqueness import NEAR_COPY_THRESHOLD, ReferenceText, UniquenessIndex

ROOT = Path(__file__).resolve().parent.parent
GOLD = SHARED_DATA / "poemetric_human_poems_annotated.csv"
DEMO = ROOT / "datasets" / "demo" / "poems.csv"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def _timed(function: object, texts: list[str]) -> tuple[float, list[float]]:
    started = time.process_time()
    values = [function(text) for text in texts]  # type: ignore[operator]
    return time.process_time() - started, values


def speed(texts: list[str]) -> None:
    print(f"\n## Per-poem speed ({len(texts)} distinct poems, CPU time, one core)")
    for label, function in (
        ("rhyme density, first pass (pronunciations looked up)", rhyme_density),
        ("rhyme density, second pass (pronunciations cached)", rhyme_density),
        ("Raplyzer, CMU vowels", raplyzer_density),
    ):
        seconds, _ = _timed(function, texts)
        print(f"{label:58s} {len(texts) / seconds:8.0f} poems/s")
    if shutil.which("espeak-ng"):
        started = time.perf_counter()
        for text in texts[:40]:
            raplyzer_density(text, phonetics="espeak")
        wall = time.perf_counter() - started
        print(
            f"{'Raplyzer, eSpeak NG (one espeak-ng process per poem, wall)':58s} {40 / wall:8.0f} poems/s"
        )


def _variant(poem: str, others: list[list[str]], share: float, rng: random.Random) -> str:
    lines = poem.splitlines()
    positions = [i for i, line in enumerate(lines) if line.strip()]
    for index in rng.sample(positions, round(share * len(positions))):
        donor = rng.choice(others)
        lines[index] = rng.choice([line for line in donor if line.strip()])
    return "\n".join(lines)


def uniqueness(gold: list[str], models: int) -> None:
    rng = random.Random(0)
    split = [poem.splitlines() for poem in gold]
    references = [ReferenceText(str(i), poem, str(i)) for i, poem in enumerate(gold)]
    started = time.process_time()
    index = UniquenessIndex(references)
    build = time.process_time() - started
    candidates = [
        _variant(poem, split[:i] + split[i + 1 :], rng.random(), rng)
        for i, poem in enumerate(gold)
        for _ in range(models)
    ]
    started = time.process_time()
    nearest = index.nearest(candidates)
    scoring = time.process_time() - started
    print(f"\n## Uniqueness ({len(gold)} reference poems, {len(candidates)} distinct candidates)")
    print(f"index build: {build * 1000:.0f} ms; scoring: {len(candidates) / scoring:,.0f} poems/s")
    assert len(nearest) == len(candidates)
    frame = pd.DataFrame(
        {
            "generation_id": [str(i) for i in range(len(candidates))],
            "author": [f"model-{i % models}" for i in range(len(candidates))],
            "poem_id": [str(i // models) for i in range(len(candidates))],
            "poem_form": "",
            "poem": candidates,
        }
    )
    started = time.process_time()
    poem_measures(frame, references)
    every = time.process_time() - started
    print(
        f"every per-poem measure (both densities + uniqueness) on the {len(candidates)} "
        f"candidates: {every:.1f} s CPU = {len(candidates) / every:.0f} poems/s"
    )

    print("\n## Near-copy calibration on the gold poems (lines replaced by other poems' lines)")
    print(f"| share of lines replaced | mean similarity | min | flagged at {NEAR_COPY_THRESHOLD} |")
    print("|---:|---:|---:|---:|")
    for share in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8):
        variants = [
            _variant(poem, split[:i] + split[i + 1 :], share, random.Random(i))
            for i, poem in enumerate(gold)
        ]
        scores = [n.similarity for n in index.nearest(variants)]
        flagged = sum(s >= NEAR_COPY_THRESHOLD for s in scores) / len(scores)
        print(
            f"| {share:.0%} | {statistics.mean(scores):.3f} | {min(scores):.3f} | {flagged:.1%} |"
        )
    others = index.nearest(gold, exclude=[{str(i)} for i in range(len(gold))])
    scores = sorted(n.similarity for n in others)
    flagged = sum(s >= NEAR_COPY_THRESHOLD for s in scores)
    print(
        f"distinct gold poems against each other: median {statistics.median(scores):.3f}, "
        f"95th percentile {scores[int(0.95 * len(scores))]:.3f}, max {scores[-1]:.3f}; "
        f"flagged {flagged}/{len(scores)}"
    )


def agreement(gold_rows: list[dict[str, str]]) -> None:
    print("\n## Raplyzer: CMU vowels vs eSpeak NG vowels (the original's transcriber)")
    if not shutil.which("espeak-ng"):
        print("espeak-ng not installed: skipped")
        return
    texts = [row["content"] for row in gold_rows]
    cmu = [raplyzer_density(text) for text in texts]
    espeak = [raplyzer_density(text, phonetics="espeak") for text in texts]
    differences = [abs(a - b) for a, b in zip(cmu, espeak, strict=True)]
    print(
        f"gold poems (n={len(texts)}): mean eSpeak {statistics.mean(espeak):.3f}, "
        f"mean CMU {statistics.mean(cmu):.3f}, mean |difference| {statistics.mean(differences):.3f}, "
        f"max {max(differences):.3f}, Pearson {stats.pearsonr(cmu, espeak)[0]:.3f}, "
        f"Spearman {stats.spearmanr(cmu, espeak)[0]:.3f}"
    )


def by_form(gold_rows: list[dict[str, str]]) -> None:
    print("\n## Human gold poems by form (mean per poem)")
    print("| form | poems | rhyme density | unweighted | entropy weight | Raplyzer (CMU) |")
    print("|---|---:|---:|---:|---:|---:|")
    groups: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    for row in gold_rows:
        measured = rhyme_density(row["content"])
        groups[row["form"].strip().lower()].append(
            (
                measured.density,
                measured.raw,
                measured.entropy_weight,
                raplyzer_density(row["content"]),
            )
        )
    for form, values in sorted(groups.items()):
        means = [statistics.mean(column) for column in zip(*values, strict=True)]
        print(f"| {form} | {len(values)} | " + " | ".join(f"{m:.3f}" for m in means) + " |")


def whole_process(gold_path: Path) -> None:
    """`poemetric ghostwriting metrics` on a run of the gold poems (human rows + Markov poems)."""
    print("\n## Whole process: `poemetric ghostwriting metrics` (child process)")
    poemetric = str(Path(sys.executable).with_name("poemetric"))
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run"
        subprocess.run([poemetric, "generate", "--run", str(run), "--dataset", str(gold_path),
                        "--models", "markov", "--no-progress"], check=True,
                       capture_output=True)  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([poemetric, "ghostwriting", "metrics", "--run", str(run)], check=True,
                       capture_output=True)  # fmt: skip
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        poems = sum(1 for _ in (run / "analysis" / "ghostwriting_poems.csv").open()) - 1
        print(f"{poems} poems (human + markov): {cpu:.2f} s CPU, {wall:.2f} s wall, "
              f"{poems / cpu:.0f} poems/s including start-up and writing the tables")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=int, default=30, help="Candidates per gold poem.")
    args = parser.parse_args()
    gold_rows = _rows(require(GOLD))
    gold = [row["content"] for row in gold_rows]
    speed(gold + [row["content"] for row in _rows(DEMO)])
    uniqueness(gold, args.models)
    by_form(gold_rows)
    agreement(gold_rows)
    whole_process(GOLD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
