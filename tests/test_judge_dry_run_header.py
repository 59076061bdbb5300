"""`judge` (`--dry-run` or not) printed no line saying which run and dataset it works on, where
`generate` begins `run runs/x: dataset demo (16 poems), 1 model x 1 sample`; both begin so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app


def first_line(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--no-progress"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()[0]


def test_judge_begins_with_the_run_line_generate_begins_with(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    run = str(tmp_path / "run")
    generate = ["generate", "--run", run, "--dataset", "demo", "--models", "markov"]
    assert first_line(*generate, "--limit", "2") == (
        f"run {run}: dataset demo (2 poems), 1 model x 1 sample"
    )
    for name in ("ja", "jb"):  # never called: a dry run
        user_model("judges", name, f"name: {name}\nprovider: openai-compatible\nmodel: m\n"
                   "base_url: http://127.0.0.1:9/v1\napi_key_env: false\n")  # fmt: skip
    judge = ["judge", "--run", run, "--judge", "ja,jb", "--dry-run"]
    assert first_line(*judge, "--samples", "3") == (
        f"run {run}: dataset demo (2 poems), 2 judges x 3 samples"
    )
    assert (
        first_line(*judge, "--limit", "1")
        == f"run {run}: dataset demo (1 poem), 2 judges x 1 sample"
    )
    # The run keeps its 2 prompts without --limit (it was widened to all 16); --limit all widens.
    assert first_line(*generate, "--dry-run") == (
        f"run {run}: dataset demo (2 poems), 1 model x 1 sample"
    )
    assert first_line(*generate, "--limit", "all", "--dry-run") == (
        f"run {run}: dataset demo (16 poems), 1 model x 1 sample"
    )


def test_recognise_and_style_match_begin_with_the_run_line_too(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """`judge recognise` and `ghostwriting style-match` printed no such line."""
    run = str(tmp_path / "run")
    generate = ["generate", "--run", run, "--dataset", "demo", "--models", "markov", "--limit", "3"]
    first_line(*generate)
    user_model("judges", "ja", "name: ja\nprovider: openai-compatible\nmodel: m\n"
               "base_url: http://127.0.0.1:9/v1\napi_key_env: false\n")  # fmt: skip
    recognise = ["judge", "recognise", "--run", run, "--judge", "ja", "--dry-run"]
    assert first_line(*recognise) == f"run {run}: dataset demo (3 poems), 1 judge x 1 sample"
    assert first_line(*recognise, "--limit", "2") == (
        f"run {run}: dataset demo (2 poems), 1 judge x 1 sample"
    )
    match = ["ghostwriting", "style-match", "--run", run, "--judge", "ja", "--dry-run"]
    assert first_line(*match) == f"run {run}: dataset demo (3 poems), 1 judge x 4 trials x 1 sample"
    assert first_line(*match, "--authors", "markov", "--limit", "1", "--samples", "2") == (
        f"run {run}: dataset demo (1 poem), 1 judge x 4 trials x 2 samples"
    )
