"""`probe report` of scores files made on different pairs: the tables put the scorers side by
side, and only the `n` column hinted that their accuracies compared different data. Now a
warning names each scorer's files and how many of its pairs are not scored by every scorer
(pairs of one id built from other texts too), the output says what was done, and
`--common-pairs` compares the scorers on the pairs they all scored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

WIDE = {"COLUMNS": "400"}


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pairs") / "pairs.jsonl"
    command = ["probe", "build", "demo", "--tasks", "rhyme_line_swap", "--output", str(path)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    return path


def score(pairs: Path, out: Path, scorer: str, *more: str) -> Path:
    command = ["probe", "run", str(pairs), "--scorer", scorer, "--output", str(out), *more]
    result = CliRunner().invoke(app, command, env=WIDE)
    assert result.exit_code == 0, result.output
    return out


def n_column(stdout: str) -> dict[str, int]:
    """scorer -> n of the accuracy table's rows."""
    rows = [line.split("|")[1:-1] for line in stdout.splitlines() if "rhyme_line_swap |" in line]
    return {cells[0].strip(): int(cells[2]) for cells in rows if len(cells) > 3}


def test_scorers_on_different_pairs_are_named_and_can_be_restricted(
    pairs: Path, tmp_path: Path
) -> None:
    total = len(pairs.read_text(encoding="utf-8").splitlines())
    assert total > 3
    full = score(pairs, tmp_path / "s-ngram3.jsonl", "ngram")
    few = score(pairs, tmp_path / "s-ngram2.jsonl", "ngram:2", "--limit", "3")
    runner = CliRunner()
    mixed = runner.invoke(app, ["probe", "report", str(full), str(few)], env=WIDE)
    assert mixed.exit_code == 0, mixed.output
    assert "warning: the 2 scorers were not run on the same pairs" in mixed.stderr
    assert f"ngram:3 ({full}): {total} pairs, {total - 3} not scored by every scorer" in (
        mixed.stderr
    )
    assert f"ngram:2 ({few}): 3 pairs, 0 not scored by every scorer" in mixed.stderr
    assert "each scorer on all of its pairs; --common-pairs keeps the 3 pairs" in mixed.stdout
    assert n_column(mixed.stdout) == {"ngram:3": total, "ngram:2": 3}

    common = runner.invoke(
        app, ["probe", "report", str(full), str(few), "--common-pairs"], env=WIDE
    )
    assert common.exit_code == 0, common.output
    assert "only the 3 pairs every scorer scored (--common-pairs)" in common.stdout
    assert n_column(common.stdout) == {"ngram:3": 3, "ngram:2": 3}

    # The same pairs: no warning, whatever the option.
    same = score(pairs, tmp_path / "s-same.jsonl", "ngram:2")
    quiet = runner.invoke(app, ["probe", "report", str(full), str(same)], env=WIDE)
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr
    assert "Pairs differ" not in quiet.stdout


def test_pairs_of_one_id_with_other_texts_are_told_apart(pairs: Path, tmp_path: Path) -> None:
    """A pairs file rebuilt from another version of the poems keeps the ids of the pairs."""
    records = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()]
    records[0]["corrupted"] += "\nand one more line"
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    first = score(pairs, tmp_path / "a.jsonl", "ngram")
    second = score(edited, tmp_path / "b.jsonl", "ngram:2")
    report = CliRunner().invoke(
        app, ["probe", "report", str(first), str(second), "--common-pairs"], env=WIDE
    )
    assert report.exit_code == 0, report.output
    assert "1 pair id names other texts in different files" in report.stderr
    assert n_column(report.stdout) == {"ngram:3": len(records) - 1, "ngram:2": len(records) - 1}
