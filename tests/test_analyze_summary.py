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


def test_summary_of_short_names_that_just_fit_is_not_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short author names: rich measured the one table as fitting 80 columns by wrapping the
    "form pass" header, then drew it with the score header cut to `sco…` (the table was 81 wide
    without that wrap). It is split instead, every header and number whole."""
    run = tmp_path / "run"
    build_synthetic_run(run, authors=("human", "model-a", "model-b"), poems_per_form=1).close()
    monkeypatch.setattr(analyze_cmd.console, "width", 80)
    result = CliRunner().invoke(app, ["analyze", "--run", str(run)])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert max(map(len, result.output.splitlines())) <= 80
    assert "score" in result.output and "form pass" in result.output


def test_summary_keeps_an_author_none_of_whose_answers_is_a_poem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that refused every prompt has no lexical row (its answers are not poems), and the
    summary, whose rows were the lexical table's, left it out: the terminal showed the other
    authors only, though form_checks.csv gives it a pass rate of 0."""
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=("human", "model-a"), poems_per_form=1) as store:
        prompts = store.query("SELECT prompt_id, poem_id FROM generations WHERE author = 'human'")
        with store.transaction():
            for index, (prompt_id, poem_id) in enumerate(prompts):
                generation_id = f"refusal{index}"
                store.conn.execute(
                    "INSERT INTO generations (generation_id, prompt_id, poem_id, author, "
                    "sample_index, status, poem, extraction_notes, created_at) VALUES "
                    "(?, ?, ?, 'refuser', 0, 'ok', ?, '[]', '2025-01-01T00:00:00Z')",
                    (generation_id, prompt_id, poem_id, "I'm sorry, but I can't help with that."),
                )
                store.conn.execute(
                    "INSERT INTO form_checks (generation_id, checker_version, passed, "
                    "meter_score, rhyme_score, form_score, explanation, created_at) VALUES "
                    "(?, 'synthetic', 0, 0, 0, 0, '{}', '2025-01-01T00:00:00Z')",
                    (generation_id,),
                )
    monkeypatch.setattr(analyze_cmd.console, "width", 250)
    result = CliRunner().invoke(app, ["analyze", "--run", str(run)])
    assert result.exit_code == 0, result.output
    form = pd.read_csv(run / "analysis" / "form_checks.csv")
    assert form.loc[form["author"] == "refuser", "pass_rate"].tolist() == [0.0]
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if "│" in line}
    assert list(rows) == ["Human", "model-a", "refuser"]
    cells = [cell.strip() for cell in rows["refuser"].split("│")[1:-1]]
    assert cells[:5] == ["refuser", "0", "0.00", "–", "–"], cells
