"""`figures` ends with a count of what it drew and skipped, as `analyze` ends with the files it
wrote: it ended on its list of paths, or on a run of "skipped" lines with exit status 0."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


def test_figures_ends_with_what_it_drew_and_skipped(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=()).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n  - {name: words, kind: top_words}\n  - {name: opening, kind: opening_words}\n"
        "  - {name: bars, kind: dimension_bars}\n",
        encoding="utf-8",
    )
    out = tmp_path / "figures"
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--out", str(out)]
    result = CliRunner().invoke(app, [*command, "--format", "png,svg"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    # Without white space: a console made at import keeps its width (80 when another test
    # imported the command first), so the line may wrap, even inside the path.
    flat = "".join(result.output.split())
    expected = f"wrote 2 figures (6 files) to {out}; 1 skipped (above)"
    assert flat.endswith("".join(expected.split())), result.output
    assert len(list(out.iterdir())) == 6
