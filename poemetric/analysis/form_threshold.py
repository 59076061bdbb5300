"""How the form tables, figures and report name the pass threshold their checks were made at.

`form run --threshold 0.4` changes every pass rate, but the captions said "the threshold, 0.7
by default" and the LaTeX tables named none, so a paper's table could not say which mark it
reports. The stored checks record their threshold (`explanation.threshold`); these words say it.
"""

from __future__ import annotations

import pandas as pd

from poemetric.form_defaults import DEFAULT_THRESHOLD


def checked_thresholds(form_checks: pd.DataFrame) -> list[float]:
    """The distinct thresholds the rows of `form_checks` (a `threshold` column) were judged by,
    smallest first; [] when none is recorded."""
    if "threshold" not in form_checks:
        return []
    values = pd.to_numeric(form_checks["threshold"], errors="coerce").dropna()
    return sorted({round(float(value), 4) for value in values})


def threshold_words(thresholds: list[float]) -> str:
    """`the threshold 0.4, set for this run instead of the default 0.7` and the like, to follow
    "... scores reach"; no parentheses, since captions put it inside theirs."""
    default = f"{DEFAULT_THRESHOLD:g}"
    if not thresholds:
        return f"the threshold, {default} by default"
    if len(thresholds) > 1:
        listed = " or ".join(f"{value:g}" for value in thresholds)
        return f"the threshold its check was made at, which in this run is {listed}"
    (only,) = thresholds
    if only == DEFAULT_THRESHOLD:
        return f"the threshold, the default {default}"
    return f"the threshold {only:g}, set for this run instead of the default {default}"


def pass_rule(form_checks: pd.DataFrame) -> str:
    """`a poem passes when each of its applicable form, meter and rhyme scores reaches the
    threshold, 0.4 (not the default 0.7)`, as the checks of `form_checks` were made (spelt
    "meter" as the tables' "Meter score" and the figures are)."""
    return (
        "a poem passes when each of its applicable form, meter and rhyme scores reaches "
        + threshold_words(checked_thresholds(form_checks))
    )
