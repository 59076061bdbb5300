"""The judge and expert score tables, the form-check tables and the ghostwriting table clip their
Student t intervals to the values a mean can take (1-5 for a Likert item, 0-1 for a score or a
share), as the lexical table does; their captions said only "Student t", so a reader who
recomputed an interval of a few poems (two poems scored 1 and 5: [-22.4, 28.4]) found another
than the printed [1.00, 5.00]. The captions now say so, as the lexical one and the figures do."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from poemetric.analysis import analyze_run
from poemetric.analysis.scores import dimension_scores
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.questionnaire import DIMENSION_KEYS


def _caption(folder: Path, name: str) -> str:
    return (folder / f"{name}.md").read_text(encoding="utf-8").splitlines()[0]


def test_the_score_captions_name_the_clipping(tmp_path: Path) -> None:
    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        analyze_run(store).write(tmp_path / "analysis")
    folder = tmp_path / "analysis"
    for name in ("dimension_scores", "dimension_scores_by_form", "group_scores"):
        assert _caption(folder, name).endswith(
            "intervals: Student t, clipped to the 1-5 scale**"
        ), name
    for name in ("form_checks", "form_checks_by_form"):
        assert _caption(folder, name).endswith(
            "intervals: Wilson for the pass rate, Student t for the mean scores, clipped to 0-1**"
        ), name
    assert _caption(folder, "ghostwriting").endswith("intervals: Student t, clipped to 0-1**")
    tex = (folder / "dimension_scores.tex").read_text(encoding="utf-8")
    assert "clipped to the 1-5 scale" in tex


def test_the_printed_interval_is_the_clipped_one() -> None:
    # What the caption now says: two poems scored 1 and 5 print [1, 5], not t's [-22.4, 28.4].
    rows = [
        {"judge": "j", "generation_id": f"g{i}", "author": "a", "poem_id": f"p{i}",
         "poem_form": "sonnet", "sample_index": 0, **dict.fromkeys(DIMENSION_KEYS, 3),
         "form": score}
        for i, score in enumerate((1, 5))
    ]  # fmt: skip
    judgments = pd.DataFrame(rows)
    row = dimension_scores(judgments).set_index("dimension").loc["form"]
    assert (row["mean"], row["ci_low"], row["ci_high"]) == (3.0, 1.0, 5.0)


def test_the_report_says_so_too(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from poemetric.cli import app

    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    result = CliRunner().invoke(app, ["report", "--run", str(run)])
    assert result.exit_code == 0, result.output
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "over poems (Student t, clipped to 1–5). Form pass" in page  # the leaderboard
    assert "mean scores with 95% t intervals, clipped to 0–1." in page  # the form checks
    assert "rhyme density with its 95% CI (Student t, clipped to 0–1)." in page
