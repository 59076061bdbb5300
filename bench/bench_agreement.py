"""Agreement statistics: CPU time of `agreement_report` (11 statistics per item and pooled, with
bootstrap CIs) on published and paper-sized data, beside recomputing every statistic on each
explicitly resampled data set (what a straightforward bootstrap does).

Usage: python bench/bench_agreement.py [--repeat 3] [--memory]
Times are CPU seconds (time.process_time) of the best of --repeat runs; ratings are distinct
random draws per size (seeded), nothing is cached between runs. --memory instead times one
`agreement_report` (1000 resamples) on many raters or many units and prints its peak of traced
memory (tracemalloc: numpy's arrays included, the process's own start-up not).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from functools import partial

import numpy as np

from poemetric.reliability import Rating, Ratings, agreement_report
from poemetric.reliability.io import EXAMPLES, read_ratings

EXAMPLE = EXAMPLES / "krippendorff-2011.csv"


def synthetic(units: int, raters: int, items: int, per_unit: int, seed: int) -> Ratings:
    """Each unit rated by `per_unit` random raters on every item: latent quality + noise,
    clipped to 1-5, about 5% N/A."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(units):
        quality = rng.normal(3, 1)
        for r in rng.choice(raters, size=per_unit, replace=False):
            for i in range(items):
                score = float(np.clip(np.rint(quality + rng.normal(0, 0.8)), 1, 5))
                na = rng.random() < 0.05
                rows.append(Rating(f"u{u}", f"r{r}", f"i{i}", None if na else score))
    return Ratings.from_ratings(rows, scale=[1, 2, 3, 4, 5])


def coded(raters: int, units: int, items: int, seed: int) -> Ratings:
    """Every rater rates every unit on every item, coded directly (no `Rating` rows): a latent
    1-5 score per unit and item, each rater off by a point 40% of the time, about 3% N/A."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=(1, units, items))
    noise = rng.integers(-1, 2, size=(raters, units, items)) * (
        rng.random((raters, units, items)) < 0.4
    )
    codes = np.clip(truth + noise, 1, 5) - 1
    codes[rng.random(codes.shape) < 0.03] = 5  # N/A
    return Ratings(
        tuple(f"u{u:06d}" for u in range(units)),
        tuple(f"r{r}" for r in range(raters)),
        tuple(f"i{i}" for i in range(items)),
        np.arange(1.0, 6.0),
        codes.astype(np.int64),
    )


def memory() -> None:
    """Peak traced memory and CPU seconds of one report with 1000 resamples."""
    print(f"{'data':44} {'peak MiB':>9} {'CPU s':>7}")
    for raters, units in ((8, 58), (30, 300), (3, 49_000)):
        ratings = coded(raters, units, 10, seed=raters)
        start = time.process_time()
        tracemalloc.start()
        agreement_report(ratings, n_boot=1000, seed=0)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        name = f"{raters} raters x {units:,} units x 10 items"
        print(f"{name:44} {peak:9.1f} {time.process_time() - start:7.1f}")


def explicit_bootstrap(ratings: Ratings, n_boot: int, seed: int) -> None:
    """The straightforward way: draw units, build the resampled data, recompute everything."""
    rng = np.random.default_rng(seed)
    for _ in range(n_boot):
        drawn = rng.integers(0, len(ratings.units), len(ratings.units))
        resampled = Ratings(
            tuple(f"{ratings.units[u]}#{k}" for k, u in enumerate(drawn)),
            ratings.raters,
            ratings.items,
            ratings.scale,
            ratings.codes[:, drawn, :],
        )
        agreement_report(resampled, n_boot=0)


def best_cpu(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory", action="store_true", help="peak memory on large data")
    args = parser.parse_args()
    if args.memory:
        memory()
        return
    example = read_ratings(EXAMPLE, na_value=None)
    overall = agreement_report(example, n_boot=0).overall.estimates
    print(
        "Krippendorff (2011) 4 coders x 12 units: "
        + ", ".join(
            f"{k} {overall[k]:.3f}"
            for k in ("alpha_nominal", "alpha_ordinal", "alpha_interval", "gwet_ac1")
        )
        + "  (published .743 / .815 / .849, Gwet AC1 .775)"
    )
    print(f"{'data':58} {'bootstrap':>9} {'report CPU s':>12} {'explicit CPU s':>14}")
    cases = [
        ("Krippendorff example (12 units x 4 coders, 1 item)", example, 1000, True),
        ("paper-sized: 58 poems, 8 raters, 2 per poem, 10 items", synthetic(58, 8, 10, 2, 1), 1000, True),
        ("paper panel, full overlap: 58 poems x 8 raters x 10 items", synthetic(58, 8, 10, 8, 2), 1000, True),
        ("large: 2000 units, 5 raters, 3 per unit, 10 items", synthetic(2000, 5, 10, 3, 3), 1000, False),
    ]  # fmt: skip
    for name, ratings, n_boot, compare in cases:
        fast = best_cpu(partial(agreement_report, ratings, n_boot=n_boot), args.repeat)
        slow = (
            f"{best_cpu(partial(explicit_bootstrap, ratings, n_boot, 0), 1):14.2f}"
            if compare
            else f"{'(not run)':>14}"
        )
        print(f"{name:58} {n_boot:9d} {fast:12.3f} {slow}")


if __name__ == "__main__":
    main()
