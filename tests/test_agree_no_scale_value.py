"""`poemetric agree` on ratings with no score on a scale: every rating N/A (an imagery-only file
where the raters all answered "N/A") failed with numpy's "need at least one array to stack",
and a file of one score throughout leaves Gwet's AC undefined without `--scale`
(docs/agreement.md, Undefined values)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.reliability import STATISTICS

runner = CliRunner()


def _write(path: Path, scores: list[str]) -> Path:
    rows = [f"p{unit},{rater},imagery,{score}" for unit, score in enumerate(scores)
            for rater in ("a", "b")]  # fmt: skip
    path.write_text("unit,rater,item,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_every_rating_na_gives_pao_one_and_nothing_else(tmp_path: Path) -> None:
    path = _write(tmp_path / "all_na.csv", ["0", "N/A", "0"])
    result = runner.invoke(app, ["agree", str(path), "--format", "json", "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    overall = json.loads(result.stdout)["overall"]
    assert overall["n_na"] == overall["n_ratings"] == 6 and overall["n_pairs"] == 3
    # N/A is a category for PAo and adjacent agreement: N/A = N/A agrees.
    for name in ("pao", "adjacent"):
        assert overall[name] == {"estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0}, name
    # Missing for every other statistic: nothing to compute.
    for name in set(STATISTICS) - {"pao", "adjacent"}:
        assert overall[name] == {"estimate": None, "ci_low": None, "ci_high": None}, name
    table = runner.invoke(app, ["agree", str(path), "--bootstrap", "0"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "no score on a scale (every rating N/A)" in table.stdout
    assert "scale ." not in table.stdout


def test_one_score_throughout_leaves_gwet_undefined_without_a_scale(tmp_path: Path) -> None:
    path = _write(tmp_path / "same.csv", ["4", "4", "4"])
    args = ["agree", str(path), "--format", "json", "--bootstrap", "0", "--na", "none"]
    seen = json.loads(runner.invoke(app, args).stdout)["overall"]
    fixed = json.loads(runner.invoke(app, [*args, "--scale", "1-5"]).stdout)["overall"]
    for name in ("gwet_ac1", "gwet_ac2_linear", "gwet_ac2_quadratic"):
        assert seen[name]["estimate"] is None, name  # one category: chance agreement 0/0
        assert fixed[name]["estimate"] == 1.0, name
    for overall in (seen, fixed):
        assert overall["pao"]["estimate"] == overall["adjacent"]["estimate"] == 1.0
        assert overall["alpha_interval"]["estimate"] is None


def test_caption_counts_in_the_singular_for_one(tmp_path: Path) -> None:
    path = tmp_path / "one_poem.csv"  # one unit, two raters, one pair
    path.write_text("unit,rater,item,score\np1,a,imagery,3\np1,b,imagery,4\n", encoding="utf-8")
    table = runner.invoke(app, ["agree", str(path), "--bootstrap", "0"], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "1 unit, 2 raters, 2 ratings (0 N/A), 1 paired rating;" in table.stdout


def test_a_gap_in_the_scores_seen_is_said_with_the_scale_to_give(tmp_path: Path) -> None:
    # Nobody gave 2: without --scale, 1 and 3 were one step apart (adjacent agreement 1.0).
    path = _write(tmp_path / "gap.csv", ["1", "3", "4", "5"])
    rows = path.read_text(encoding="utf-8").splitlines()
    rows[1] = "p0,a,imagery,1"
    rows[2] = "p0,b,imagery,3"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    args = ["agree", str(path), "--format", "json", "--bootstrap", "0"]
    seen = runner.invoke(app, args)
    assert seen.exit_code == 0, seen.output
    assert "the scale is the scores seen, 1, 3, 4, 5: 2 never given" in " ".join(
        seen.stderr.split()
    )
    assert "give --scale 1-5" in " ".join(seen.stderr.split())
    fixed = runner.invoke(app, [*args, "--scale", "1-5"])
    assert "never given" not in fixed.stderr
    gap = json.loads(seen.stdout)["overall"]["adjacent"]["estimate"]
    full = json.loads(fixed.stdout)["overall"]["adjacent"]["estimate"]
    assert gap == 1.0 and full == 0.75  # p0's 1 and 3 are two points apart on 1-5
    no_gap = runner.invoke(app, ["agree", str(_write(tmp_path / "ok.csv", ["1", "2"]))])
    assert "never given" not in no_gap.stderr
