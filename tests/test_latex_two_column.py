"""LaTeX tables in a two-column paper (ACL/EMNLP): `analyze --latex-width one|two`, headers
wrapped before a table is split, balanced splits, and "(continued)" on longtable pages."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from latex_support import MEASURE_SIDEWAYS, pdflatex, sideways_heights
from typer.testing import CliRunner

from poemetric.analysis import analyze_run
from poemetric.analysis.plotting import WIDTH_WORDS
from poemetric.analysis.synthetic import (
    build_synthetic_run,
    paper_scale_run,
    write_synthetic_experts,
)
from poemetric.cli import app
from poemetric.roster import load_groups
from poemetric.tables.latex import to_latex
from poemetric.tables.latex_layout import (
    LATEX_WIDTH_WORDS,
    balanced_groups,
    header_lines,
    latex_width,
)

#: ACL's page: two 7.7 cm columns 0.6 cm apart, 11 pt.
ACL = (
    "\\documentclass[11pt,twocolumn]{article}\n"
    "\\usepackage[textwidth=16cm,textheight=24.7cm,columnsep=0.6cm]{geometry}\n"
    "\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs,longtable,rotating,pdflscape}\n"
)


@pytest.fixture(scope="module")
def paper_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every table of a 31-author judged run with experts, written for each width."""
    path = tmp_path_factory.mktemp("two_column")
    with paper_scale_run(path / "run", prompts={"ballad": 2, "limerick": 1, "sonnet": 2}) as store:
        experts = write_synthetic_experts(store, path / "experts.csv",
                                          authors=("human", *load_groups()["paper7"]))  # fmt: skip
        result = analyze_run(store, experts=experts, n_boot=20)
    return {width: result.write(path / width, width)[0].parent for width in ("one", "two")}


def _overfull(log: str) -> list[str]:
    return [line for line in log.splitlines() if "Overfull \\hbox" in line]


def _in_acl_paper(folder: Path, preamble: str = "", name: str = "acl") -> str:
    """Every table of `folder` input into an ACL two-column document; the pdflatex log."""
    tables = sorted(p.name for p in folder.glob("*.tex") if p.stem not in {"tables", "acl", name})
    body = "\n".join(rf"\input{{{table}}}" for table in tables)
    document = ACL + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"
    (folder / f"{name}.tex").write_text(document)
    return pdflatex(folder, name)


@pytest.mark.parametrize("width", ["one", "two"])
def test_every_table_fits_a_two_column_acl_paper(paper_tables: dict[str, Path],
                                                 width: str) -> None:  # fmt: skip
    """Tables were sized for a 6.5 in one-column page: in a two-column paper a `table` is one
    column wide (group_scores 88 pt too wide at 3 authors, profile_similarity 18 pt at 31), a
    `sidewaystable` is turned inside one column, and a longtable stopped pdflatex ("longtable
    not in 1-column mode")."""
    log = _in_acl_paper(paper_tables[width])
    assert not _overfull(log), _overfull(log)
    texts = {p.stem: p.read_text() for p in paper_tables[width].glob("*.tex")}
    assert not any(r"\begin{sidewaystable}" in text for text in texts.values())
    if width == "one":  # the preview document is an ACL page, too
        preview = paper_tables[width] / "tables.tex"
        assert "twocolumn" in preview.read_text()
        assert not _overfull(pdflatex(preview.parent, "tables"))
        assert r"\begin{table}[tp]" in texts["profile_similarity"]  # fits one column
    else:
        assert r"\begin{table}[tp]" not in "".join(texts.values())


@pytest.mark.parametrize("width", ["one", "two"])
def test_no_sideways_table_runs_off_its_page(paper_tables: dict[str, Path], width: str) -> None:
    """At 31 authors the ghostwriting table, turned sideways, was 0.5 pt taller than the text
    width it is turned into, and the lexical table's parts 14-38 pt: the last rows ran off the
    page, and LaTeX said nothing (`rotating` zeroes the rotated box, so no Overfull warning).
    Such a table is a landscape longtable now, continued on a second page."""
    log = _in_acl_paper(paper_tables[width], MEASURE_SIDEWAYS, "measured")
    heights = sideways_heights(log)
    assert len(heights) >= 3  # form_checks and dimension_matrix stay sideways floats
    assert [(h, w) for h, w in heights if h > w] == []
    assert not _overfull(log), _overfull(log)
    ghostwriting = (paper_tables[width] / "ghostwriting.tex").read_text()
    assert r"Rhyme density\\{}[95\% CI]" in ghostwriting
    assert r"\begin{landscape}" in ghostwriting and r"\caption[]{(continued)}" in ghostwriting


