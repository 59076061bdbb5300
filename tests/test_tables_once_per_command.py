"""Within one `poemetric figures` or `poemetric report`, each per-poem measure and table is
computed once, not once per figure that shows it (nor read twice). The real functions run; a
wrapper only counts their calls."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import poemetric.analysis.context as context_module
import poemetric.analysis.run as run_module
import poemetric.ghostwriting.figure as ghostwriting_figure_module
import poemetric.ghostwriting.tables as ghostwriting_tables_module
import poemetric.report.build as report_build_module
from poemetric.analysis import render_figures
from poemetric.analysis.context import FigureContext, RunFrames
from poemetric.analysis.data import HUMAN_AUTHOR, load_run_data
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report import build_report
from poemetric.store import RunStore

JUDGES = ("judge-x", "judge-y")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("once") / "run"
    build_synthetic_run(path, poems_per_form=1, judges=JUDGES).close()
    return path


def counted(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str) -> list[int]:
    """Replace `module.name` by the same function that also counts its calls."""
    calls: list[int] = []
    real: Callable[..., Any] = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_figures_compute_each_table_once_per_command(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    features = counted(monkeypatch, context_module, "poem_features")
    scores = counted(monkeypatch, context_module, "dimension_scores")
    groups = counted(monkeypatch, context_module, "group_scores")
    checks = counted(monkeypatch, context_module, "form_check_scores")
    ghostwriting = counted(monkeypatch, ghostwriting_figure_module, "poem_measures")
    with RunStore(run_dir) as store:
        report = render_figures(store, tmp_path, formats=("svg",))
    assert not report.skipped
    assert any(p.name == "lexical-diversity.svg" for p in report.paths)
    assert any(p.name == "rule-based.svg" for p in report.paths)
    # The lexical features were measured for "rule-based" and again for "lexical-diversity";
    # the judge scores once per judge figure (6 of them, each drawn per judge).
    assert len(features) == 1
    assert len(ghostwriting) == 1
    assert len(checks) == 1
    assert len(scores) == len(JUDGES)
    assert len(groups) == len(JUDGES)


def test_shared_tables_are_kept_apart_by_judge_and_authors(run_dir: Path) -> None:
    with RunStore(run_dir) as store:
        data = load_run_data(store)
    shared = RunFrames(data)
    chosen = [HUMAN_AUTHOR, "model-a"]
    everyone = FigureContext(data, shared=shared)
    some = FigureContext(data, authors=chosen, shared=shared)
    judged = [FigureContext(data, judge=judge, shared=shared) for judge in JUDGES]
    assert list(some.lexical["author"]) == chosen
    assert some.lexical.equals(FigureContext(data, authors=chosen).lexical)
    assert everyone.lexical.equals(FigureContext(data).lexical)
    for context in judged:
        assert context.scores.equals(FigureContext(data, judge=context.judge).scores)
    assert not judged[0].scores.equals(judged[1].scores)
    assert FigureContext(data, shared=shared).lexical is everyone.lexical  # not measured again
    assert shared.computed["lexical"] == 2
    assert shared.computed["scores"] == len(JUDGES)
    with RunStore(run_dir) as store, pytest.raises(ValueError, match="another run"):
        FigureContext(load_run_data(store), shared=shared)


def test_report_reads_and_measures_the_run_once(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = counted(monkeypatch, report_build_module, "load_run_data")
    reads_again = counted(monkeypatch, run_module, "load_run_data")
    features = counted(monkeypatch, run_module, "poem_features")
    measures = counted(monkeypatch, ghostwriting_tables_module, "poem_measures")
    with RunStore(run_dir) as store:
        path = build_report(store, tmp_path / "index.html")
    assert "Lexical features" in path.read_text(encoding="utf-8")
    assert len(reads) + len(reads_again) == 1
    assert len(features) == 1
    assert len(measures) == 1
