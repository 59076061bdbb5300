"""Tables for reading: readable headers, display names, integer counts, CIs beside their
estimate, and LaTeX that fits a page and compiles (pdflatex, installed by .ci/run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import IN_CI

from poemetric.analysis import analyze_run
from poemetric.analysis.labels import Labels
from poemetric.analysis.synthetic import paper_scale_run, write_synthetic_experts
from poemetric.analysis.tables import presentable, readable, to_latex, to_markdown
from poemetric.roster import load_groups

LABELS = Labels(
    authors={"human": "Human", "gpt-4o": "GPT-4o"},
    judges={"experts": "Human experts", "gpt-4o": "GPT-4o"},
)


def test_readable_headers() -> None:
    assert readable("pass_ci_low") == "Pass CI low"
    assert readable("ttr_mean") == "TTR mean"
    assert readable("overall_quality") == "Quality"
    assert readable("repetition_all_excess") == "Repetition above chance"
    assert readable("cosine_to_human") == "Cosine to human"


def test_table_2_counts_are_integers_and_raters_have_display_names() -> None:
    table2 = pd.DataFrame({"rater": ["experts", "gpt-4o"], "n": [120.0, 58.0],
                           "mean": [2.43, 3.69], "sd": [1.09, 0.22]})  # fmt: skip
    shown = presentable(table2, author_name=LABELS.author, rater_name=LABELS.judge)
    markdown = to_markdown(shown)
    assert "| Human experts | 120 | 2.43 | 1.09 |" in markdown
    assert "| GPT-4o | 58 | 3.69 | 0.22 |" in markdown
    assert "120.00" not in to_latex(shown)


def test_estimates_carry_their_interval_and_constant_columns_move_to_the_caption() -> None:
    scores = pd.DataFrame({"judge": ["j", "j"], "author": ["human", "gpt-4o"],
                           "dimension": ["overall_quality"] * 2, "n": [203, 203],
                           "mean": [4.2, 3.1], "sd": [0.5, 0.6],
                           "ci_low": [4.1, 3.0], "ci_high": [4.3, 3.2]})  # fmt: skip
    shown = presentable(scores, author_name=LABELS.author)
    assert list(shown.columns) == ["judge", "author", "dimension", "n", "mean__ci", "sd"]
    latex = to_latex(shown, caption="Scores")
    assert r"\caption{Scores (judge: j; dimension: Quality)}" in latex
    assert "Human & 203 & 4.20 [4.10, 4.30] & 0.50" in latex
    assert "Mean [95\\% CI]" in latex and "\\begin{table}" in latex


def test_wide_tables_are_rotated_or_split_and_long_ones_become_longtables() -> None:
    wide = pd.DataFrame({"author": ["a-very-long-author-name-indeed"] * 3,
                         **{f"metric_number_{i}": [0.5, 0.6, 0.7] for i in range(14)}})  # fmt: skip
    wide["author"] = ["one", "two", "three"]
    assert "sidewaystable" in to_latex(wide.iloc[:, :12])
    split = to_latex(wide)
    assert split.count(r"\begin{sidewaystable}") == 2 and "(part 2 of 2)" in split
    assert split.count("Author &") == 2  # the identifying column repeats in each part
    long = pd.DataFrame({"author": [f"a{i}" for i in range(60)], "n": range(60)})
    latex = to_latex(long, caption="Long")
    assert r"\begin{longtable}" in latex and r"\endhead" in latex


@pytest.fixture(scope="module")
def tables_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every table of a 31-author judged run with experts, written to a folder."""
    path = tmp_path_factory.mktemp("tables")
    prompts = {"ballad": 2, "limerick": 1, "sonnet": 2}
    with paper_scale_run(path / "run", prompts=prompts) as store:
        experts = write_synthetic_experts(store, path / "experts.csv",
                                          authors=("human", *load_groups()["paper7"]))  # fmt: skip
        result = analyze_run(store, experts=experts, n_boot=20)
        result.write(path / "out")
    return path / "out"


def test_written_tables_use_display_names(tables_dir: Path) -> None:
    matrix = (tables_dir / "dimension_matrix.md").read_text()
    assert "| DeepSeek-R1-Distill-Qwen-1.5B |" in matrix and "| Human |" in matrix
    assert "deepseek-r1-distill" not in matrix
    csv = pd.read_csv(tables_dir / "dimension_matrix.csv")
    assert "deepseek-r1-distill-qwen-1.5b" in set(csv["author"])  # CSV keeps the model ids
    assert "| Human experts |" in (tables_dir / "discrimination.md").read_text()


@pytest.mark.slow
def test_latex_tables_compile_and_fit_the_page(tables_dir: Path) -> None:
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        message = "pdflatex is not installed (`apt-get install texlive-latex-recommended`)"
        if IN_CI:
            pytest.fail(message + "; .ci/run installs it")
        pytest.skip(message)
    result = subprocess.run(
        [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "tables.tex"],
        cwd=tables_dir, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    log = (tables_dir / "tables.log").read_text(errors="replace")
    assert result.returncode == 0, log[-3000:]
    assert "Overfull \\hbox" not in log, [line for line in log.splitlines() if "Overfull" in line]
    assert (tables_dir / "tables.pdf").stat().st_size > 10_000
