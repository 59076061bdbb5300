"""The ghostwriting figure measures uniqueness against the same reference corpus as the
ghostwriting table: every human poem of the run's dataset snapshot. It took the originals of
the poems-only generations, so in a `--limit` run a model's verbatim copy of a dataset poem that
was not prompted was no near-copy in the figure, and one in the table."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.ghostwriting.tables import ghostwriting_tables
from poemetric.store import RunStore


@pytest.fixture
def limited_run(tmp_path: Path) -> Path:
    """Four dataset poems, three prompted (as `--limit 3` leaves them); model-a's answer to
    sonnet-0 is the unprompted ballad-1, word for word."""
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=("human", "model-a", "model-b"), poems_per_form=2,
                             forms=("sonnet", "ballad")) as store:  # fmt: skip
        conn = store.conn
        (copied,) = conn.execute("SELECT content FROM poems WHERE poem_id = 'ballad-1'").fetchone()
        ids = [(r[0],) for r in conn.execute(
            "SELECT generation_id FROM generations WHERE poem_id = 'ballad-1'")]  # fmt: skip
        for table in ("form_checks", "judgments", "generations"):
            conn.executemany(f"DELETE FROM {table} WHERE generation_id = ?", ids)
        conn.execute("UPDATE generations SET poem = ? WHERE author = 'model-a' "
                     "AND poem_id = 'sonnet-0'", (copied,))  # fmt: skip
        conn.commit()
    return run


def test_figure_uniqueness_is_the_tables(limited_run: Path) -> None:
    with RunStore(limited_run, create=False) as store:
        table = ghostwriting_tables(store, cache=False).tables["ghostwriting"]
        ctx = FigureContext(load_run_data(store), labels=run_labels(store))
    with figure_style():
        drawing = FIGURE_KINDS["ghostwriting"][0](ctx)
    (panel,) = [ax for ax in drawing.figure.axes if ax.get_title() == "Uniqueness"]
    bars = [patch.get_height() for patch in panel.patches]
    plt.close(drawing.figure)
    expected = table.set_index("author").loc[["human", "model-a", "model-b"], "uniqueness"]
    assert bars == pytest.approx(expected.tolist(), abs=1e-9), (bars, expected)
    # the copy is found: one of model-a's poems is the unprompted ballad-1 (similarity 1)
    assert expected["model-a"] > expected["model-b"] + 0.1
    assert "every human poem of the run's dataset as in the ghostwriting table" in drawing.caption
