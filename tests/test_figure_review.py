"""Figures as a reviewer reads them: authors in natural order, the radar chart's words and
ticks, the lexical figure's units, and heatmaps drawn as vectors."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import QuadMesh

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.figures_scores import free_label_angle
from poemetric.analysis.imagery import imagery_lexicon
from poemetric.analysis.labels import run_labels
from poemetric.analysis.lexical import word_counts
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import build_synthetic_run, paper_scale_run
from poemetric.store import RunStore
from poemetric.tables.headers import part_label


@pytest.fixture(scope="module")
def paper_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic 31-author judged run, small in poems."""
    path = tmp_path_factory.mktemp("review") / "run"
    with paper_scale_run(path, prompts={"ballad": 2, "sonnet": 1}):
        pass
    return path


def _context(run: Path, **options: object) -> FigureContext:
    with RunStore(run, create=False) as store:
        return FigureContext(load_run_data(store), judge="gemini-2.5-pro",
                             labels=run_labels(store), **options)  # type: ignore[arg-type]  # fmt: skip


def test_figures_list_authors_in_natural_order(paper_run: Path) -> None:
    """The form-by-poem-form heatmap listed Qwen2.5-14B before Qwen2.5-3B (a string sort)."""
    with figure_style():
        drawing = FIGURE_KINDS["form_heatmap"][0](_context(paper_run))
    rows = [t.get_text() for t in drawing.figure.axes[0].get_yticklabels()]
    plt.close(drawing.figure)
    assert rows.index("Qwen2.5-3B-Instruct") < rows.index("Qwen2.5-14B-Instruct"), rows
    assert rows.index("Qwen2.5-14B-Instruct") < rows.index("Qwen2.5-72B-Instruct"), rows


def test_fig_9_legend_names_the_parts_as_the_tables_do(paper_run: Path) -> None:
    """Fig. 9's legend said `basic`, `advanced`, `quality` (the machine names)."""
    with figure_style():
        drawing = FIGURE_KINDS["ranking"][0](_context(paper_run))
    legend = [t.get_text() for t in drawing.figure.legends[0].get_texts()]
    plt.close(drawing.figure)
    assert legend == ["Basic", "Advanced", "Quality", "POEMetric score (95% CI)"]
    assert legend[:3] == [part_label(p) for p in ("basic", "advanced", "quality")]


def test_radar_caption_counts_its_llms_in_words(paper_run: Path) -> None:
    """With one model the caption read "the human poets and the 1 best LLMs"."""
    with figure_style():
        one = FIGURE_KINDS["radar"][0](_context(paper_run, authors=["human", "gpt-4o"]))
        every = FIGURE_KINDS["radar"][0](_context(paper_run))
    for drawing in (one, every):
        assert text_problems(drawing.figure) == []
        plt.close(drawing.figure)
    assert "of the human poets and GPT-4o, judged by" in one.caption, one.caption
    assert "best LLMs" not in one.caption and "1 best" not in one.caption
    assert "the human poets and the 7 best LLMs by POEMetric score" in every.caption


def test_radar_tick_labels_sit_where_fewest_lines_run(paper_run: Path) -> None:
    """The radial labels 2-5 sat at matplotlib's 22.5 degrees, on the data lines, as large and
    dark as the text: they now go half-way between the two spokes where the fewest lines pass
    near them, small and grey with a white halo."""
    # Ten spokes; the lines run near 4 and 3 except from spoke 6 to spoke 7 (216-252 degrees).
    high, low = np.full(10, 4.1), np.full(10, 3.1)
    high[[6, 7]], low[[6, 7]] = 4.6, 3.6
    assert free_label_angle(np.array([high, low])) == pytest.approx(234.0)
    with figure_style():
        drawing = FIGURE_KINDS["radar"][0](_context(paper_run))
    axis = drawing.figure.axes[0]
    labels = [t for t in axis.texts if t.get_text() in {"2", "3", "4", "5"}]
    plt.close(drawing.figure)
    assert [t.get_text() for t in labels] == ["2", "3", "4", "5"]
    assert not any(t.get_text() for t in axis.get_yticklabels())  # none at 22.5 degrees
    angles = {round(float(np.degrees(t.get_position()[0])), 6) for t in labels}
    assert len(angles) == 1 and (angles.pop() / 36) % 1 == pytest.approx(0.5)  # between spokes
    for text in labels:
        assert text.get_fontsize() <= 6 and text.get_color() == "0.4" and text.get_path_effects()


