"""A new run's prompts were rendered twice: once to try the template before anything is made,
then again by `prepare_run` to store them (also in a dry run, which prepares a scratch copy).
They are now rendered once, and what is stored is what was rendered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poemetric import pipeline
from poemetric.cli import app
from poemetric.store import RunStore


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The poem id of each generation prompt rendered."""
    made: list[str] = []
    real = pipeline.render_generation_prompt

    def counted(poem: Any, template: Any = None) -> Any:
        made.append(poem.poem_id)
        return real(poem, template)

    monkeypatch.setattr(pipeline, "render_generation_prompt", counted)
    return made


@pytest.mark.parametrize("dry_run", [["--dry-run"], []])
def test_a_new_runs_prompts_are_rendered_once(
    renders: list[str], tmp_path: Path, dry_run: list[str]
) -> None:
    run = tmp_path / "run"
    args = ["generate", "--run", str(run), "--models", "markov", "--limit", "3", *dry_run]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert len(renders) == len(set(renders)) == 3
    if not dry_run:
        with RunStore(run, create=False) as store:
            stored = store.query("SELECT poem_id FROM prompts")
        assert sorted(row["poem_id"] for row in stored) == sorted(renders)
