"""Figs. 6-8 and the report's "Scores by dimension" over the poems the experts rated: an author
none of whose rated poems the judge scored (failed judgments, `judge --limit`) was counted in
the "left out" sentence, but neither the caption nor the report said that author has no bar
(no dots), as they name the authors the experts did not rate."""

from __future__ import annotations

import html
import re
from pathlib import Path

import matplotlib.pyplot as plt
from expert_poems_support import drop_judgments, first_poems, write_experts
from typer.testing import CliRunner

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.experts import load_expert_ratings
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.providers.base import ModelSpec
from poemetric.store import RunStore
from poemetric.store.models import record_models


def _run(tmp_path: Path) -> tuple[Path, Path]:
    """The experts rated 2 poems each of human and model-a; the judge's judgments of model-a's
    two are deleted, so none of them is scored."""
    path = tmp_path / "run"
    build_synthetic_run(path, poems_per_form=3).close()
    poems = first_poems(path, "human", 2) + first_poems(path, "model-a", 2)
    drop_judgments(path, poems[2:])
    return path, write_experts(tmp_path / "experts.csv", dict.fromkeys(poems, 3))


NO_BAR = "No bars for model-a: judge-x scored none of the poems the experts rated of it."


def test_the_caption_names_an_author_with_no_bar(tmp_path: Path) -> None:
    path, experts = _run(tmp_path)
    with RunStore(path, create=False) as store, figure_style():
        ctx = FigureContext(load_run_data(store), judge="judge-x", labels=run_labels(store),
                            experts=load_expert_ratings(experts, store))  # fmt: skip
        drawing = FIGURE_KINDS["dimension_bars"][0](ctx, group="basic")
    plt.close(drawing.figure)
    caption = " ".join(drawing.caption.split())
    assert "2 poems the experts rated are left out of both" in caption, caption
    assert NO_BAR in caption, caption
    assert caption.endswith("Not rated by the experts, so not shown: model-b.")


def test_the_report_names_an_author_with_no_dots(tmp_path: Path) -> None:
    path, experts = _run(tmp_path)
    page = tmp_path / "report" / "index.html"
    given = ["report", "--run", str(path), "--experts", str(experts), "--out", str(page)]
    result = CliRunner().invoke(app, given)
    assert result.exit_code == 0, result.output
    source = page.read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", source)).split())
    assert "2 poems the experts rated are left out of both" in text
    assert (
        "No dots for model-a in these charts: judge-x scored none of the poems the experts "
        "rated of it." in text
    ), text[text.find("left out of both") - 300 :][:900]


def test_analyze_names_an_author_with_no_bar_in_its_notes(tmp_path: Path) -> None:
    """`analyze` counted model-a's two poems among those left out, but its terminal note (and
    notes.txt) did not say model-a has no bar in Figs. 6-8, as the captions and report do; it
    named the judge and the author by key beside tables that name them by display name."""
    path, experts = _run(tmp_path)
    with RunStore(path, create=False) as store:
        for stage, key, shown in (
            ("generate", "model-a", "Model A"),
            ("judge", "judge-x", "Judge X"),
        ):
            spec = ModelSpec(name=key, provider="openai", model=key, display_name=shown)
            record_models(store, stage, [spec])
    result = CliRunner().invoke(app, ["analyze", "--run", str(path), "--experts", str(experts)])
    assert result.exit_code == 0, result.output
    notes = " ".join(result.output.split())
    assert "judge Judge X vs experts (all items, 2 poems" in notes, notes
    assert (
        "2 poems the experts rated are left out of both, as Judge X has no score for them "
        "(Model A 2); no bars for Model A: Judge X scored none of the poems the experts rated "
        "of it" in notes
    ), notes
