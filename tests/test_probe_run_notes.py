"""`probe run ... > results.md`: stdout holds only the summary line and the tables
(docs/probes.md); the notes beside them (texts reused from a stopped run's cache, table files
written) go to stderr. They were printed on stdout, into results.md."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
from test_probe_resume import lear_pairs
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.pairs import write_jsonl
from poemetric.probes.scorers.cache import ScoreCache, cache_path
from poemetric.probes.scorers.ngram import NgramScorer


def test_probe_run_notes_go_to_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = lear_pairs(1)
    write_jsonl(pairs, tmp_path / "pairs.jsonl")
    with closing(ScoreCache(cache_path(tmp_path / "s.jsonl"))) as cache:  # a stopped run's
        NgramScorer(3, cache=cache).score(pairs)
    monkeypatch.chdir(tmp_path)
    args = ["probe", "run", "pairs.jsonl", "--scorer", "ngram", "-o", "s.jsonl"]
    result = CliRunner().invoke(app, [*args, "--tables", "tables", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "reused" in result.stderr and "s.jsonl.cache.sqlite" in result.stderr
    assert "tables: " in result.stderr and "files in tables" in result.stderr
    stdout = result.stdout
    assert "reused" not in stdout and "tables: " not in stdout
    assert stdout.startswith(f"{len(pairs)} pairs scored by ngram:3 -> s.jsonl\n")
    assert "| Scorer | Task |" in stdout  # the tables stay on stdout
