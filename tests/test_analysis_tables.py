"""Tables for reading: readable headers, display names, integer counts, CIs beside their
estimate, and LaTeX that fits a page and compiles (pdflatex, installed by .ci/run)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from latex_support import pdflatex
from typer.testing import CliRunner

from poemetric.analysis import analyze_run
from poemetric.analysis.labels import Labels
from poemetric.analysis.run import FIXED_INTERVALS, MEAN_TABLES
from poemetric.analysis.synthetic import (
    build_synthetic_run,
    paper_scale_run,
    write_synthetic_experts,
)
from poemetric.cli import app
from poemetric.report.render import ci
from poemetric.roster import load_groups, load_roster
from poemetric.tables.latex import latex_preview, to_latex
from poemetric.tables.write import presentable, readable, to_markdown, write_table

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


def test_agreement_headers_name_each_statistic_alike() -> None:
    """The agreement tables printed "Alpha nominal" beside "α ordinal", "Gwet ac1" beside "AC2
    quadratic", and "N raters" beside "n N/A"."""
    headers = [readable(c) for c in ("alpha_nominal", "alpha_ordinal", "gwet_ac1",
                                     "gwet_ac2_linear", "gwet_ac2_quadratic", "n_raters",
                                     "n_ratings", "n_na", "rhyme_density_raplyzer")]  # fmt: skip
    assert headers == ["α nominal", "α ordinal", "AC1", "AC2 linear", "AC2 quadratic",
                       "n raters", "n ratings", "n N/A", "Rhyme density (Raplyzer)"]  # fmt: skip
    assert readable("alpha_nominal__ci") == "α nominal [95% CI]"


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
    assert "Mean [95\\% CI]" in latex and "\\begin{table*}" in latex


def test_wide_tables_are_rotated_or_split_and_long_ones_become_longtables() -> None:
    wide = pd.DataFrame({"author": ["a-very-long-author-name-indeed"] * 3,
                         **{f"metric_number_{i}": [0.5, 0.6, 0.7] for i in range(14)}})  # fmt: skip
    wide["author"] = ["one", "two", "three"]
    assert "sidewaystable" in to_latex(wide.iloc[:, :12])
    split = to_latex(wide.assign(**{f"metric_number_{i}": 100.5 for i in range(14, 20)}))
    parts = split.count(r"\begin{sidewaystable*}")
    assert parts >= 2 and f"(part {parts} of {parts})" in split
    assert split.count("Author &") == parts  # the identifying column repeats in each part
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
def test_csv_counts_are_integers_as_in_the_md_and_tex(tables_dir: Path) -> None:
    """discrimination.csv wrote `n` as 70.0 while discrimination.md printed 70."""
    csv = (tables_dir / "discrimination.csv").read_text().splitlines()
    counts = [line.split(",")[1] for line in csv[1:]]
    assert counts and all(n.isdigit() for n in counts), csv
    assert f"| {counts[0]} |" in (tables_dir / "discrimination.md").read_text()


def test_any_table_writes_whole_float_counts_as_integers(tmp_path: Path) -> None:
    frame = pd.DataFrame({"rater": ["a", "b"], "n": [70.0, None], "n_pairs": [1.5, 2.0],
                          "mean": [3.0, 2.5], "count": [3, 4]})  # fmt: skip
    write_table(frame, tmp_path, "t", formats=("csv",))
    assert (tmp_path / "t.csv").read_text().splitlines() == [
        "rater,n,n_pairs,mean,count",
        "a,70,1.5,3.0,3",  # a count with a fraction stays as it is; a mean is not a count
        "b,,2.0,2.5,4",
    ]
    assert frame["n"].dtype == float  # the frame itself is left as it was


def test_latex_tables_compile_and_fit_the_page(tables_dir: Path) -> None:
    log = pdflatex(tables_dir)
    assert "Overfull \\hbox" not in log, [line for line in log.splitlines() if "Overfull" in line]
    assert (tables_dir / "tables.pdf").stat().st_size > 10_000


def _compile(folder: Path, *tables: Path) -> str:
    """pdflatex the preview document of `tables`; the log."""
    latex_preview(list(tables), folder / "tables.tex")
    return pdflatex(folder)


def test_a_paper_sized_form_check_table_fits_its_page(tmp_path: Path) -> None:
    """31 authors with the paper's names and n = 203: the widths were estimated with an average
    glyph (4.6 pt), short for names in capitals, so the sideways table was 0.9 pt too wide."""
    authors = ["Human", *(spec.label for spec in load_roster("generators").values())]
    cell = "0.77 [0.71, 0.83]"
    frame = pd.DataFrame({"author": authors, "n": 203, "n_unchecked": 0,
                          **{f"{m}__ci": cell for m in ("pass_rate", "meter_score",
                                                         "rhyme_score", "form_score")}})  # fmt: skip
    paths = write_table(frame, tmp_path, "form_checks", caption="Rule-based form check")
    log = _compile(tmp_path, paths[1])
    assert "DeepSeek-R1-Distill-Llama-70B" in paths[1].read_text()
    assert "Overfull \\hbox" not in log, [line for line in log.splitlines() if "Overfull" in line]


