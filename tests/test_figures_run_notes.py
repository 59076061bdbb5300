"""`figures` says what `analyze` and `report` say of the run's data: form checks made by two
checker versions (a merged run), generations without a form check. Before, Fig. 5's form
accuracy was drawn from the verdicts of two checkers with nothing said, where `analyze` on the
same run noted it."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.store import RunStore


def _figures(run: Path, out: Path, recipe: str = "rule-based") -> str:
    from poemetric.cli import app

    command = ["figures", "--run", str(run), "--recipe", recipe, "--format", "png"]
    result = CliRunner().invoke(app, [*command, "--out", str(out)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_mixed_checker_versions_and_unchecked_poems_are_noted(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=()).close()
    assert "note" not in _figures(run, tmp_path / "whole")
    with RunStore(run) as store, store.transaction() as conn:
        conn.execute("UPDATE form_checks SET checker_version = 'form-0.1' WHERE rowid % 2 = 0")
        conn.execute("DELETE FROM form_checks WHERE rowid % 5 = 0")
    said = _figures(run, tmp_path / "mixed")
    assert "note form checks were made with different rules (" in said, said
    assert "form-0.1 at threshold" in said and f"poemetric form run --run {run}" in said
    assert "generation has no form check" in said  # rowid 5: one


def test_judge_notes_are_said_only_when_a_judge_figure_was_drawn(tmp_path: Path) -> None:
    """`--recipe rule-based` draws no judge's figure, but said "... were not judged by ...: its
    tables cover only the judged ones" of a run a judge had not finished."""
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    with RunStore(run) as store, store.transaction() as conn:
        conn.execute("DELETE FROM judgments WHERE rowid % 4 = 0")
        conn.execute("DELETE FROM form_checks WHERE rowid % 5 = 0")
    rules = _figures(run, tmp_path / "rules")
    assert "not judged by judge-x" not in rules, rules
    assert "generation has no form check" in rules  # the notes on what was drawn stay
    recipe = tmp_path / "ranking.yaml"
    recipe.write_text("figures:\n  - name: ranking\n    kind: ranking\n", encoding="utf-8")
    scores = _figures(run, tmp_path / "scores", str(recipe))
    assert "generations were not judged by judge-x" in scores, scores


def test_a_model_file_now_naming_another_model_is_noted(tmp_path: Path) -> None:
    """A model file pointed at another model and run again with every answer stored: the
    figures label its poems with the new model's name, and `analyze` and `report` said whose
    they are while `figures` said nothing."""
    from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted

    from poemetric.generation.stage import run_generation

    use_scripted()
    with prepared_store(tmp_path / "run", poems=2) as store:
        run_generation(store, [scripted_spec(model="scripted-1")], options=FAST)
        run_generation(store, [scripted_spec(model="scripted-2")], options=FAST)  # asks nothing
    recipe = tmp_path / "lexical.yaml"
    recipe.write_text("figures:\n  - name: lexical\n    kind: lexical\n", encoding="utf-8")
    said = _figures(tmp_path / "run", tmp_path / "figures", str(recipe))
    assert (
        "note generate: scripted-model is labelled as its file names it now (model "
        "'scripted-2'), but of its 2 stored answers 2 under model 'scripted-1' were made while "
        "its file named that model"
    ) in said, said
