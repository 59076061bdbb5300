"""Agreement of any ratings: published values, reference packages, the bootstrap, the CLI."""

from __future__ import annotations

import json
import math
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from poemetric.analysis.agreement import gwet_ac_raters, kendall
from poemetric.cli import app
from poemetric.reliability import Rating, Ratings, agreement_report, parse_scale, parse_score
from poemetric.reliability.features import coefficients_from_sums, unit_features
from poemetric.reliability.io import EXAMPLES, RatingsFileError, read_ratings

EXAMPLE = EXAMPLES / "krippendorff-2011.csv"
runner = CliRunner()


def _ratings(matrix: np.ndarray, items: int = 1) -> Ratings:
    """Raters x units (x items) floats with NaN = not rated, as Ratings on the 1-5 scale."""
    data = matrix.reshape(*matrix.shape[:2], items)
    rows = [
        Rating(f"u{u:03d}", f"r{r}", f"i{i}", float(data[r, u, i]))
        for r, u, i in np.argwhere(np.isfinite(data))
    ]
    return Ratings.from_ratings(rows, scale=[1, 2, 3, 4, 5])


def _random_matrix(rng: np.random.Generator, raters: int, units: int) -> np.ndarray:
    data = rng.integers(1, 6, size=(raters, units)).astype(float)
    data[rng.random(data.shape) < 0.25] = np.nan
    return data


def test_cli_reproduces_krippendorff_and_gwet_published_values() -> None:
    # Krippendorff (2011) 4 coders x 12 units: alpha .743 / .815 / .849; Gwet (2014): AC1 .775.
    result = runner.invoke(app, ["agree", str(EXAMPLE), "--format", "json", "--bootstrap", "200"])
    assert result.exit_code == 0, result.output
    overall = json.loads(result.output)["overall"]
    published = {"alpha_nominal": 0.743, "alpha_ordinal": 0.815, "alpha_interval": 0.849,
                 "gwet_ac1": 0.775}  # fmt: skip
    for name, value in published.items():
        assert round(overall[name]["estimate"], 3) == value, name
        assert overall[name]["ci_low"] <= overall[name]["estimate"] <= overall[name]["ci_high"]
    assert overall["n_units"] == 12 and overall["n_raters"] == 4 and overall["n_ratings"] == 41
    table = runner.invoke(app, ["agree", str(EXAMPLE), "--bootstrap", "0"])
    assert table.exit_code == 0 and "0.743" in table.output and "0.775" in table.output
    flat = " ".join(table.output.split())  # the caption wraps at the table's width
    assert "No CIs (--bootstrap 0)." in flat and "Per-item CIs" not in flat


def test_the_table_of_the_ten_items_keeps_every_estimate_whole_at_80_columns(
    tmp_path: Path,
) -> None:
    """POEMetric's ten items at 80 columns (a pipe, a log): rich squeezed the item columns of
    one table to `0.…`, or to nothing. Items that do not fit go to further tables."""
    from poemetric.questionnaire import DIMENSION_KEYS as SCORE_KEYS

    rng = np.random.default_rng(3)
    lines = ["unit,rater,item,score"]
    for unit in range(8):
        for rater in ("gemini-2.5-pro", "e1", "e2"):
            lines += [f"p{unit},{rater},{item},{rng.integers(1, 6)}" for item in SCORE_KEYS]
    path = tmp_path / "judge_and_experts.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["agree", str(path), "--focus", "gemini-2.5-pro", "--scale", "1-5", "--seed", "1"]
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert max(map(len, result.output.splitlines())) <= 80
    report = json.loads(runner.invoke(app, [*args, "--format", "json"]).output)
    for item in SCORE_KEYS:
        assert item in result.output
        pao = f"{report['items'][item]['pao']['estimate']:.3f}"
        kendall_tau = f"{report['items'][item]['kendall']['estimate']:.3f}"
        rows = [line for line in result.output.splitlines() if line.startswith("│ PAo")]
        assert any(pao in row for row in rows), item
        assert any(kendall_tau in line for line in result.output.splitlines()), item
    flat = " ".join(result.output.split())
    assert "Pairwise statistics: gemini-2.5-pro against each other rater." in flat
    assert "CIs: percentile bootstrap over units, 1000 resamples, seed 1" in flat


