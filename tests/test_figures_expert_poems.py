"""Figs. 6-8 compare the judge with the experts over the same poems."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from expert_poems_support import half_judged_run, write_experts
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.experts import load_expert_ratings
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.run import analyze_run
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.store import RunStore

KEY = "form"  # the first panel of `group: basic`


@pytest.fixture(scope="module")
def rated_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, float]]:
    """A judged run whose experts rated, of each author, the poems the judge scored lowest on
    form, and the judge's mean form score per author over those poems."""
    path = tmp_path_factory.mktemp("expert-poems") / "run"
    build_synthetic_run(path, poems_per_form=3).close()
    with RunStore(path, create=False) as store:
        judgments = load_run_data(store).judgments
    per_poem = judgments.groupby(["author", "generation_id"])[KEY].mean().reset_index()
    rated = per_poem.sort_values([KEY, "generation_id"]).groupby("author").head(3)
    experts = write_experts(path / "experts.csv", dict.fromkeys(rated["generation_id"], 3))
    subset = rated.groupby("author")[KEY].mean().to_dict()
    every = per_poem.groupby("author")[KEY].mean().to_dict()
    assert any(not np.isclose(subset[a], every[a]) for a in subset)  # the test can tell them
    return path, experts, subset


def _judge_bars(figure: Figure) -> dict[str, float]:
    """The first panel's judge bars: author label -> the value the bar reaches."""
    axis = figure.axes[0]
    bars = next(c for c in axis.containers if isinstance(c, BarContainer))
    labels = [t.get_text() for t in axis.get_xticklabels() or axis.get_yticklabels()]
    return {
        label: bar.get_y() + bar.get_height()
        for label, bar in zip(labels, bars.patches, strict=True)
    }


def _bars(
    path: Path, experts: Path, **options: str
) -> tuple[dict[str, float], str, dict[str, str]]:
    with RunStore(path, create=False) as store, figure_style():
        labels = run_labels(store)
        ctx = FigureContext(load_run_data(store), judge="judge-x", labels=labels,
                            experts=load_expert_ratings(experts, store))  # fmt: skip
        drawing = FIGURE_KINDS["dimension_bars"][0](ctx, group="basic", **options)
    bars = _judge_bars(drawing.figure)
    plt.close(drawing.figure)
    return bars, drawing.caption, labels.authors


def test_the_judges_bars_beside_the_experts_are_over_the_poems_they_rated(
    rated_run: tuple[Path, Path, dict[str, float]],
) -> None:
    """The judge's bar was its mean over every poem of the author, the experts' over theirs."""
    path, experts, subset = rated_run
    bars, caption, names = _bars(path, experts)
    assert bars == pytest.approx({names.get(a, a): subset[a] for a in subset})
    assert "over the poems the experts rated (3 poems per author)" in caption
    # It read "on the same poems, an item over those an expert and judge-x scored".
    assert "2 human experts on the same poems (on each item, those both an expert and " in caption
    assert "an item over those" not in caption


def test_judge_poems_all_keeps_the_judge_over_every_poem(
    rated_run: tuple[Path, Path, dict[str, float]],
) -> None:
    path, experts, subset = rated_run
    bars, caption, names = _bars(path, experts, judge_poems="all")
    with RunStore(path, create=False) as store:
        judgments = load_run_data(store).judgments
    every = judgments.groupby(["author", "generation_id"])[KEY].mean().groupby("author").mean()
    assert bars == pytest.approx({names.get(a, a): every[a] for a in subset})
    assert "over every poem" in caption and "9 poems each" in caption


def test_analyze_writes_the_judge_over_the_expert_poems(
    rated_run: tuple[Path, Path, dict[str, float]],
) -> None:
    """The figure's judge bars are a table of `analyze` (only the experts' were before)."""
    path, experts, subset = rated_run
    with RunStore(path, create=False) as store:
        result = analyze_run(store, experts=experts)
    table = result.table("judge_on_expert_poems")
    form = table[table["dimension"] == KEY].set_index("author")
    assert form["mean"].to_dict() == pytest.approx(subset)
    assert set(form["n"]) == {3}


