"""A LaTeX float table's caption stands above its tabular, and LaTeX puts a caption's skip above
it (\\abovecaptionskip; \\belowcaptionskip is 0pt) while booktabs' \\abovetopsep is 0pt: the top
rule ran along the caption's last line, under its descenders, in every table, table* and
sidewaystable `analyze` wrote (the longtables' captions have their own gap). Measured in the
compiled PDF: the caption's last baseline and the top of the rule, by \\pdfsavepos marks."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from latex_support import pdflatex

from poemetric.tables.latex import to_latex
from poemetric.tables.latex_layout import CAPTION_GAP_PT

#: Marks that log, at shipout, the height on the page of where they stand (sp): `\captionmark`
#: at the end of a caption (its last baseline), and a \noalign before each \toprule that marks
#: where the rule's top edge is (after \abovetopsep, as booktabs skips it).
MARKS = r"""\newcommand\poemetricmark[1]{\pdfsavepos\write-1{MARK #1 \the\pdflastypos}}
\DeclareRobustCommand\captionmark{\poemetricmark{caption}}
\let\poemetrictoprule\toprule
\def\toprule{\noalign{\vskip\abovetopsep\poemetricmark{rule}\vskip-\abovetopsep}\poemetrictoprule}
"""


def _document(body: str, *, twocolumn: bool) -> str:
    option = ",twocolumn" if twocolumn else ""
    return (
        f"\\documentclass[11pt{option}]{{article}}\n"
        "\\usepackage[textwidth=16cm,textheight=24.7cm,columnsep=0.6cm]{geometry}\n"
        "\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs,longtable,rotating,pdflscape}\n"
        + MARKS
        + "\\begin{document}\n"
        + body
        + "\n\\end{document}\n"
    )


@pytest.mark.parametrize(
    ("width", "columns", "environment"),
    [("one", 2, "table"), ("two", 2, "table*"), ("two", 14, "sidewaystable*")],
)
def test_a_float_caption_clears_its_top_rule(
    tmp_path: Path, width: str, columns: int, environment: str
) -> None:
    frame = pd.DataFrame(
        {"Author": ["Human", "GPT-4o", "Qwen2.5-72B-Instruct"]}
        | {
            f"Score {i} [95% CI]": ["0.71 [0.62, 0.80]", "0.52 [0.40, 0.63]", "0.60 [0.51, 0.69]"]
            for i in range(columns - 1)
        }
    )
    caption = "Judge scores per author, with the poems a judge found no imagery in left out"
    latex = to_latex(frame, caption=caption, width=width)
    assert rf"\begin{{{environment}}}" in latex
    assert caption + "}" in latex
    marked = latex.replace(caption + "}", caption + r"\captionmark}", 1)
    (tmp_path / "table.tex").write_text(_document(marked, twocolumn=width == "one"))
    log = pdflatex(tmp_path, "table")
    marks = dict(re.findall(r"MARK (caption|rule) (-?\d+)", log))
    assert set(marks) == {"caption", "rule"}, log[-2000:]
    gap_pt = (int(marks["caption"]) - int(marks["rule"])) / 65536
    # The caption's last line goes about 3 pt below its baseline (its descenders); the rule
    # must clear it by the gap (CAPTION_GAP_PT), not touch it.
    assert gap_pt >= 3 + CAPTION_GAP_PT - 1, (
        f"{environment}: the top rule is {gap_pt:.1f} pt under the caption's baseline"
    )
