"""The lexical table's caption says its intervals are clipped (docs/analysis.md does): the
demo's SmolLM2 row read "0.30 [0.00, 0.77]" for a Student t interval whose lower end is
-0.17, and nothing in the table said why the interval was not symmetric."""

from __future__ import annotations

from pathlib import Path

from poemetric.analysis import analyze_run
from poemetric.analysis.synthetic import build_synthetic_run


def test_the_lexical_caption_names_the_clipping(tmp_path: Path) -> None:
    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        analyze_run(store).write(tmp_path / "analysis")
    caption = (tmp_path / "analysis" / "lexical.md").read_text(encoding="utf-8").splitlines()[0]
    assert caption.endswith(
        "intervals: Student t, clipped to each measure's range (shares 0-1, their differences "
        "-1 to 1, tokens and MTLD at 0)**"
    ), caption
    tex = (tmp_path / "analysis" / "lexical.tex").read_text(encoding="utf-8")
    assert "clipped to each measure's range" in tex
