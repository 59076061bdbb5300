"""Write a long-format ratings file (`unit, rater, item, score`) of seeded random ratings, as
`poemetric agree` reads it: every rater rates every unit on the 10 POEMetric items, a latent
1-5 score per unit and item with each rater a point off 40% of the time; imagery and
literary_devices are 0 (POEMetric's N/A) 3% of the time. Every row is a distinct draw.

Usage: python bench/make_ratings_file.py OUT.csv [--raters 3] [--units 49000] [--seed 0]
(`.tsv` and `.jsonl` by suffix). 3 raters x 49,000 units: 1.47 million ratings, 38 MB of CSV.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from poemetric.questionnaire import DIMENSIONS


def write_ratings(path: Path, raters: int, units: int, seed: int) -> int:
    """Write the file; the number of rows written."""
    rng = np.random.default_rng(seed)
    items = [d.key for d in DIMENSIONS]
    allows_na = np.array([d.allows_na for d in DIMENSIONS])
    truth = rng.integers(1, 6, size=(1, units, len(items)))
    off = rng.integers(-1, 2, size=(raters, units, len(items))) * (
        rng.random((raters, units, len(items))) < 0.4
    )
    scores = np.clip(truth + off, 1, 5)
    scores[(rng.random(scores.shape) < 0.03) & allows_na] = 0
    names = [f"judge-{r + 1}" for r in range(raters)]
    suffix = path.suffix.lower()
    with path.open("w", encoding="utf-8", newline="") as out:
        if suffix != ".jsonl":
            sep = "\t" if suffix == ".tsv" else ","
            out.write(sep.join(("unit", "rater", "item", "score")) + "\n")
        for u in range(units):
            unit = f"poem-{u:06d}"
            for r, rater in enumerate(names):
                for i, item in enumerate(items):
                    score = int(scores[r, u, i])
                    if suffix == ".jsonl":
                        row = {"unit": unit, "rater": rater, "item": item, "score": score}
                        out.write(json.dumps(row) + "\n")
                    else:
                        out.write(f"{unit}{sep}{rater}{sep}{item}{sep}{score}\n")
    return raters * units * len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--units", type=int, default=49_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = write_ratings(args.out, args.raters, args.units, args.seed)
    print(f"{args.out}: {rows:,} ratings, {args.out.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
