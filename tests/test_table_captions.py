"""Every table with intervals says in its caption which interval it prints, as the figures do."""

from __future__ import annotations

from pathlib import Path

import pytest

from poemetric.analysis import analyze_run
from poemetric.analysis.synthetic import build_synthetic_run, write_synthetic_experts


@pytest.mark.parametrize(("method", "said"), [("t", "Student t"),
                                              ("bootstrap", "percentile bootstrap")])  # fmt: skip
def test_captions_name_the_interval(tmp_path: Path, method: str, said: str) -> None:
    """`analyze --ci bootstrap` changed the intervals of the judge tables while every table
    still read "95% CI"; the form-check and lexical tables never said which intervals."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        result = analyze_run(store, ci_method=method)  # type: ignore[arg-type]
    for name in ("dimension_scores", "dimension_scores_by_form", "group_scores"):
        assert said in result.caption(name), name
    for name in ("form_checks", "form_checks_by_form"):
        caption = result.caption(name)
        assert "Wilson" in caption and "Student t" in caption, name
    assert "Student t" in result.caption("lexical")
    result.write(tmp_path / "out")
    assert said in (tmp_path / "out" / "group_scores.md").read_text().splitlines()[0]


def test_table_2_says_that_n_counts_ratings(tmp_path: Path) -> None:
    """Table 2's n is ratings (every expert rating, every judge sample), 70 beside a judge's
    69 on 69 poems; the other tables count poems, and this one did not say."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        experts = write_synthetic_experts(store, tmp_path / "experts.csv",
                                          authors=("human", "model-a"), experts=3)  # fmt: skip
        result = analyze_run(store, experts=experts, n_boot=10)
    assert "n: ratings" in result.caption("discrimination")