def test_matches_reference_packages_on_random_ratings() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    irr = pytest.importorskip("irrCAC.raw")
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    import pandas as pd
    from scipy.stats import kendalltau, spearmanr

    rng = np.random.default_rng(11)
    for trial in range(12):
        data = _random_matrix(rng, raters=3 + trial % 3, units=30)
        report = agreement_report(_ratings(data), n_boot=0).overall.estimates
        for level in ("nominal", "ordinal", "interval"):
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
            assert report[f"alpha_{level}"] == pytest.approx(expected, abs=1e-12)
        # irrCAC drops NaN categories only when told the categories (pandas 3 keeps them).
        frame = pd.DataFrame(data.T)
        for weights, name in (("identity", "gwet_ac1"), ("linear", "gwet_ac2_linear"),
                              ("quadratic", "gwet_ac2_quadratic")):  # fmt: skip
            cac = irr.CAC(frame, weights=weights, categories=[1, 2, 3, 4, 5], digits=15)
            expected = cac.gwet()["est"]["coefficient_value"]
            assert report[name] == pytest.approx(expected, abs=1e-12)
        qwk, rho, tau = [], [], []
        for a, b in combinations(range(len(data)), 2):
            both = np.isfinite(data[a]) & np.isfinite(data[b])
            x, y = data[a][both], data[b][both]
            qwk.append(sklearn_metrics.cohen_kappa_score(x, y, weights="quadratic",
                                                         labels=[1, 2, 3, 4, 5]))  # fmt: skip
            rho.append(spearmanr(x, y).statistic)
            tau.append(kendalltau(x, y).statistic)
            assert kendall(data[a], data[b]) == pytest.approx(tau[-1], abs=1e-12)
        assert report["qwk"] == pytest.approx(np.mean(qwk), abs=1e-12)
        assert report["spearman"] == pytest.approx(np.mean(rho), abs=1e-12)
        assert report["kendall"] == pytest.approx(np.mean(tau), abs=1e-12)
        assert gwet_ac_raters(data, categories=[1, 2, 3, 4, 5]) == pytest.approx(
            report["gwet_ac1"], abs=1e-12
        )


def test_a_bootstrap_draw_equals_recomputing_on_the_resampled_units() -> None:
    rng = np.random.default_rng(5)
    data = _random_matrix(rng, raters=4, units=15)
    ratings = _ratings(data)
    pairs = ratings.pairs()
    features = unit_features(ratings.codes[:, :, 0], ratings.scale, pairs)
    drawn = rng.integers(0, 15, 15)
    weighted = coefficients_from_sums(features.sums(np.bincount(drawn, minlength=15)),
                                      ratings.scale, len(pairs))  # fmt: skip
    resampled = agreement_report(_ratings(ratings_matrix(ratings)[:, drawn]), n_boot=0)
    for name, value in resampled.overall.estimates.items():
        assert float(weighted[name]) == pytest.approx(value, abs=1e-12, nan_ok=True), name


def ratings_matrix(ratings: Ratings) -> np.ndarray:
    codes = ratings.codes[:, :, 0]
    return np.where(codes >= 0, ratings.scale[np.clip(codes, 0, len(ratings.scale) - 1)], np.nan)


def test_items_pool_and_na_is_a_category_only_for_pao_and_adjacent() -> None:
    rows = [
        Rating("p1", "a", "imagery", None), Rating("p1", "b", "imagery", None),
        Rating("p2", "a", "imagery", 4), Rating("p2", "b", "imagery", None),
        Rating("p1", "a", "form", 5), Rating("p1", "b", "form", 4),
        Rating("p2", "a", "form", 2), Rating("p2", "b", "form", 2),
    ]  # fmt: skip
    report = agreement_report(Ratings.from_ratings(rows, scale=[1, 2, 3, 4, 5]), n_boot=0)
    imagery, form, overall = report.items["imagery"], report.items["form"], report.overall
    assert imagery.estimates["pao"] == 0.5  # N/A = N/A agrees; 4 vs N/A does not
    assert imagery.estimates["adjacent"] == 0.5
    assert imagery.counts["n_na"] == 3 and imagery.counts["n_pairs"] == 2
    assert math.isnan(imagery.estimates["alpha_interval"])  # no pairable scale values left
    assert form.estimates["pao"] == 0.5 and form.estimates["adjacent"] == 1.0
    assert overall.estimates["pao"] == 0.5 and overall.counts["n_pairs"] == 4


