"""Summary statistics with confidence intervals (t, bootstrap, Wilson): the analysis's scores,
the ghostwriting measures and the probe tables use them alike."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

CIMethod = Literal["t", "bootstrap"]
#: Resamples of a percentile bootstrap CI of a mean (`--ci bootstrap`).
SCORE_BOOTSTRAP = 2000


@dataclass(frozen=True)
class Summary:
    """Mean, sample SD and a 95% (by default) confidence interval of the mean."""

    n: int
    mean: float
    sd: float
    ci_low: float
    ci_high: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


#: The range a bounded score can take, e.g. (0, 1) for a proportion or (1, 5) for a Likert item.
Domain = tuple[float, float]


def clip_interval(
    low: float, high: float, estimate: float, domain: Domain | None
) -> tuple[float, float]:
    """An interval that contains its estimate and, when a domain is given, stays inside it.

    Floating-point residue can put a bound a hair on the wrong side of the estimate (e.g. a
    Wilson upper bound of 0.9999999999 for 12/12), and a t interval of a bounded score can leave
    the score's range (a CI of -0.10 for a proportion): neither is a real value.
    """
    if math.isnan(low) or math.isnan(high):
        return low, high
    low, high = min(low, estimate), max(high, estimate)
    if domain is not None:
        low, high = max(low, domain[0]), min(high, domain[1])
    return low, high


def summarize(
    values: Sequence[float] | np.ndarray,
    *,
    method: CIMethod = "t",
    confidence: float = 0.95,
    n_boot: int = SCORE_BOOTSTRAP,
    seed: int = 0,
    domain: Domain | None = None,
) -> Summary:
    """Summarize finite values (NaN is ignored). SD uses ddof=1; with n < 2 the CI is NaN.
    The bootstrap resamples the values in sorted order, so their order never matters.

    With `domain` the confidence interval is clipped to the range the values can take.
    """
    data = np.asarray(values, dtype=float)
    data = data[np.isfinite(data)]
    n = int(data.size)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan, math.nan)
    mean = float(data.mean())
    if n < 2:
        return Summary(n, mean, math.nan, math.nan, math.nan)
    sd = float(data.std(ddof=1))
    if method == "t":
        from scipy import stats as scipy_stats  # 0.6 s: imported where a t interval is due

        half = float(scipy_stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
        low, high = clip_interval(mean - half, mean + half, mean, domain)
        return Summary(n, mean, sd, low, high)
    # Sorted: a draw picks values by position, so the same values in another order (poems
    # stored in another order) would get another interval.
    low, high = bootstrap_ci(np.sort(data), confidence=confidence, n_boot=n_boot, seed=seed)
    low, high = clip_interval(low, high, mean, domain)
    return Summary(n, mean, sd, low, high)


#: Resampled values drawn at once by `bootstrap_ci` (about 8 MiB of indices, as many of values):
#: a group's resamples are drawn in chunks of rows below this.
BOOTSTRAP_CHUNK = 1 << 20


def _batch_mean(resamples: np.ndarray) -> np.ndarray:
    return resamples.mean(axis=1)


def bootstrap_ci(
    data: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray] = _batch_mean,
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of `statistic`, resampling the first axis of `data`.

    `statistic` takes a batch of resamples (resamples x the shape of `data`) and returns one
    value per resample (default: the mean). The resamples are drawn with numpy all at once, in
    chunks of at most `BOOTSTRAP_CHUNK` values; the draws are those of one resample after the
    other (`rng.integers(0, n, n)` each), so a seed gives the same interval either way.
    """
    rng = np.random.default_rng(seed)
    n = len(data)
    per_resample = max(1, int(np.prod(data.shape)))
    rows = max(1, BOOTSTRAP_CHUNK // per_resample)
    estimates = np.empty(n_boot)
    for start in range(0, n_boot, rows):
        size = min(rows, n_boot - start)
        estimates[start : start + size] = statistic(data[rng.integers(0, n, size=(size, n))])
    estimates = estimates[np.isfinite(estimates)]
    if estimates.size == 0:
        return math.nan, math.nan
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (well-behaved near 0 and 1)."""
    if n == 0:
        return math.nan, math.nan
    from scipy.special import ndtri  # what `scipy.stats.norm.ppf` computes, without importing

    z = float(ndtri(0.5 + confidence / 2))  # scipy.stats (0.6 s against 0.3 s)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return clip_interval(centre - half, centre + half, p, (0.0, 1.0))