@pytest.mark.parametrize("authors", [["human", "gpt-4o", "qwq-32b"], []], ids=["few", "all"])
def test_lexical_figure_gives_mtld_in_tokens_and_ticks_alike(
    paper_run: Path, authors: list[str]
) -> None:
    """MTLD's axis had no unit, and vertical bars labelled their ticks "0.0", "0.2", "1.0"
    where horizontal bars (the same figure with more authors) said "0", "0.2", "1"."""
    with figure_style():
        drawing = FIGURE_KINDS["lexical"][0](_context(paper_run, authors=authors, width=3.3))
    FigureCanvasAgg(drawing.figure).draw()
    titles = [axis.get_title() for axis in drawing.figure.axes]
    ticks = {
        title: [
            label.get_text()
            for label in (axis.get_xticklabels() if authors == [] else axis.get_yticklabels())
        ]
        for title, axis in zip(titles, drawing.figure.axes, strict=True)
    }
    plt.close(drawing.figure)
    mtld = next(title for title in titles if title.startswith("MTLD"))
    assert " ".join(mtld.split()) == "MTLD (tokens)", titles
    assert "tokens of a run of words" in drawing.caption
    assert ticks["TTR"][0] == "0" and ticks["TTR"][-1] == "1", ticks
    assert not [t for labels in ticks.values() for t in labels if t.endswith(".0")], ticks


@pytest.mark.parametrize("kind", ["heatmap", "form_heatmap", "opening_imagery"])
def test_heatmaps_are_vector_in_pdf(paper_run: Path, kind: str) -> None:
    """Heatmaps (App. H, Figs. 10-11, form by poem form) were bitmaps inside the vector PDF
    (`imshow`, and the colour bar that matplotlib rasterizes): blurred when scaled in print."""
    with figure_style():
        drawing = FIGURE_KINDS[kind][0](_context(paper_run))
    pdf = io.BytesIO()
    drawing.figure.savefig(pdf, format="pdf")
    plt.close(drawing.figure)
    assert b"/Subtype /Image" not in pdf.getvalue()
    assert len(pdf.getvalue()) < 120_000  # 31 authors x 10 cells: about 40 kB


@pytest.mark.parametrize("kind", ["top_words", "imagery", "opening_imagery"])
def test_word_heatmap_colours_start_at_zero(paper_run: Path, kind: str) -> None:
    """The word and image heatmaps (Figs. 10-11) coloured from the smallest share shown: an
    image in 80% of an author's poems was as dark as a 0% opening word beside it."""
    with figure_style():
        drawing = FIGURE_KINDS[kind][0](_context(paper_run, authors=["human", "gpt-4o"]))
    maps = [axis for axis in drawing.figure.axes if axis.get_label() != "<colorbar>"]
    meshes = [c for axis in maps for c in axis.collections if isinstance(c, QuadMesh)]
    plt.close(drawing.figure)
    assert len(meshes) == (2 if kind == "opening_imagery" else 1)
    # Some map has no 0% cell: its colours started at its smallest share.
    assert max(float(np.min(mesh.get_array())) for mesh in meshes) > 0
    for mesh in meshes:
        assert mesh.get_clim() == (0.0, pytest.approx(float(np.max(mesh.get_array()))))


def test_ghostwriting_figure_gives_the_raplyzer_unit(paper_run: Path) -> None:
    """The Raplyzer panel had no unit beside two 0-1 panels under one axis label "mean per
    poem": its rhyme factor is a length in vowels, not a share, and may pass 1."""
    with figure_style():
        drawing = FIGURE_KINDS["ghostwriting"][0](_context(paper_run, width=3.3))
    titles = [" ".join(axis.get_title().split()) for axis in drawing.figure.axes]
    plt.close(drawing.figure)
    assert "Raplyzer (vowels)" in titles, titles
    assert "in vowels" in drawing.caption and "not bounded by 1" in drawing.caption


