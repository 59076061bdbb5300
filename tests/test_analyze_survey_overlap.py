"""`analyze` over every survey names the rater ids that scored the same poems in two surveys:
read together, each survey's are another rater (`experts:R1`, `restored:R1`), so one rater's
answers stored twice (exported and imported again under a new name) entered the experts'
agreement as two raters agreeing with each other, with nothing said."""

from __future__ import annotations

import csv
from pathlib import Path

from survey_support import survey_run
from typer.testing import CliRunner

from poemetric.analysis.run import analyze_run
from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.survey import db
from poemetric.survey.build import build_survey

runner = CliRunner()
NOTE = "scored the same poems in several surveys"


def _ok(*args: object) -> None:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


def _answered(run: Path, survey: str, poems: list[str], *options: str) -> None:
    """Raters R1 and R2 score `poems` in `survey` (R1 3s, R2 4s: they never agree)."""
    ratings = run.parent / f"{survey}.csv"
    with ratings.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["poem", "rater", "item", "score"])
        for score, rater in enumerate(("R1", "R2"), start=3):
            writer.writerows([poem, rater, "overall_quality", score] for poem in poems)
    _ok("survey", "import", ratings, "--run", run, "--survey", survey, *options)


def _built(tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    """A run with a survey 'experts' of two poems for R1 and R2; its poems and the others."""
    run = survey_run(tmp_path / "run", poems=2)
    with RunStore(run, create=False) as store:
        build_survey(store, raters="R1,R2", per_rater=2, per_poem=2, seed=1)
        chosen = [p.generation_id for p in db.pages(store, "experts", "R1")]
        every = [row[0] for row in store.query("SELECT generation_id FROM generations")]
    return run, chosen, [g for g in every if g not in chosen]


def test_a_survey_imported_again_under_another_name_is_named(tmp_path: Path) -> None:
    run, chosen, _ = _built(tmp_path)
    _answered(run, "experts", chosen)
    _ok("export", "survey_answers", "--run", run, "--out", tmp_path / "answers.csv")
    _ok("survey", "import", tmp_path / "answers.csv", "--run", run, "--survey", "restored", "--new")
    with RunStore(run, create=False) as store:
        pooled = analyze_run(store, n_boot=0)
        alone = analyze_run(store, survey="experts", n_boot=0)
    experts = pooled.tables["agreement_experts"].set_index("item")
    assert experts.at["all", "pao"] > 0  # R1 agrees with R1: the two raters never agree
    assert alone.tables["agreement_experts"].set_index("item").at["all", "pao"] == 0
    [note] = [n for n in pooled.notes if NOTE in n]
    assert "R1 (2 poems in experts, restored), R2 (2 poems in experts, restored)" in note
    assert "--survey NAME" in note
    assert not [n for n in alone.notes if NOTE in n]


def test_two_surveys_of_other_poems_are_not_named(tmp_path: Path) -> None:
    run, chosen, others = _built(tmp_path)
    _answered(run, "experts", chosen)
    _answered(run, "pilot", others, "--new")
    with RunStore(run, create=False) as store:
        result = analyze_run(store, n_boot=0)
    assert set(result.tables["agreement_experts"]["item"]) >= {"all"}
    assert not [n for n in result.notes if NOTE in n]
