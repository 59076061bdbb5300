"""The terminal summary of `analyze` was kept as one table when rich's measured minimum fitted
the width, but that minimum let the author column wrap ("Markov" / "baseline") while the column
never wraps: at 80 columns, after `poemetric demo` and a judge without `form run`, the last
header printed as `sco…`. The author column's width now counts whole names, so such a summary
is split into two tables and nothing is cut with "…"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("summary") / "run"
    authors = ("human", "markov", "model-a")  # markov prints as "Markov baseline"
    build_synthetic_run(run, authors=authors, poems_per_form=1, with_form_checks=False).close()
    return run


@pytest.mark.parametrize("columns", range(74, 90))
def test_no_summary_cell_is_cut(judged_run: Path, columns: int, tmp_path: Path) -> None:
    command = ["analyze", "--run", str(judged_run), "--bootstrap", "0", "-o", str(tmp_path)]
    result = CliRunner().invoke(app, command, env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    summary = result.output.split("note:")[0]
    assert "Markov baseline" in summary
    assert "…" not in summary, summary
