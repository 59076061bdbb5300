"""The `generate`/`judge` summary table: how the run found its jobs, apart from what it did."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app


def test_the_summary_tells_the_jobs_found_from_what_this_run_did(tmp_path: Path) -> None:
    """A fresh run of 3 poems read `done 0, pending 3, ok 3`: 3 still pending after the run, yet
    3 ok? The split of the jobs as the run found them is named as such now, apart from the
    outcomes."""
    run = str(tmp_path / "run")
    result = CliRunner().invoke(
        app,
        ["generate", "--no-progress", "--run", run, "--models", "markov", "--limit", "3"],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if line.startswith("┃ model"))
    row = next(line for line in lines if line.startswith("│ markov"))
    cells = dict(
        zip(
            [cell.strip() for cell in header.split("┃")[1:-1]],
            [cell.strip() for cell in row.split("│")[1:-1]],
            strict=True,
        )
    )
    assert "pending" not in cells and "done" not in cells
    assert [cells[c] for c in ("jobs", "done before", "from cache", "to call", "ok")] == [
        "3", "0", "0", "3", "3"
    ]  # fmt: skip
    assert (
        "as this run found them; ok, errors and the columns after them are what this run did"
        in (" ".join(result.output.split()))
    )