def test_authors_the_experts_did_not_rate_are_left_out_and_named(
    rated_run: tuple[Path, Path, dict[str, float]], tmp_path: Path
) -> None:
    path, experts, _ = rated_run
    rows = experts.read_text(encoding="utf-8").splitlines()
    with RunStore(path, create=False) as store:
        model_b = set(store.query("SELECT generation_id FROM generations WHERE author = 'model-b'"))
    kept = [r for r in rows if not any(r.split(",")[1] == g[0] for g in model_b)]
    assert len(kept) < len(rows)
    partial = tmp_path / "experts.csv"
    partial.write_text("\n".join(kept) + "\n", encoding="utf-8")
    bars, caption, names = _bars(path, partial)
    assert set(bars) == {names.get(a, a) for a in ("human", "model-a")}
    assert f"Not rated by the experts, so not shown: {names.get('model-b', 'model-b')}." in caption


@pytest.fixture
def half_judged(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """The review's reproduction: the experts rated 4 model-a poems (two scored 1, two 5); the
    judgments of the two 5-rated poems are deleted (a failed judgment, `judge --limit`)."""
    return half_judged_run(tmp_path)


def _expert_bars(figure: Figure) -> dict[str, float]:
    """The first panel's expert bars (the second bar container): author label -> value."""
    axis = figure.axes[0]
    bars = [c for c in axis.containers if isinstance(c, BarContainer)][1]
    labels = [t.get_text() for t in axis.get_xticklabels() or axis.get_yticklabels()]
    return {
        label: bar.get_y() + bar.get_height()
        for label, bar in zip(labels, bars.patches, strict=True)
    }


def test_the_experts_bars_leave_out_the_poems_the_judge_has_no_judgment_for(
    half_judged: tuple[Path, Path, list[str]],
) -> None:
    """The experts' bar was over all 4 rated poems (mean 3.0), the judge's over the 2 it
    judged, while the caption said both were over the same 2 poems."""
    path, experts, poems = half_judged
    with RunStore(path, create=False) as store, figure_style():
        data = load_run_data(store)
        ctx = FigureContext(data, judge="judge-x", labels=run_labels(store),
                            experts=load_expert_ratings(experts, store))  # fmt: skip
        drawing = FIGURE_KINDS["dimension_bars"][0](ctx, group="basic")
    judge, panel = _judge_bars(drawing.figure), _expert_bars(drawing.figure)
    plt.close(drawing.figure)
    judged = data.judgments[data.judgments["generation_id"].isin(poems[:2])]
    per_poem = judged.groupby("generation_id")[KEY].mean()
    assert judge == pytest.approx({"model-a": per_poem.mean()})
    assert panel == pytest.approx({"model-a": 1.0})  # the two poems the judge judged
    assert "over the poems the experts rated (2 poems per author)" in drawing.caption
    assert (
        "2 poems the experts rated are left out of both, as judge-x has no score for them "
        "(model-a 2)." in drawing.caption
    )


def test_analyze_writes_the_experts_over_the_poems_the_judge_scored(
    half_judged: tuple[Path, Path, list[str]],
) -> None:
    path, experts, _ = half_judged
    with RunStore(path, create=False) as store:
        result = analyze_run(store, experts=experts)
    table = result.table("experts_on_judged_poems")
    form = table[(table["dimension"] == KEY) & (table["judge"] == "judge-x")]
    assert form[["author", "n", "mean", "n_left_out"]].to_dict("records") == [
        {"author": "model-a", "n": 2, "mean": 1.0, "n_left_out": 2}
    ]
    judge = result.table("judge_on_expert_poems")
    assert set(judge[judge["dimension"] == KEY]["n"]) == {2}
    assert result.table("expert_scores").query("dimension == @KEY")["n"].tolist() == [4]
    assert any("2 poems the experts rated are left out" in note for note in result.notes)
