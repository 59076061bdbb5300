"""`--authors` given an author's display name, the label every table, figure and the report show
("Markov baseline" for markov): `figures` said "neither an author of this run nor a generator
group (did you mean 'baselines'?)", `judge` and `survey build` "no poems by 'Markov baseline'",
`ghostwriting sheets` left it out without a word. Each names the author it labels, as `--models`
and `--judge` do (tests/test_roster_display_names.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

LABELLED = "('Markov baseline' is the display name of 'markov')"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of 2 demo prompts: 2 human and 2 markov poems."""
    path = tmp_path_factory.mktemp("authors") / "run"
    result = CliRunner().invoke(
        app,
        ["generate", "--run", str(path), "--dataset", "demo", "--models", "markov", "--limit",
         "2", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.parametrize(
    ("command", "error"),
    [
        (["figures", "--out", "OUT"],
         f"error: --authors: 'Markov baseline' is neither an author of this run nor a generator "
         f"group {LABELLED}; authors: human, markov"),
        (["judge", "--judge", "gemini-2.5-pro", "--dry-run"],
         f"error: --authors: no poems by 'Markov baseline' {LABELLED} in run RUN; authors: "
         "human, markov"),
        (["ghostwriting", "style-match", "--judge", "gemini-2.5-pro", "--dry-run"],
         f"error: --authors: no poems by 'Markov baseline' {LABELLED} in run RUN; authors: "
         "human, markov"),
        (["survey", "build", "--per-rater", "2"],
         f"error: --authors: no poems by 'Markov baseline' {LABELLED}; authors: human, markov"),
        # It was left out without a word: sheets of the markov poems only.
        (["ghostwriting", "sheets", "--out", "OUT"],
         f"error: --authors: no poems by 'Markov baseline' {LABELLED} in run RUN; authors: "
         "human, markov"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)  # fmt: skip
def test_a_display_name_names_the_author_it_labels(
    run: Path, tmp_path: Path, command: list[str], error: str
) -> None:
    out = tmp_path / "out"
    args = [str(out) if word == "OUT" else word for word in command]
    result = CliRunner().invoke(
        app,
        [*args, "--run", str(run), "--authors", "markov,Markov baseline"],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == error.replace("RUN", str(run))
    assert not out.exists()