def test_long_titles_wrap_and_latex_specials_print_as_written(tmp_path: Path) -> None:
    """The errata table of the authors' release: only text columns, which no split narrows, so
    it was 136 pt wider than a landscape page; its long titles now wrap. `<`, `>` and `|` printed
    as inverted marks and a dash in LaTeX's default encoding."""
    title = "Under the Orchard Walls Where the Long Shadows Sleep"
    frame = pd.DataFrame({
        "form": ["sonnet", "ballad"], "title": [title, "Magic <Part | One>"],
        "field": ["rhyme_pattern"] * 2, "annotated": ["ABABCDCDEFEF GG", "AABB"],
        "corrected": ["ABBABAAB CDDECE", "none (left out)"], "status": ["corrected", "excluded"],
        "verdict_errata_applied": ["pass", "left out"], "data_row": [130, 16],
        "note_for_the_reader": ["annotated pattern contradicts the octave"] * 2,
    })  # fmt: skip
    paths = write_table(frame, tmp_path, "errata_rows", caption="Dataset errata")
    latex = paths[1].read_text()
    assert r"\parbox[t]" in latex and r"\raggedright Under the Orchard" in latex
    assert r"Magic \textless{}Part \textbar{} One\textgreater{}" in latex
    log = _compile(tmp_path, paths[1])
    assert "Overfull \\hbox" not in log, [line for line in log.splitlines() if "Overfull" in line]