def test_focus_keeps_only_that_raters_pairs() -> None:
    data = np.array([[1, 2, 3, 4, 5, 1], [1, 2, 3, 4, 5, 1], [5, 4, 3, 2, 1, 5]], float)
    ratings = _ratings(data)
    assert agreement_report(ratings, n_boot=0).overall.estimates["pao"] == pytest.approx(
        (6 + 1 + 1) / 18
    )
    focused = agreement_report(ratings, focus="r0", n_boot=0)
    assert focused.settings["pairs"] == [["r0", "r1"], ["r0", "r2"]]
    assert focused.overall.estimates["pao"] == pytest.approx(7 / 12)
    with pytest.raises(ValueError, match="no rater 'judge'"):
        agreement_report(ratings, focus="judge")


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    ratings = _ratings(_random_matrix(np.random.default_rng(2), raters=3, units=40))
    first = agreement_report(ratings, n_boot=300, seed=4).overall
    again = agreement_report(ratings, n_boot=300, seed=4).overall
    assert first.ci_low == again.ci_low and first.ci_high == again.ci_high
    for name, estimate in first.estimates.items():
        assert first.ci_low[name] <= estimate <= first.ci_high[name], name


def test_read_ratings_reports_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(
        "unit,rater,item,score\n"
        "p1,a,form,4\n"
        "p1,a,form,5\n"        # duplicate of line 2
        "p2,a,form,good\n"     # not a number
        "p3,,form,3\n"         # empty rater
        "p4,a,form,3,extra\n"  # an unquoted comma
        "p5,a,form,9\n",       # off the scale
        encoding="utf-8",
    )  # fmt: skip
    with pytest.raises(RatingsFileError) as error:
        read_ratings(path, scale=[1, 2, 3, 4, 5])
    message = str(error.value)
    expected = [
        "ratings.csv:3: rater 'a' rated unit 'p1' on 'form' already on line 2",
        "ratings.csv:4: score 'good' is not a number",
        "ratings.csv:5: empty rater",
        "ratings.csv:6: expected 4 fields (as in the header), found 5 (an unquoted comma",
        "ratings.csv:7: score '9' is not on the scale",
    ]
    # In line order: the reader's problem of line 6 was listed first.
    found = [message.index(problem) for problem in expected]
    assert found == sorted(found), message
    bad = runner.invoke(app, ["agree", str(path)])
    assert bad.exit_code == 2 and bad.stdout == "" and bad.stderr.startswith("error: ")
    assert "ratings.csv:4" in bad.stderr and "Traceback" not in bad.output
    (tmp_path / "nocols.csv").write_text("who,what\na,b\n", encoding="utf-8")
    with pytest.raises(RatingsFileError, match="missing column"):
        read_ratings(tmp_path / "nocols.csv")


def test_scores_scales_and_usage_errors() -> None:
    assert parse_score(" N/A ", 0) is None and parse_score("0", 0) is None
    assert parse_score("0", None) == 0.0 and parse_score("2.5", 0) == 2.5
    with pytest.raises(ValueError):
        parse_score("nan", 0)
    assert parse_scale("1-5") == [1, 2, 3, 4, 5]
    assert parse_scale("0,0.5,1") == [0, 0.5, 1]
    with pytest.raises(ValueError):
        parse_scale("5-1")
    usage = runner.invoke(app, ["agree", str(EXAMPLE), "--scale", "x"])
    assert usage.exit_code == 2
    usage = runner.invoke(app, ["agree", str(EXAMPLE), "--format", "xml"])
    assert usage.exit_code == 2


def test_one_unit_rated_twice_gives_an_estimate_without_an_interval() -> None:
    """Seven experts on 70 poems with one poem rated by two of them: resampling poems can only
    redraw that one poem, and the report printed PAo 0.30 [0.30, 0.30], an interval of no
    width from one poem."""
    matrix = np.full((2, 12), np.nan)
    matrix[0, :6] = [1, 2, 3, 4, 5, 3]
    matrix[1, 5:] = [4, 2, 3, 1, 5, 2, 2]  # unit 5 alone is rated by both
    report = agreement_report(_ratings(matrix), n_boot=200, seed=0).overall
    assert report.counts["n_pairs"] == 1 and math.isfinite(report.estimates["pao"])
    assert all(math.isnan(report.ci_low.get(name, math.nan)) for name in report.estimates)
    matrix[0, 6] = 2  # a second unit rated twice: now an interval
    report = agreement_report(_ratings(matrix), n_boot=200, seed=0).overall
    assert math.isfinite(report.ci_low["pao"]) and report.ci_low["pao"] < report.ci_high["pao"]


