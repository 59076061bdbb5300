"""Figures and the analyze / figures CLI on a synthetic run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis import Recipe, RecipeError, load_recipe, make_figures, render_figures
from poemetric.analysis.recipes import FigureSpec
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.paths import resource_path
from poemetric.store import RunStore

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("synthetic") / "run"
    build_synthetic_run(path, poems_per_form=2).close()
    return path


@pytest.fixture(scope="module")
def rule_only_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rule-only") / "run"
    build_synthetic_run(path, poems_per_form=2, judges=()).close()
    return path


def test_figures_are_written_as_png_and_pdf(run_dir: Path, tmp_path: Path) -> None:
    recipe = Recipe(figures=[FigureSpec(name="rank", kind="ranking"),
                             FigureSpec(name="case", kind="case_study"),
                             FigureSpec(name="bars", kind="dimension_bars", group="basic")])  # fmt: skip
    with RunStore(run_dir, create=False) as store:
        paths = make_figures(store, tmp_path, recipe=recipe)
    assert sorted(p.name for p in paths) == [
        "bars.pdf", "bars.png", "case.pdf", "case.png", "rank.pdf", "rank.png",
    ]  # fmt: skip
    _check_files(paths)


@pytest.mark.slow
def test_paper_recipe(run_dir: Path, tmp_path: Path) -> None:
    with RunStore(run_dir, create=False) as store:
        report = render_figures(store, tmp_path, recipe="paper", formats=["png"])
    assert not report.skipped
    assert len(report.paths) == len(load_recipe("paper").figures)
    _check_files(report.paths)


def _check_files(paths: list[Path]) -> None:
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 2000, path
        assert data.startswith(PNG_MAGIC if path.suffix == ".png" else b"%PDF"), path


def test_figures_without_judgments_skip_with_reasons(rule_only_run: Path, tmp_path: Path) -> None:
    with RunStore(rule_only_run, create=False) as store:
        report = render_figures(store, tmp_path, formats=["png"])
    names = {p.stem for p in report.paths}
    assert {"rule-based", "form-accuracy", "lexical-diversity", "top-words"} <= names
    assert "ranking" not in names
    assert any(s.startswith("ranking: no judgments") for s in report.skipped)


def test_bundled_recipes_are_valid() -> None:
    for path in sorted(resource_path("analysis").glob("*.yaml")):
        assert load_recipe(path.stem).figures, path


def test_bad_recipes_are_reported(tmp_path: Path) -> None:
    with pytest.raises(RecipeError, match="no recipe 'nope'"):
        load_recipe("nope")
    bad_kind = tmp_path / "bad.yaml"
    bad_kind.write_text("figures:\n  - {name: x, kind: pie}\n")
    with pytest.raises(RecipeError, match="unknown figure kind 'pie'"):
        load_recipe(bad_kind)
    bad_param = tmp_path / "param.yaml"
    bad_param.write_text("figures:\n  - {name: x, kind: ranking, colour: red}\n")
    with pytest.raises(RecipeError, match=r"unknown parameter\(s\) \['colour'\]"):
        load_recipe(bad_param)


def test_cli_analyze_and_figures(run_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "tables"
    result = runner.invoke(app, ["analyze", "--run", str(run_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "POEMetric summary" in result.output and "model-a" in result.output
    assert "4.11" in result.output or "human" in result.output
    assert (out / "group_scores.tex").is_file() and (out / "lexical.md").is_file()

    figures = tmp_path / "figs"
    result = runner.invoke(
        app,
        [
            "figures",
            "--run",
            str(run_dir),
            "--recipe",
            "rule-based",
            "--format",
            "png",
            "--out",
            str(figures),
        ],
    )
    assert result.exit_code == 0, result.output
    assert str(figures / "rule-based.png") in result.output
    assert (figures / "form-by-poem-form.png").stat().st_size > 2000


def test_cli_errors(tmp_path: Path, run_dir: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", "--run", str(tmp_path / "missing")])
    assert result.exit_code == 1 and "no run store" in result.output
    result = runner.invoke(app, ["figures", "--run", str(run_dir), "--format", "gif"])
    assert result.exit_code != 0 and "gif" in result.output
