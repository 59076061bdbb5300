"""A run's own dataset file changed since the run was prepared (one annotation corrected): it
was refused as `prepared from dataset 'my_poems' (sha256 …), not 'my_poems' (sha256 …)`, two
identical names. The message now says the file changed, which poems differ, and what to do.
The poems here were written for these tests."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

THINGS = ("kettle", "thimble", "lantern", "ladder", "compass", "willow", "pebble", "mirror")


def _rows(things: tuple[str, ...] = THINGS[:4]) -> list[dict[str, str]]:
    return [
        {
            "form": "limerick",
            "title": f"The {thing.title()}",
            "author": "Nobody Known",
            "content": f"A {thing} that lived by the quay\nWould dream of the wide open sea;\n"
            "It sailed in a cup,\nTill the tide took it up,\nAnd it never came home for its tea.",
            "meter_pattern": "anapestic",
            "rhyme_pattern": "AABBA",
            "theme": "a small voyage",
        }
        for thing in things
    ]


def _write(path: Path, rows: list[dict[str, str]], lineterminator: str = "\n") -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator=lineterminator)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _generate(run: Path, dataset: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        ["generate", "--run", str(run), "--dataset", str(dataset), "--models", "markov",
         "--no-progress"],
    )  # fmt: skip
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture
def prepared(tmp_path: Path) -> tuple[Path, Path]:
    """A run prepared (and generated) from `mine.csv`."""
    dataset = _write(tmp_path / "mine.csv", _rows())
    run = tmp_path / "run"
    status, output = _generate(run, dataset)
    assert status == 0, output
    return run, dataset


def test_a_corrected_annotation_is_named_as_a_change_of_the_file(
    prepared: tuple[Path, Path],
) -> None:
    run, dataset = prepared
    rows = _rows()
    rows[1]["rhyme_pattern"] = "AABBC"
    _write(dataset, rows)
    status, output = _generate(run, dataset)
    assert status == 2
    assert "not 'mine'" not in output  # was: prepared from 'mine' (…), not 'mine' (…)
    assert f"run {run} was prepared from dataset 'mine' ({dataset}, sha256 " in output
    assert "and the file has changed since (it has sha256 " in output
    assert "1 poem changed: limerick-nobody-known-the-thimble-" in output
    assert "(rhyme_pattern). A run keeps the poems and annotations" in output
    assert "use a new --run directory" in output
    assert "Correcting your own dataset mid-study" in output
    assert "put the file back as it was" in output
    _write(dataset, _rows())  # put back: the run goes on
    assert _generate(run, dataset)[0] == 0


def test_changed_removed_and_new_poems_are_named(prepared: tuple[Path, Path]) -> None:
    run, dataset = prepared
    rows = _rows(("kettle", "thimble", "lantern", "compass"))  # ladder out, compass in
    rows[0]["content"] = rows[0]["content"].replace("quay", "key")  # another derived id
    _write(dataset, rows)
    status, output = _generate(run, dataset)
    assert status == 2
    kettle = r"limerick-nobody-known-the-kettle-[0-9a-f]{8}"
    assert re.search(rf"1 poem changed: {kettle} \(now {kettle}\) \(content\); ", output)
    assert "; 1 poem no longer in the file: limerick-nobody-known-the-ladder-" in output
    assert "; 1 poem new in the file: limerick-nobody-known-the-compass-" in output


def test_the_same_poems_reordered_or_with_other_line_endings(
    prepared: tuple[Path, Path],
) -> None:
    run, dataset = prepared
    _write(dataset, _rows()[::-1])
    status, output = _generate(run, dataset)
    assert status == 2 and "has changed since" in output
    assert ": the same poems, in another order." in output
    _write(dataset, _rows(), lineterminator="\r\n")
    status, output = _generate(run, dataset)
    assert status == 2
    assert ": the same poems and annotations; the bytes differ where the loader" in output


def test_many_changes_are_named_up_to_five_then_counted(tmp_path: Path) -> None:
    dataset = _write(tmp_path / "mine.csv", _rows(THINGS))
    run = tmp_path / "run"
    assert _generate(run, dataset)[0] == 0
    rows = _rows(THINGS)
    for row in rows:
        row["theme"] = "a long voyage"
    _write(dataset, rows)
    status, output = _generate(run, dataset)
    assert status == 2
    assert "8 poems changed: " in output and "(theme), and 3 more. A run keeps" in output
    assert output.count("(theme)") == 5


def test_another_dataset_is_still_named_as_another(prepared: tuple[Path, Path]) -> None:
    run, dataset = prepared
    other = _write(dataset.with_name("other.csv"), _rows()[:2])
    status, output = _generate(run, other)
    assert status == 2
    assert "was prepared from dataset 'mine' (sha256 " in output
    assert "not 'other' (sha256 " in output and "use another --run directory" in output