def test_the_intervals_do_not_depend_on_the_order_of_the_rows() -> None:
    """Units were resampled in the order they first appeared: the same ratings read from a file
    sorted another way got other intervals (PAo's lower bound 0.150 or 0.158)."""
    import random

    rng = np.random.default_rng(0)
    rows = [
        Rating(f"u{u}", f"r{r}", "x", float(rng.integers(1, 6)))
        for u in range(20)
        for r in range(3)
    ]
    first = agreement_report(Ratings.from_ratings(rows, scale=[1, 2, 3, 4, 5]), n_boot=500)
    random.Random(1).shuffle(rows)
    again = agreement_report(Ratings.from_ratings(rows, scale=[1, 2, 3, 4, 5]), n_boot=500)
    assert first.overall.estimates == again.overall.estimates
    assert first.overall.ci_low == again.overall.ci_low
    assert first.overall.ci_high == again.overall.ci_high


def test_a_scale_holding_the_na_value_is_refused(tmp_path: Path) -> None:
    """`agree --scale 0-4` kept the default `--na 0`: every 0 was read as N/A, so the 0 = 0
    agreement vanished from PAo and the statistics used four points of a five-point scale,
    with only "(2 N/A)" in the caption to tell."""
    path = tmp_path / "zero.csv"
    path.write_text("unit,rater,score\nu1,a,0\nu1,b,0\nu2,a,1\nu2,b,1\nu3,a,4\nu3,b,3\n"
                    "u4,a,2\nu4,b,2\n")  # fmt: skip
    refused = runner.invoke(app, ["agree", str(path), "--scale", "0-4", "--bootstrap", "0"])
    assert refused.exit_code != 0
    assert "N/A value 0 is on the scale 0, 1, 2, 3, 4" in " ".join(refused.output.split())
    assert "--na none" in refused.output
    kept = runner.invoke(app, ["agree", str(path), "--scale", "0-4", "--na", "none",
                               "--bootstrap", "0", "--format", "json"])  # fmt: skip
    assert kept.exit_code == 0, kept.output
    overall = json.loads(kept.output)["overall"]
    assert overall["pao"]["estimate"] == pytest.approx(3 / 4)  # 0=0, 1=1, 2=2 of four units
    assert overall["n_na"] == 0


def test_unanimous_ratings_leave_alpha_and_the_correlations_undefined() -> None:
    """docs/agreement.md: every rating one value gives alpha, QWK, Spearman and Kendall 0/0
    (NaN, as sklearn's kappa; the krippendorff package refuses such data) and 1 for PAo,
    adjacent agreement and Gwet's AC; one rater gives nothing."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    same = np.full((3, 6), 4.0)
    estimates = agreement_report(_ratings(same), n_boot=0).overall.estimates
    for name in ("alpha_nominal", "alpha_ordinal", "alpha_interval", "qwk", "spearman",
                 "kendall"):  # fmt: skip
        assert math.isnan(estimates[name]), name
    for name in ("pao", "adjacent", "gwet_ac1", "gwet_ac2_linear", "gwet_ac2_quadratic"):
        assert estimates[name] == 1.0, name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn says the kappa is undefined
        kappa = sklearn_metrics.cohen_kappa_score(same[0], same[1], weights="quadratic")
    assert math.isnan(kappa)
    alone = agreement_report(_ratings(same[:1]), n_boot=0).overall.estimates
    assert all(math.isnan(value) for value in alone.values())


def test_raters_are_listed_in_natural_order() -> None:
    """`expert_10` came before `expert_2` (plain string order) in every per-rater table."""
    rows = [
        Rating(unit, rater, "x", 3.0)
        for unit in ("u1", "u2")
        for rater in ("expert_10", "expert_2", "Expert_1")
    ]
    assert Ratings.from_ratings(rows).raters == ("Expert_1", "expert_2", "expert_10")
