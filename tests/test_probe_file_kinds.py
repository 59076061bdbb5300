"""A pairs file where a scores file belongs (`probe report pairs.jsonl`) or the other way round
(`probe run scores.jsonl`) is named for what it is, not reported as a missing field."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.results import probe_table_rows
from poemetric.probes.scorers.base import read_scores


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    pairs, scores = tmp_path / "pairs.jsonl", tmp_path / "s-ngram.jsonl"
    runner = CliRunner()
    built = runner.invoke(
        app,
        ["probe", "build", "lear-limericks", "-n", "2", "-t", "rhyme_line_swap", "-o", str(pairs)],
    )
    assert built.exit_code == 0, built.output
    scored = runner.invoke(
        app, ["probe", "run", str(pairs), "--scorer", "ngram", "-o", str(scores)]
    )
    assert scored.exit_code == 0, scored.output
    return pairs, scores


def test_a_scores_file_given_to_probe_run_is_named_as_one(files: tuple[Path, Path]) -> None:
    _pairs, scores = files
    out = scores.with_name("again.jsonl")
    result = CliRunner().invoke(app, ["probe", "run", str(scores), "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        f"error: {scores}:1: a scores file (what `probe run` writes), not a pairs file: give the "
        "pairs file that `probe build` wrote; `probe report` reads scores files"
    )
    assert not out.exists()


def test_a_pairs_file_given_to_probe_report_is_named_as_one(files: tuple[Path, Path]) -> None:
    pairs, scores = files
    result = CliRunner().invoke(app, ["probe", "report", str(scores), str(pairs)])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        f"error: {pairs}:1: a pairs file (what `probe build` writes), not a scores file: score "
        f"it first, e.g. `poemetric probe run {pairs} --scorer ngram --output scores.jsonl`"
    )


def test_building_pairs_over_a_scores_file_is_refused(files: tuple[Path, Path]) -> None:
    _pairs, scores = files
    before = scores.read_bytes()
    result = CliRunner().invoke(
        app, ["probe", "build", "lear-limericks", "-n", "1", "-o", str(scores)]
    )
    assert result.exit_code == 2, result.output
    assert f"-o {scores} holds scores (from `probe run`)" in " ".join(result.output.split())
    assert scores.read_bytes() == before


def test_scoring_over_a_pairs_file_is_refused_and_over_scores_replaces_them(
    files: tuple[Path, Path],
) -> None:
    pairs, scores = files
    other = pairs.with_name("other-pairs.jsonl")
    other.write_bytes(pairs.read_bytes())
    runner = CliRunner()
    result = runner.invoke(app, ["probe", "run", str(pairs), "-o", str(other)])
    assert result.exit_code == 2, result.output
    assert f"-o {other} holds pairs (from `probe build`)" in " ".join(result.output.split())
    assert other.read_bytes() == pairs.read_bytes()
    again = runner.invoke(app, ["probe", "run", str(pairs), "-n", "1", "-o", str(scores)])
    assert again.exit_code == 0, again.output  # a re-run replaces its own kind of file
    assert len(scores.read_text().splitlines()) == 1


def test_every_field_and_column_written_is_named_in_the_docs(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    """docs/probes.md said "each output line has both log-probability sums ... token counts"
    without the names a reader must use (`original_logprob`, `acc_sum`, ...): every key of a
    real scores file and every column of the tables `probe report` writes is named there."""
    import csv
    import json

    docs = (Path(__file__).resolve().parents[1] / "docs" / "probes.md").read_text(encoding="utf-8")
    _, scores = files
    keys = set(json.loads(scores.read_text(encoding="utf-8").splitlines()[0]))
    keys |= set(json.loads(scores.read_text(encoding="utf-8").splitlines()[0])["details"])
    runner = CliRunner()
    every = tmp_path / "every-pairs.jsonl"  # the offline tasks: rows for bpomp and deletion too
    built = runner.invoke(app, ["probe", "build", "lear-limericks", "-n", "2", "-o", str(every)])
    assert built.exit_code == 0, built.output
    scored = runner.invoke(
        app, ["probe", "run", str(every), "--scorer", "ngram", "-o", str(scores)]
    )
    assert scored.exit_code == 0, scored.output
    tables = tmp_path / "tables"
    result = runner.invoke(app, ["probe", "report", str(scores), "--output", str(tables)])
    assert result.exit_code == 0, result.output
    for name in ("accuracy", "bpomp", "deletion"):
        with (tables / f"probe_{name}.csv").open(encoding="utf-8") as handle:
            keys |= set(next(csv.reader(handle)))
    # No last_line pair offline (its candidates need a model to rhyme), so its table is not
    # written (`tables_without_ours`); its columns are named all the same.
    assert not (tables / "probe_last_line.csv").exists()
    keys |= set(probe_table_rows(read_scores(str(scores)))["last_line"].columns)
    missing = sorted(key for key in keys if f"`{key}`" not in docs)
    assert not missing, f"not named in docs/probes.md: {missing}"


def test_a_table_given_as_a_pairs_file_is_named_as_one(tmp_path: Path) -> None:
    """A CSV given to `probe run` (the dataset instead of the pairs built from it) said only
    "not valid JSON: Expecting value": it is now named as a table, and the pairs file is said
    to be what `probe build` writes (a scores file, for `probe report`, what `probe run` does)."""
    demo = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "poems.csv"
    tsv = tmp_path / "pairs.jsonl"  # the name does not make it JSONL
    tsv.write_text("id\toriginal\tcorrupted\n1\ta b\tb a\n", encoding="utf-8")
    poem = tmp_path / "poem.txt"
    poem.write_text("My heart is full of wonder\n", encoding="utf-8")
    pairs_file = "a pairs file is the JSONL file that `poemetric probe build` writes"
    expected = {
        demo: f"this looks like a CSV file (a table), not JSONL; {pairs_file}",
        tsv: f"this looks like a TSV file (a table), not JSONL; {pairs_file}",
        poem: pairs_file,
    }
    out = tmp_path / "scores.jsonl"
    for given, said in expected.items():
        result = CliRunner().invoke(app, ["probe", "run", str(given), "-o", str(out)])
        assert result.exit_code == 2, result.output
        assert result.stderr == (f"error: {given}:1: not valid JSON: Expecting value; {said}\n"), (
            result.stderr
        )
        assert not out.exists()
    report = CliRunner().invoke(app, ["probe", "report", str(demo)])
    assert report.exit_code == 2 and report.stderr == (
        f"error: {demo}:1: not valid JSON: Expecting value; this looks like a CSV file (a "
        "table), not JSONL; a scores file is the JSONL file that `poemetric probe run` writes\n"
    ), report.stderr
