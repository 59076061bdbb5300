"""The case study's score labels are each poem's mean over the judge's samples: with `poemetric
judge --samples 3` they printed "3.33333" (`:g`), seven characters over a bar a third as wide,
and every label ran into its neighbour's, at two columns and at one."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from poemetric.analysis.case_study import case_study
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import COLUMN_WIDTHS, figure_style
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.questionnaire import DIMENSION_KEYS


@pytest.mark.parametrize("width", ["one", "two"])
def test_three_judge_samples_print_readable_means(tmp_path: Path, width: str) -> None:
    with build_synthetic_run(
        tmp_path / "run", authors=("human", "gpt-4o"), poems_per_form=1
    ) as store:
        with store.transaction() as db:
            cursor = db.execute("SELECT * FROM judgments")
            names = [column[0] for column in cursor.description]
            for row in cursor.fetchall():
                for sample in (1, 2):  # a point up on one sample: every mean is x.33
                    copy = dict(zip(names, row, strict=True))
                    copy |= {
                        "judgment_id": f"{copy['judgment_id']}-{sample}",
                        "sample_index": sample,
                    }
                    for key in DIMENSION_KEYS:
                        if copy[key]:  # N/A (0) stays N/A
                            copy[key] = min(5, copy[key] + (sample == 1))
                    db.execute(
                        f"INSERT INTO judgments ({', '.join(copy)}) "
                        f"VALUES ({', '.join('?' * len(copy))})",
                        list(copy.values()),
                    )
        data, labels = load_run_data(store), run_labels(store)
    with figure_style():
        drawing = case_study(
            FigureContext(data, judge="judge-x", labels=labels, width=COLUMN_WIDTHS[width])
        )
    bars = drawing.figure.axes[-1]
    printed = [text.get_text() for text in bars.texts if text.get_text() != "N/A"]
    problems = text_problems(drawing.figure)
    plt.close(drawing.figure)
    assert any("." in label for label in printed), printed  # means over three samples
    assert all(len(label) <= 3 for label in printed), printed  # "3.3", not "3.33333"
    assert problems == []