def test_word_heatmaps_give_each_author_its_share_of_every_word_shown(tmp_path: Path) -> None:
    """The word figures counted each author's words only within its own top 200 (50 opening
    words, 100 images): a word every poem of one model used, and the human poets less often
    than their 200 commonest, was drawn at 0% ("0.00") for the human poets and ranked too
    low."""
    lexicon = imagery_lexicon(include_dataset=False)
    images = sorted(lexicon)[:121]
    words = [f"bq{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(121)]
    assert not set(words) & lexicon and "quixel" not in lexicon
    # 120 human poems, each with its own opening word, two content words twice and an image
    pairs = zip(words[:120], images[:120], strict=True)
    # (in two lines each: a one-line answer is not a poem, and the word figures leave it out)
    human = [f"{w} {w}a {w}a\n{w}b {w}b {image}" for w, image in pairs]
    human[0] = f"Quixel {words[0]}a {words[0]}a\n{words[0]}b {words[0]}b quixels {images[120]}"
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=("human", "model-a"), poems_per_form={"sonnet": 120},
                             judges=(), with_form_checks=False) as store:  # fmt: skip
        ids = [row[0] for row in store.conn.execute(
            "SELECT generation_id FROM generations WHERE author = 'human' ORDER BY poem_id")]  # fmt: skip
        with store.transaction():
            store.conn.executemany("UPDATE generations SET poem = ? WHERE generation_id = ?",
                                   list(zip(human, ids, strict=True)))  # fmt: skip
            store.conn.execute("UPDATE generations SET poem = ? WHERE author = 'model-a'",
                               (f"Quixel quixels\n{images[120]}",))  # fmt: skip
    counts = word_counts(human)
    expected = {
        "top_words": ("quixels", 100 * counts["quixels"] / sum(counts.values())),
        "opening_words": ("Quixel", 100 / 120),
        "imagery": (images[120], 100 / 120),
    }
    for kind, (word, share) in expected.items():
        with figure_style():
            drawing = FIGURE_KINDS[kind][0](_context(run))
        axis = drawing.figure.axes[0]
        rows = [t.get_text() for t in axis.get_yticklabels()]
        cells = {tuple(np.round(t.get_position())): t.get_text() for t in axis.texts}
        plt.close(drawing.figure)
        assert word in rows[:3], (kind, rows)  # among the top words
        human_cell = cells[(0, rows.index(word))]  # (column, row): Human is the first column
        assert human_cell == f"{share:.2f}" != "0.00", (kind, human_cell)


@pytest.mark.parametrize("kind", ["rule_based", "form_accuracy", "lexical", "ghostwriting"])
def test_31_authors_fit_an_acl_column(paper_run: Path, kind: str) -> None:
    """At ACL's column width (3.03 in) the 31 authors' bar panels were stacked one under
    another, taller than a page, and squeezed into it: their name labels overlapped. Panels go
    side by side now, narrower, before rows are squeezed."""
    with figure_style():
        drawing = FIGURE_KINDS[kind][0](_context(paper_run, width=3.03))
    problems = text_problems(drawing.figure)
    plt.close(drawing.figure)
    assert problems == []


def test_radar_caption_calls_the_markov_baseline_a_model_not_an_llm(tmp_path: Path) -> None:
    """A run of the human poets, two LLMs and the Markov baseline: its radar caption counted the
    baseline among "the 3 LLMs shown" (the same with it among "the 2 best LLMs")."""
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=("human", "model-a", "model-b", "markov"),
                             poems_per_form=1, judges=("gemini-2.5-pro",)) as store:  # fmt: skip
        store.conn.execute("UPDATE generations SET provider = 'markov' WHERE author = 'markov'")
        store.conn.commit()
    with figure_style():
        every = FIGURE_KINDS["radar"][0](_context(run))
        best = FIGURE_KINDS["radar"][0](_context(run, authors=["human", "markov", "model-a"]))
        llms_only = FIGURE_KINDS["radar"][0](_context(run, authors=["human", "model-a"]))
    for drawing in (every, best, llms_only):
        plt.close(drawing.figure)
    assert "the human poets and the 3 models shown" in every.caption, every.caption
    assert "LLM" not in every.caption.split(", judged by")[0]
    assert "the human poets and the 2 models shown" in best.caption, best.caption
    assert "of the human poets and model-a, judged by" in llms_only.caption, llms_only.caption