def test_a_table_wider_than_a_column_spans_both_and_one_that_fits_stays(tmp_path: Path) -> None:
    """At 3 authors, `group_scores` went into one column 88 pt too wide."""
    with build_synthetic_run(tmp_path / "run", authors=("human", "gpt-4o", "claude-3-5-sonnet"),
                             judges=("gemini-2.5-pro",)) as store:  # fmt: skip
        analyze_run(store, n_boot=20).write(tmp_path / "out", "one")
    group_scores = (tmp_path / "out" / "group_scores.tex").read_text()
    assert r"\begin{table*}[tp]" in group_scores
    log = pdflatex(tmp_path / "out", "tables")
    assert not _overfull(log), _overfull(log)


def _header_cells(latex: str) -> list[list[str]]:
    """The header cells of each part of a table (the line after each `\\toprule`)."""
    lines = latex.splitlines()
    rows = [lines[i + 1] for i, line in enumerate(lines) if line == r"\toprule"]
    return [re.split(r"(?<!\\) & ", row.removesuffix(r" \\")) for row in rows]


def test_a_split_table_leaves_no_part_with_one_column(paper_tables: dict[str, Path]) -> None:
    """At 31 authors, App. H's dimension matrix printed "Human authorship" alone in its part 2
    and form_checks "Form score" alone; headers now wrap ("Form score" / "[95% CI]") before a
    table is split, and the parts share the columns about equally."""
    folder = paper_tables["two"]
    form_checks = (folder / "form_checks.tex").read_text()
    assert "(part" not in form_checks
    assert r"Form score\\{}[95\% CI]" in form_checks  # "[" after "\\" is not its argument
    for path in folder.glob("*.tex"):
        headers = _header_cells(path.read_text())
        if "(part 1 of" in path.read_text():
            sizes = [len(cells) for cells in headers]
            assert min(sizes) >= 3, (path.name, sizes)  # a key and at least two values
    matrix = _header_cells((folder / "dimension_matrix.tex").read_text())
    assert [len(cells) for cells in matrix] == [6, 6]


def test_balanced_groups_share_the_columns() -> None:
    widths = {"key": 50.0, **{f"v{i}": 80.0 for i in range(7)}}
    groups = balanced_groups(["key"], [f"v{i}" for i in range(7)], widths, 6 * 92 + 62)
    assert [len(group) - 1 for group in groups] == [4, 3]  # greedy filling gave 6 and 1
    assert all(group[0] == "key" for group in groups)
    assert balanced_groups(["key"], [], widths, 100) == [["key"]]


def test_headers_wrap_to_their_cells() -> None:
    assert header_lines("Pass rate [95% CI]", 80.0) == ["Pass rate", "[95% CI]"]
    assert header_lines("Human authorship", 20.0) == ["Human", "authorship"]
    assert header_lines("n", 10.0) == ["n"]


def test_longtable_pages_after_the_first_say_continued(paper_tables: dict[str, Path]) -> None:
    """Continuation pages repeated the header without saying the table went on."""
    latex = (paper_tables["two"] / "dimension_scores.tex").read_text()
    head = latex[latex.index(r"\endfirsthead") : latex.index(r"\endhead")]
    assert r"\caption[]{(continued)}" in head
    frame = pd.DataFrame({"author": [f"a{i}" for i in range(60)], "n": range(60)})
    assert r"\multicolumn{2}{l}{(continued)}" in to_latex(frame)  # a table without a caption


def test_latex_width_takes_the_figures_width_words(tmp_path: Path) -> None:
    assert LATEX_WIDTH_WORDS == WIDTH_WORDS
    assert [latex_width(word) for word in ("single", "Column", "page")] == ["one", "one", "two"]
    with pytest.raises(ValueError, match="'one'"):
        latex_width("3.3")
    run = tmp_path / "run"
    build_synthetic_run(run, authors=("human", "gpt-4o"), poems_per_form=1).close()
    bad = CliRunner().invoke(app, ["analyze", "--run", str(run), "--latex-width", "three"])
    assert bad.exit_code == 2 and "--latex-width" in bad.output
    good = CliRunner().invoke(app, ["analyze", "--run", str(run), "--latex-width", "column"])
    assert good.exit_code == 0, good.output
    assert "twocolumn" in (run / "analysis" / "tables.tex").read_text()
