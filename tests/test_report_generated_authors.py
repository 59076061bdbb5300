"""The report and the figures called every generated author an LLM, the Markov baseline too
(the offline default generator): "LLM authors" and "Poems (LLM, successful)" in the overview,
"LLMs" in the charts' legends, "an LLM poem" in the repetition notes of the lexical table and the
rule-based figure. A run with the baseline says "models" / "a generated poem"; a run of LLMs only
keeps the paper's words."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import DemoTemplate
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app

LEGEND = re.compile(r'class="legend-label">([^<]*)</text>')


def _report(run: Path, *args: str) -> str:
    page = run.parent / f"{run.name}.html"
    result = CliRunner().invoke(app, ["report", "--run", str(run), "--out", str(page), *args])
    assert result.exit_code == 0, result.output
    return page.read_text(encoding="utf-8")


def _synthetic_run(run: Path, authors: tuple[str, ...], markov: str | None = None) -> Path:
    with build_synthetic_run(run, authors=authors, poems_per_form=1) as store:
        if markov:
            store.conn.execute("UPDATE generations SET provider = 'markov' WHERE author = ?",
                               (markov,))  # fmt: skip
            store.conn.commit()
    return run


def test_the_demo_report_and_figures_do_not_call_the_markov_baseline_an_llm(
    demo_run_template: DemoTemplate,
) -> None:
    """`poemetric demo` (the human poets and the Markov baseline): its report and its figure
    captions, as the demo wrote them."""
    run = demo_run_template.run
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "Model authors" in page and "Poems (model, successful)" in page
    assert "LLM authors" not in page and "Poems (LLM" not in page
    legends = LEGEND.findall(page)
    assert "Models" in legends and "LLMs" not in legends, legends
    assert "share of a generated poem's words" in page
    assert "LLM poem" not in page
    captions = {p.name: p.read_text(encoding="utf-8") for p in (run / "figures").glob("*.txt")}
    assert "share of a generated poem's tokens" in captions["rule-based.caption.txt"]
    assert [name for name, text in captions.items() if "LLM" in text] == []


def test_judged_charts_name_llms_and_the_markov_baseline_models(tmp_path: Path) -> None:
    """With judgments, the leaderboard and the per-dimension charts show the baseline too."""
    run = _synthetic_run(tmp_path / "mixed", ("human", "model-a", "markov"), markov="markov")
    legends = LEGEND.findall(_report(run))
    assert "Models (a colour each)" in legends, legends
    assert not [label for label in legends if "LLM" in label], legends


def test_a_run_of_llms_only_keeps_the_papers_words(tmp_path: Path) -> None:
    run = _synthetic_run(tmp_path / "llms", ("human", "model-a", "model-b"))
    page = _report(run)
    assert "LLM authors" in page and "Poems (LLM, successful)" in page
    assert "share of an LLM poem's words" in page
    legends = LEGEND.findall(page)
    assert "LLMs (a colour each)" in legends and "Models" not in " ".join(legends), legends
