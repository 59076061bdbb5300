"""A folder given as a dataset is said to be a folder, with the dataset files it holds.

`poemetric dataset validate /tmp` said "unknown dataset '/tmp'", as if a name were mistyped;
a user who gave the folder of their poems (`--dataset data/`) was not told to name the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

runner = CliRunner()


def _error(args: list[str]) -> str:
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    return line


@pytest.mark.parametrize(
    "command",
    [["dataset", "validate"], ["probe", "build", "-o", "pairs.jsonl"]],
    ids=["dataset validate", "probe build"],
)
def test_a_folder_of_dataset_files_lists_a_few(tmp_path: Path, command: list[str]) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("b.jsonl", "a.csv", "notes.txt", "card.yaml", "c.parquet", "d.tsv"):
        (folder / name).write_text("x\n", encoding="utf-8")
    (folder / "sub.csv").mkdir()  # a folder is no dataset file, whatever its name
    line = _error([*command, str(folder)])
    assert line.startswith(f"error: dataset '{folder}' is a folder, not a file: give a dataset")
    assert "unknown dataset" not in line
    listed = ", ".join(str(folder / name) for name in ("a.csv", "b.jsonl", "c.parquet"))
    assert line.endswith(f"; the folder holds {listed} and 2 more")


def test_a_folder_without_dataset_files_says_what_to_give(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x\n", encoding="utf-8")
    line = _error(["dataset", "validate", str(tmp_path)])
    assert line == (
        f"error: dataset '{tmp_path}' is a folder, not a file: give a dataset name (demo, "
        "lear-limericks, poemetric) or the path to a .csv/.tsv/.jsonl/.ndjson/.parquet/.pq file"
    )


def test_the_card_of_a_folder_is_listed_after_its_data(tmp_path: Path) -> None:
    (tmp_path / "card.yaml").write_text("name: x\n", encoding="utf-8")
    (tmp_path / "poems.csv").write_text("x\n", encoding="utf-8")
    line = _error(["dataset", "validate", str(tmp_path)])
    assert line.endswith(f"; the folder holds {tmp_path / 'poems.csv'}, {tmp_path / 'card.yaml'}")


def test_a_folder_of_poems_as_text_files_is_told_how_to_make_a_dataset(tmp_path: Path) -> None:
    """A folder of poems, one .txt file each, was told only to give a dataset file, and such a
    file "unsupported file type '.txt'; use one of ...": neither said that a dataset is a
    table of poems with their form and annotations."""
    for name in ("one.txt", "two.txt", "three.md"):
        (tmp_path / name).write_text("A line\nand another\n", encoding="utf-8")
    how = (
        "a dataset is one table of poems, each with its form, title, author, meter_pattern, "
        "rhyme_pattern and theme (docs/datasets.md): put each poem's text in the content column "
        "of a CSV file; `poemetric form scan FILE --form FORM` checks one poem's text"
    )
    line = _error(["dataset", "validate", str(tmp_path)])
    assert line.endswith("/.parquet/.pq file; it holds 3 text files (poems?): " + how)
    line = _error(["dataset", "validate", str(tmp_path / "one.txt")])
    assert (
        line == f"error: {tmp_path / 'one.txt'}: unsupported file type '.txt', a poem's text: {how}"
    )
