"""Time `validate_file` on the POEMetric release (docs/datasets.md, "Measured").

Every timed call validates a distinct file: the release's records in a different (seeded) order,
re-written as CSV before timing, so no two inputs are the same bytes. The files are read back from
the OS page cache (written just before); the validator caches nothing between calls. One untimed
call on the release itself imports and warms up first. CPU time of this process
(`time.process_time`), best and median of N; pin to one core for stable numbers:

    taskset -c 0 .venv/bin/python bench/bench_validate.py [--repeats 20]

Needs ../shared/data/poemetric_human_poems_annotated.csv (skips without it).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import tempfile
import time
from pathlib import Path

from shared_data import SHARED_DATA, require

from poemetric.data import validate_file

RELEASE = SHARED_DATA / "poemetric_human_poems_annotated.csv"


def shuffled_copies(source: Path, folder: Path, count: int) -> list[Path]:
    """`count` CSV files holding `source`'s records, each in its own seeded order."""
    with source.open(encoding="utf-8-sig", newline="") as handle:
        header, *records = list(csv.reader(handle))
    paths = []
    for seed in range(count):
        order = records[:]
        random.Random(seed).shuffle(order)
        path = folder / f"release-{seed}.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows([header, *order])
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="Timed calls (distinct files).")
    args = parser.parse_args()
    source = require(RELEASE)
    warm = validate_file(source)
    assert not warm.issues, warm.issues[:3]
    with tempfile.TemporaryDirectory() as tmp:
        paths = shuffled_copies(source, Path(tmp), args.repeats)
        times = []
        for path in paths:
            started = time.process_time()
            report = validate_file(path)
            times.append(time.process_time() - started)
            assert report.records == warm.records and not report.issues
        sizes = {path.stat().st_size for path in paths}
    print(
        f"validate_file, {warm.records} records ({min(sizes):,}-{max(sizes):,} bytes), "
        f"{args.repeats} distinct orders: best {min(times) * 1e3:.1f} ms, "
        f"median {statistics.median(times) * 1e3:.1f} ms CPU"
    )


if __name__ == "__main__":
    main()