def test_a_name_that_starts_with_a_bracket_or_a_star_prints_as_written(tmp_path: Path) -> None:
    """The `\\\\` ending a row (or the rule above the first) read a leading `[` or `*` of the
    next row as its own argument: `[beta] QwQ` stopped pdflatex ("Missing number, treated as
    zero") and `*star* QwQ` printed as `star* QwQ`."""
    frame = pd.DataFrame({"author": ["[beta] QwQ", "*star* QwQ", " [rc] GPT"],
                          "n": [3, 4, 5], "mean": [3.5, 2.25, 4.0]})  # fmt: skip
    paths = write_table(frame, tmp_path, "names", caption="Authors")
    latex_preview([paths[1]], tmp_path / "tables.tex")
    pdflatex(tmp_path)
    dvi2tty = shutil.which("dvi2tty")  # texlive-binaries, which pdflatex comes in
    assert dvi2tty is not None
    subprocess.run(["pdflatex", "-output-format=dvi", "-interaction=nonstopmode", "tables.tex"],
                   cwd=tmp_path, capture_output=True, timeout=120, check=True)  # fmt: skip
    printed = subprocess.run([dvi2tty, "-w", "200", "tables.dvi"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=60, check=True).stdout  # fmt: skip
    # dvi2tty prints a space between words as two, and the rule under the last row as "_"
    words = " ".join(printed.replace("_", " ").split())
    assert all(name in words for name in ("[beta] QwQ", "*star* QwQ", "[rc] GPT")), printed


@pytest.mark.slow
def test_every_table_compiles_with_only_the_packages_it_names(tables_dir: Path) -> None:
    """An author inputs a table into a paper with the packages its first line names; the
    agreement tables' α and κ headers stopped pdflatex ("Unicode character α not set up")."""
    tables = sorted(p for p in tables_dir.glob("*.tex") if p.name != "tables.tex")
    needs = {p.read_text().splitlines()[0] for p in tables}
    assert len(needs) == 1 and needs.pop().startswith(r"% Needs \usepackage{")
    packages = tables[0].read_text().splitlines()[0].removeprefix("% Needs ").split(" in ")[0]
    body = "\n".join(rf"\input{{{p.name}}}" + "\n\\clearpage" for p in tables)
    folder = tables_dir / "bare"
    folder.mkdir(exist_ok=True)
    for path in tables:
        (folder / path.name).write_text(path.read_text())
    (folder / "bare.tex").write_text(
        "\\documentclass{article}\n"
        + packages
        + "\n\\begin{document}\n"
        + body
        + "\n\\end{document}\n"
    )
    assert any("α" in p.read_text() or r"\alpha" in p.read_text() for p in tables)
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is not installed")
    result = subprocess.run(
        [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "bare.tex"],
        cwd=folder, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    log = (folder / "bare.log").read_text(errors="replace")
    assert result.returncode == 0, [line for line in log.splitlines() if line.startswith("!")]


def test_a_value_that_does_not_exist_is_a_dash_not_an_empty_cell(tables_dir: Path) -> None:
    """The human poets have no repetition of their own original: the cells were left empty,
    which reads as data lost; the terminal summary already showed a dash."""
    human = next(line for line in (tables_dir / "lexical.md").read_text().splitlines()
                 if line.startswith("| Human |"))  # fmt: skip
    cells = [cell.strip() for cell in human.strip("|").split("|")]
    assert "" not in cells and "–" in cells
    latex = (tables_dir / "lexical.tex").read_text()
    assert "&  &" not in latex and "&  \\\\" not in latex


def test_negative_numbers_get_a_minus_sign_not_a_hyphen() -> None:
    """ "-0.09" in text mode prints a hyphen, shorter and higher than the minus of "$-$0.09"; a
    name with a hyphen keeps it."""
    frame = pd.DataFrame({"author": ["Llama-3-8B"], "excess": [-0.0856],
                          "excess_ci_low": [-0.124], "excess_ci_high": [-0.047]})  # fmt: skip
    latex = to_latex(presentable(frame))
    assert r"Llama-3-8B & $-$0.09 [$-$0.12, $-$0.05] \\" in latex
    assert "| Llama-3-8B | -0.09 [-0.12, -0.05] |" in to_markdown(presentable(frame))


def test_a_value_that_rounds_to_zero_has_no_minus_sign() -> None:
    """A repetition excess of -0.001 [-0.004, 0.01] printed "-0.00 [-0.00, 0.01]" in the
    Markdown table and the report and "$-$0.00" in LaTeX: a minus zero, which no paper prints."""
    frame = pd.DataFrame({"author": ["gpt-4o"], "excess_mean": [-0.001],
                          "excess_ci_low": [-0.004], "excess_ci_high": [0.012],
                          "alpha": [-0.003], "delta": [-0.0051]})  # fmt: skip
    shown = presentable(frame)
    assert "| gpt-4o | 0.00 [0.00, 0.01] | 0.00 | -0.01 |" in to_markdown(shown)
    assert r"gpt-4o & 0.00 [0.00, 0.01] & 0.00 & $-$0.01 \\" in to_latex(shown)
    assert ci(-0.001, -0.004, 0.012) == "0.00 [0.00, 0.01]"
    assert ci(-0.02, -0.04, -0.001) == "-0.02 [-0.04, 0.00]"


def test_markdown_cells_print_names_and_themes_as_written(tmp_path: Path) -> None:
    """A display name `Cash $x^2$ model` rendered as maths on GitHub, `_my_ model` and
    `*starred*` as emphasis, and `a|b` split the row; CSV and LaTeX keep their own forms. An
    underscore inside a word (`my_model_v2`, a task `rhyme_line_swap`) is never emphasis in
    GitHub's Markdown, and stays as written: the probe commands print these tables on a
    terminal."""
    frame = pd.DataFrame({"author": ["Cash $x^2$ model", "*starred* my_model_v2", "a|b"],
                          "theme": ["love ~ loss", "<b>bold</b>", "[link](x) _my_ model"],
                          "mean": [0.5, -0.25, 1.0]})  # fmt: skip
    md, csv, tex = (tmp_path / f"t.{fmt}" for fmt in ("md", "csv", "tex"))
    write_table(frame, tmp_path, "t", caption="Names_and $themes$ __all__")
    lines = md.read_text().splitlines()
    assert lines[0] == r"**Names_and \$themes\$ \_\_all\_\_**"
    assert r"| Cash \$x^2\$ model | love \~ loss | 0.50 |" in lines
    assert r"| \*starred\* my_model_v2 | \<b\>bold\</b\> | -0.25 |" in lines
    assert r"| a\|b | \[link\](x) \_my\_ model | 1.00 |" in lines
    assert pd.read_csv(csv)["author"].tolist() == frame["author"].tolist()
    assert r"Cash \$x\textasciicircum{}2\$ model" in tex.read_text()


def test_the_human_authorship_column_is_not_called_human_beside_the_human_row(
    tables_dir: Path,
) -> None:
    """`dimension_matrix` had a column "Human" (the human-authorship item) and a row "Human"
    (the human poets); the column is now named as the paper names the item."""
    lines = (tables_dir / "dimension_matrix.md").read_text().splitlines()
    header = next(line for line in lines if line.startswith("| Judge | Author |"))
    cells = [cell.strip() for cell in header.strip("|").split("|")]
    assert "Human authorship" in cells and "Human" not in cells
    assert any(" | Human | " in line for line in lines)  # the human poets' row
    assert "& Human authorship" in _one_line_headers(tables_dir / "dimension_matrix.tex")
    scores = (tables_dir / "dimension_scores.md").read_text()
    assert "| Human | Human authorship |" in scores and "| Human | Human |" not in scores


@pytest.mark.parametrize(("name", "column", "header", "at"), [
    ("top_words", "share", "Share (%)", -1),
    ("opening_words", "share", "Share (%)", -1),
    ("imagery", "poem_share", "Share of poems (%)", -2),
])  # fmt: skip
def test_word_tables_print_shares_as_percentages_as_their_figures_do(
    tables_dir: Path, name: str, column: str, header: str, at: int
) -> None:
    """A word's share of an author's content tokens (0.0302) printed as 0.03 at two decimals,
    the same as every other top word's (0.01 for every word of the demo), while Figs. 10-11
    print the same shares as percentages (3.02)."""
    csv = pd.read_csv(tables_dir / f"{name}.csv")
    lines = (tables_dir / f"{name}.md").read_text().splitlines()
    assert "%" in lines[0]  # the caption says what the share is of
    headers, first = ([cell.strip() for cell in line.strip("|").split("|")]
                      for line in (lines[2], lines[4]))  # fmt: skip
    assert headers[at] == header
    assert first[at] == f"{100 * csv[column].iloc[0]:.2f}"
    assert 0 < csv[column].iloc[0] <= 1  # the CSV keeps the share, to compute with
    assert header.replace("%", "\\%") in _one_line_headers(tables_dir / f"{name}.tex")


def _one_line_headers(path: Path) -> str:
    """A .tex table with its headers wrapped onto lines ("Human" / "authorship") on one."""
    text = re.sub(r"\\begin\{tabular\}\[b\]\{@\{\}[lr]@\{\}\}", "", path.read_text())
    return text.replace(r"\end{tabular} ", " ").replace(r"\\{}", " ")


def test_authors_are_in_natural_order_numbers_compared_as_numbers(tables_dir: Path) -> None:
    """Authors were sorted as plain strings: Qwen2.5-14B before Qwen2.5-3B, and
    DeepSeek-R1-Distill-Llama-70B before -8B, in every table and figure."""
    shown = [line.split("|")[1].strip() for line in
             (tables_dir / "form_checks.md").read_text().splitlines()[4:]]  # fmt: skip
    qwen = [name for name in shown if name.startswith("Qwen2.5-")]
    assert qwen == [
        f"Qwen2.5-{size}B-Instruct" for size in ("0.5", "1.5", "3", "7", "14", "32", "72")
    ]
    llama = shown.index("DeepSeek-R1-Distill-Llama-8B")
    assert llama < shown.index("DeepSeek-R1-Distill-Llama-70B"), shown
    assert shown[0] == "Human"


def test_score_parts_and_groups_use_the_figures_labels(tables_dir: Path) -> None:
    """group_scores printed the machine names `basic`, `quality`, `poemetric` where Fig. 9
    says "POEMetric score"; dimension_scores printed its groups in lower case."""
    groups = (tables_dir / "group_scores.md").read_text()
    for label in ("Basic", "Advanced", "Appraisal", "Quality", "POEMetric score"):
        assert f"| {label} |" in groups, label
    assert not any(f"| {key} |" in groups for key in ("basic", "quality", "poemetric"))
    dimensions = (tables_dir / "dimension_scores.md").read_text()
    assert "| Form | Basic |" in dimensions and "| basic |" not in dimensions
    assert "POEMetric score" in (tables_dir / "group_scores.tex").read_text()
    assert "poemetric" in set(pd.read_csv(tables_dir / "group_scores.csv")["part"])  # CSV: keys


def test_docs_say_exactly_which_tables_ci_bootstrap_switches(tmp_path: Path) -> None:
    """docs/analysis.md said every mean CI switched to the bootstrap with `--ci bootstrap`;
    the form-check, lexical and ghostwriting means keep Student t, as their captions say."""
    with build_synthetic_run(tmp_path / "run", authors=("human", "gpt-4o")) as store:
        result = analyze_run(store, ci_method="bootstrap", n_boot=0)
    assert {"form_checks", "lexical", "ghostwriting", "group_scores"} <= set(result.tables)
    for name in MEAN_TABLES:
        if name in result.tables:
            assert "percentile bootstrap over poems" in result.caption(name), name
    for name in FIXED_INTERVALS:
        if name in result.tables:
            assert "Student t" in result.caption(name), name
    docs = " ".join((Path(__file__).parents[1] / "docs" / "analysis.md").read_text().split())
    said = docs[docs.index("`--ci bootstrap` (percentile") : docs.index("each table's caption")]
    switched, kept = said.split("keep Student t")[0].split("The means of")
    assert set(re.findall(r"`(\w+)`", switched)) == set(MEAN_TABLES)
    assert set(re.findall(r"`(\w+)`", kept)) == set(FIXED_INTERVALS)
    help_text = " ".join(CliRunner().invoke(app, ["analyze", "--help"]).output.split())
    assert "Form-check, lexical and ghostwriting means keep Student t" in help_text.replace(
        "│ ", ""
    )
