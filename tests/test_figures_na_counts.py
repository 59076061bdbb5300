"""The judge-score figures whose imagery or devices answers include N/A say how many poems those
means are over. Before, Fig. 7 read "mean Likert score per author over 6 poems each ... *Imagery
and Devices: N/A answers left out of the mean" while an author's imagery mean was over 2 of
them (App. H, Figs. 14-17 and the radar alike): the count per bar was nowhere."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app

FIGURES = {
    "advanced": "{kind: dimension_bars, group: advanced}",
    "advanced-all": "{kind: all_models, group: advanced}",
    "heatmap": "{kind: heatmap}",
    "radar": "{kind: radar}",
}


def _captions(run: Path, out: Path) -> dict[str, str]:
    recipe = out.parent / "recipe.yaml"
    recipe.write_text(
        "figures:\n"
        + "".join(f"  - {{name: {name}, {spec[1:]}\n" for name, spec in FIGURES.items()),
        encoding="utf-8",
    )
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, [*command, "--out", str(out)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return {name: (out / f"{name}.caption.txt").read_text(encoding="utf-8") for name in FIGURES}


def _set_na(run: Path, sql_where: str) -> None:
    with build_synthetic_run(run, poems_per_form=2) as store, store.transaction() as conn:
        conn.execute("UPDATE judgments SET imagery = 3, literary_devices = 3")
        if sql_where:
            conn.execute(
                "UPDATE judgments SET imagery = 0 WHERE generation_id IN (SELECT generation_id "
                f"FROM generations WHERE {sql_where})"
            )


def test_captions_count_the_poems_behind_a_mean_without_n_a(tmp_path: Path) -> None:
    """6 poems per author; model-a's imagery N/A on its 4 ballads and sonnets: its imagery mean
    is over 2 poems, every other mean over 6."""
    run = tmp_path / "run"
    _set_na(run, "author = 'model-a' AND poem_id NOT LIKE 'villanelle-%'")
    for name, caption in _captions(run, tmp_path / "figs").items():
        assert "6 poems" in caption, (name, caption)
        assert caption.rstrip().endswith(
            "*Imagery and Devices: N/A answers left out of the mean, so those means are over "
            "2-6 poems per author."
        ), (name, caption)


def test_no_count_where_no_answer_is_n_a(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _set_na(run, "")
    for name, caption in _captions(run, tmp_path / "figs").items():
        assert caption.rstrip().endswith(
            "*Imagery and Devices: N/A answers left out of the mean."
        ), (name, caption)
