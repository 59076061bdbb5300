"""`analyze` prints its summary readably at 80 columns: with judge scores the one table (ten
columns) cut every number to `0.9…` / `4.…`; now it is split in two tables when it does not fit,
and stays one table on a wide terminal."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import analyze_cmd, app

AUTHORS = ("human", "deepseek-r1-distill-qwen-1.5b", "gemini-2.5-pro")


@pytest.mark.parametrize("judges", [("judge-x",), ("judge-x", "judge-y")], ids=len)
def test_summary_keeps_every_number_whole_at_80_columns(
    tmp_path: Path, judges: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, authors=AUTHORS, poems_per_form=1, judges=judges).close()
    # The command prints through a console made at import, as wide as the terminal was then.
    monkeypatch.setattr(analyze_cmd.console, "width", 80)
    narrow = CliRunner().invoke(app, ["analyze", "--run", str(run)])
    assert narrow.exit_code == 0, narrow.output
    assert "…" not in narrow.output
    assert max(map(len, narrow.output.splitlines())) <= 80
    groups = pd.read_csv(run / "analysis" / "group_scores.csv")
    for score in groups[groups["part"] == "poemetric"]["mean"]:
        assert f"{score:.2f}" in narrow.output
    lexical = pd.read_csv(run / "analysis" / "lexical.csv")
    for mattr in lexical["mattr_mean"]:
        assert f"{mattr:.3f}" in narrow.output
    assert "DeepSeek-R1-Distill-Qwen-1.5B" in narrow.output
    for judge in judges:
        assert f"Judge scores, {judge}: means" in narrow.output
    monkeypatch.setattr(analyze_cmd.console, "width", 250)
    wide = CliRunner().invoke(app, ["analyze", "--run", str(run)])
    assert wide.exit_code == 0, wide.output
    assert "Judge scores" not in wide.output and "…" not in wide.output


def test_summary_says_1_poem_not_1_poems(tmp_path: Path) -> None:
    """Two experts who share one poem: the summary printed "experts (all items, 1 poems, …)"."""
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=AUTHORS, poems_per_form=1) as store:
        first, second = (r[0] for r in store.query(
            "SELECT generation_id FROM generations ORDER BY generation_id LIMIT 2"))  # fmt: skip
    experts = tmp_path / "experts.csv"
    scores = ",".join(["4"] * 10)
    rows = [f"E1,{first},{scores}", f"E2,{first},{scores}", f"E1,{second},{scores}"]
    header = "expert,generation_id,form,theme,vocabulary,creativity,idiosyncrasy,"
    header += "emotional_resonance,imagery,literary_devices,overall_quality,human_authorship"
    experts.write_text("\n".join([header, *rows]) + "\n")
    result = CliRunner().invoke(app, ["analyze", "--run", str(run), "--experts", str(experts)])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "experts (all items, 1 poem, 10 paired ratings)" in output, output
    assert "1 poems" not in output
