"""Paper Fig. 5 (`rule_based`) measures TTR and repetition over poems, but its form-accuracy
panel counts every checked answer: an author whose every answer is not a poem (a model that
always refused) has a pass rate of 0 there. Its authors came from the poems-only lexical table,
so that author vanished from the form-accuracy panel too, and the caption said nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_analysis_scores import _fill

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figures_rules import rule_based
from poemetric.store import RunStore


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    with RunStore(tmp_path / "run") as run_store:
        _fill(run_store)
        for poem_id in ("p1", "p2"):  # "mute" refused both prompts: no poem, two failed checks
            generation_id = f"mute-{poem_id}"
            run_store.save_generation({"generation_id": generation_id, "prompt_id": f"q{poem_id[1]}",
                                       "poem_id": poem_id, "author": "mute", "status": "ok",
                                       "poem": "I'm sorry, but I can't write that poem."})  # fmt: skip
            run_store.save_form_check({"generation_id": generation_id, "checker_version": "t",
                                       "passed": 0, "form_score": 0.0})  # fmt: skip
        yield run_store


def _tick_labels(axis: object) -> list[str]:
    return [t.get_text() for t in (*axis.get_yticklabels(), *axis.get_xticklabels())]  # type: ignore[attr-defined]


def test_an_author_without_poems_keeps_its_form_accuracy(store: RunStore) -> None:
    context = FigureContext(load_run_data(store))
    assert "mute" in set(context.form_checks["author"])
    assert "mute" not in set(context.lexical["author"])  # no poem: no TTR
    drawing = rule_based(context)
    axes = drawing.figure.axes
    titles = [axis.get_title() for axis in axes]
    form = axes[titles.index("Form accuracy (pass rate)")]
    assert any("mute" in label for label in _tick_labels(form)), _tick_labels(form)
    # its pass rate, 0 of 2, is drawn (a bar or dot at 0), and the caption says why it has
    # no TTR or repetition
    assert "mute 2 of 2" in drawing.caption, drawing.caption
