"""Ctrl-C during `analyze`, `figures`, `report` and `form run` exited 130 without a word, where
`generate` and `judge` say what is kept: they now say what was written before the stop (none of
it half-written) and how to run them again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import DemoTemplate, copy_demo_run
from typer.testing import CliRunner

from poemetric.cli import app


def stopped_after(calls: int, real: Any) -> Any:
    """`real`, which Ctrl-C stops at its call number `calls` + 1."""
    made = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if len(made) >= calls:
            raise KeyboardInterrupt
        made.append(1)
        return real(*args, **kwargs)

    return call


def said(result: Any) -> str:
    return " ".join(result.output.split())


@pytest.fixture
def run(tmp_path: Path, demo_run_template: DemoTemplate) -> Path:
    return copy_demo_run(demo_run_template, tmp_path / "run")


def test_analyze_stopped_names_the_tables_it_wrote(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import poemetric.analysis.run as analysis_run

    real = analysis_run.write_table
    monkeypatch.setattr(analysis_run, "write_table", stopped_after(2, real))
    result = CliRunner().invoke(app, ["analyze", "--run", str(run), "--out", str(run / "new")])
    assert result.exit_code == 130, result.output
    text = said(result)
    assert "Interrupted." in text
    assert f"were written in {run / 'new'} before the stop" in text
    assert "none is half-written" in text and "but the others are missing. Run it again" in text
    written = sorted(p.name for p in (run / "new").iterdir())
    assert f"{len(written)} files of the analysis were written" in text, (written, text)
    # Over an earlier analysis: the folder holds files of two runs, and says so.
    monkeypatch.setattr(analysis_run, "write_table", stopped_after(2, real))
    result = CliRunner().invoke(app, ["analyze", "--run", str(run)])
    assert result.exit_code == 130, result.output
    assert "the others are an earlier run's or missing, so the folder mixes two runs" in said(
        result
    )


def test_figures_stopped_before_any_file_says_nothing_was_written(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import poemetric.analysis as analysis

    monkeypatch.setattr(analysis, "render_figures", stopped_after(0, analysis.render_figures))
    result = CliRunner().invoke(app, ["figures", "--run", str(run)])
    assert result.exit_code == 130, result.output
    assert f"Interrupted. Nothing was written: {run / 'figures'} is as it was." in said(result)


def test_figures_stopped_looks_only_where_figures_go(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An `--out` over a tree (a project folder) whose subfolders another program writes in
    meanwhile: figures are written at its top, so the stop names no file of a subfolder as
    one of the figures (the whole tree was walked, before and after)."""
    import poemetric.analysis as analysis

    out = tmp_path / "project"
    (out / "logs").mkdir(parents=True)
    (out / "logs" / "train.log").write_text("epoch 1\n", encoding="utf-8")

    def elsewhere_then_stopped(*args: Any, **kwargs: Any) -> Any:
        (out / "logs" / "train.log").write_text("epoch 1\nepoch 2\n", encoding="utf-8")
        (out / "logs" / "new.log").write_text("x\n", encoding="utf-8")
        raise KeyboardInterrupt

    monkeypatch.setattr(analysis, "render_figures", elsewhere_then_stopped)
    result = CliRunner().invoke(app, ["figures", "--run", str(run), "--out", str(out)])
    assert result.exit_code == 130, result.output
    assert f"Interrupted. Nothing was written: {out} is as it was." in said(result)


def test_report_stopped_keeps_the_earlier_report(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import poemetric.report as report

    page = run / "report" / "index.html"
    before = page.read_bytes()
    monkeypatch.setattr(report, "build_report", stopped_after(0, report.build_report))
    result = CliRunner().invoke(app, ["report", "--run", str(run)])
    assert result.exit_code == 130, result.output
    assert (
        f"Interrupted. Nothing was written: {page} is written once the report is built (the "
        "earlier one is kept, whole)." in said(result)
    )
    assert page.read_bytes() == before


def test_form_run_stopped_says_its_verdicts_are_kept(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from poemetric.store import RunStore

    monkeypatch.setattr(RunStore, "save_form_check", stopped_after(3, RunStore.save_form_check))
    result = CliRunner().invoke(app, ["form", "run", "--run", str(run), "--force", "--jobs", "1"])
    assert result.exit_code == 130, result.output
    assert (
        f"Interrupted. The form checks made before the stop are stored in {run}, each as it was "
        "made; the same command with --force checks them all again, without --force only the "
        "others." in said(result)
    )
