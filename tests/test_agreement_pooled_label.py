"""The agreement tables' pooled row printed as a lower-case `all` under `Form` … `Human
authorship` in the .tex and .md tables and in the report: in a paper's table it read as a typo or
as an item named "all". It prints as `All items`; the CSV keeps the machine name `all`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run, write_synthetic_experts
from poemetric.cli import app


def test_the_pooled_row_reads_all_items(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with build_synthetic_run(run, poems_per_form=2) as store:
        experts = write_synthetic_experts(
            store, tmp_path / "experts.csv", authors=("human", "model-a"), experts=3,
            poems_per_expert=6,
        )  # fmt: skip
    runner = CliRunner()
    options = ["--run", str(run), "--experts", str(experts), "--bootstrap", "0"]
    result = runner.invoke(app, ["analyze", *options])
    assert result.exit_code == 0, result.output
    analysis = run / "analysis"
    for table in ("agreement", "agreement_experts"):
        assert "all" in set(pd.read_csv(analysis / f"{table}.csv")["item"])
        markdown = (analysis / f"{table}.md").read_text(encoding="utf-8")
        assert "| All items |" in markdown and "| all |" not in markdown
        latex = (analysis / f"{table}.tex").read_text(encoding="utf-8")
        assert "\nAll items & " in latex and "\nall & " not in latex
    page = tmp_path / "report.html"
    report = runner.invoke(app, ["report", *options, "--out", str(page)])
    assert report.exit_code == 0, report.output
    html = page.read_text(encoding="utf-8")
    assert html.count("<td>All items</td>") == 2  # judges vs experts, experts vs experts
    assert "<td>all</td>" not in html
