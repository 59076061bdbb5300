"""`probe run` with a model scorer says that it is loading the model before the progress bar
starts: on two busy cores SmolLM2 took 40-70 s to load, and a run in a log file said nothing
at all in that time (the first progress line comes after POEMETRIC_PROGRESS_EVERY seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_probe_scorers import pair, tiny_bert  # noqa: F401 (a fixture)
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.pairs import write_jsonl


def probe_run(*args: str) -> str:
    """stderr of `poemetric probe run ARGS`, whose stdout holds no note: `> results.md`."""
    result = CliRunner().invoke(app, ["probe", "run", *args])
    assert result.exit_code == 0, result.output
    assert "loading" not in result.stdout and "loaded in" not in result.stdout
    return result.stderr


def test_a_model_scorer_says_it_is_loading_the_model_unless_told_no_progress(
    tiny_bert: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = ["a lamp in the harbour", "the gulls are asleep"]
    write_jsonl(
        [pair(n, text, text.replace(" ", " old ", 1)) for n, text in enumerate(texts)],
        tmp_path / "pairs.jsonl",
    )
    monkeypatch.chdir(tmp_path)
    scorer = f"hf:{tiny_bert}"
    said = probe_run("pairs.jsonl", "--scorer", scorer, "--device", "cpu", "-o", "s.jsonl")
    lines = said.splitlines()
    name = f"{scorer}/pll-original"  # the scorer as named in the scores file
    loading = lines.index(f"loading {name} ...")
    loaded = lines.index(next(line for line in lines if line.startswith(f"{name} loaded in ")))
    assert loading < loaded and lines[loaded].endswith(" s")
    quiet = probe_run(
        "pairs.jsonl", "--scorer", scorer, "--device", "cpu", "-o", "q.jsonl", "--no-progress"
    )
    assert "loading" not in quiet and "loaded in" not in quiet
