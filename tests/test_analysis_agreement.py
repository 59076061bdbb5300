"""Agreement statistics against hand-computed and textbook values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from poemetric.analysis.agreement import cohen_kappa, gwet_ac, krippendorff_alpha, pao, spearman

NAN = math.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# 4 observers x 12 units, nominal data with missing values.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def test_pao_hand_computed() -> None:
    # A rated 10 units, B 9 (one missing); they agree on 6 units: 2*6 / (10+9).
    a = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5]
    b = [1, 2, 3, 4, 5, 1, 3, 4, 5, NAN]
    assert pao(a, b) == pytest.approx(12 / 19)
    assert pao([1, 2, 3], [1, 2, 3]) == 1.0
    assert math.isnan(pao([NAN], [NAN]))


def test_pao_counts_na_zero_as_a_category() -> None:
    assert pao([0, 0, 4], [0, 3, 4]) == pytest.approx(2 / 3)


def test_cohen_kappa_textbook_and_hand_computed() -> None:
    # Textbook 2x2 example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> kappa = 0.4.
    a = [1] * 25 + [0] * 25
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    # Quadratic weights on a 3-point scale, worked by hand: 1 - (1/12) / (5/12) = 0.8.
    assert cohen_kappa([1, 2, 3], [1, 3, 3], weights="quadratic") == pytest.approx(0.8)
    assert cohen_kappa([1, 2, 3, 4], [1, 2, 3, 4], weights="quadratic") == pytest.approx(1.0)


def test_weighted_kappa_ignores_unused_end_categories_but_ac2_does_not() -> None:
    a, b = [2, 3, 3, 4], [2, 3, 4, 4]
    seen = cohen_kappa(a, b, weights="linear")
    full = cohen_kappa(a, b, weights="linear", categories=[1, 2, 3, 4, 5])
    assert seen == pytest.approx(full)  # weighted kappa is invariant to rescaling the weights
    assert gwet_ac(a, b, weights="linear") != pytest.approx(
        gwet_ac(a, b, weights="linear", categories=[1, 2, 3, 4, 5])
    )
    with pytest.raises(ValueError, match="not among the categories"):
        cohen_kappa([1, 6], [1, 2], categories=[1, 2, 3, 4, 5])


def test_gwet_ac1_hand_computed() -> None:
    # pa = 3/4, pi = (5/8, 3/8), pe = (1/(q-1)) * sum pi(1-pi) = 15/32  ->  AC1 = 9/17.
    assert gwet_ac([1, 1, 1, 0], [1, 1, 0, 0]) == pytest.approx(9 / 17)
    assert gwet_ac([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], weights="quadratic") == pytest.approx(1.0)


def test_spearman_and_degenerate_input() -> None:
    assert spearman([1, 2, 3, 4], [2, 3, 4, 5]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(spearman([3, 3, 3], [1, 2, 3]))


def test_krippendorff_alpha_2011_worked_example() -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, level="nominal") == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(KRIPPENDORFF_2011, level="interval") == pytest.approx(0.849, abs=5e-4)


def test_krippendorff_alpha_perfect_and_unpairable() -> None:
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], level="ordinal") == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([[1, NAN], [NAN, 2]], level="interval"))
    with pytest.raises(ValueError, match="unknown level"):
        krippendorff_alpha(KRIPPENDORFF_2011, level="circular")  # type: ignore[arg-type]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_matches_reference_package(level: str) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    for _ in range(5):
        data = rng.integers(1, 6, size=(5, 40)).astype(float)
        data[rng.random(data.shape) < 0.3] = np.nan
        ours = krippendorff_alpha(data, level=level)  # type: ignore[arg-type]
        reference = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert ours == pytest.approx(reference, abs=1e-9)
    reference = krippendorff.alpha(reliability_data=KRIPPENDORFF_2011, level_of_measurement=level)
    assert krippendorff_alpha(KRIPPENDORFF_2011, level=level) == pytest.approx(reference, abs=1e-9)  # type: ignore[arg-type]


def test_spearman_matches_scipy_with_ties() -> None:
    from scipy.stats import spearmanr

    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.integers(1, 6, 25).astype(float)
        y = rng.integers(1, 6, 25).astype(float)
        assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)


def test_categories_are_a_scale_whatever_order_they_are_listed_in() -> None:
    """A scale listed from 5 down refused every rating, and a repeated value counted as a
    category of its own in Gwet's q (AC2 0.903 instead of 0.864). Reference values: kappa by
    scikit-learn 1.9.1 `cohen_kappa_score(x, y, weights=w, labels=[1, 2, 3, 4, 5])` (the same
    with labels 5..1); AC1/AC2 by irrCAC 0.4.4 `CAC(frame, weights=w, categories=[1, 2, 3, 4,
    5]).gwet()` (its coefficient, to 15 digits)."""
    x, y = [1, 2, 3, 4, 5, 1, 2], [1, 3, 3, 5, 4, 2, 2]
    kappas = {None: 0.28205128205128205, "linear": 0.6216216216216216,
              "quadratic": 0.8409090909090908}  # fmt: skip
    gwets = {None: 0.288888888888889, "linear": 0.652173913043478,
             "quadratic": 0.864406779661017}  # fmt: skip
    for categories in ([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 5], [3, 1, 2, 5, 4]):
        for weights, kappa in kappas.items():
            assert cohen_kappa(x, y, weights=weights, categories=categories) == pytest.approx(
                kappa, abs=1e-12
            ), (categories, weights)
            assert gwet_ac(x, y, weights=weights, categories=categories) == pytest.approx(
                gwets[weights], abs=1e-12
            ), (categories, weights)
