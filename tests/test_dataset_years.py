"""A range in a dataset's `year` was all taken for the author's life dates: `1850-1851` became
`author_dates` and the poem had no year. A range shorter than a life is now the years of
composition: kept as written in `year_range`, its first year the poem's `year`, written back as
it was. Life dates (the release's `1897 - 1965`, `1946 -`) are read as before; a range that ends
before it begins is refused with its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_dataset import poem_row, write_csv

from poemetric.data import Poem, load_dataset, validate_file, write_dataset


@pytest.mark.parametrize(
    ("cell", "year", "kept"),
    [
        ("1850-1851", 1850, "1850-1851"),
        (" 1845 – 1846 ", 1845, "1845 – 1846"),
        ("1798-1805", 1798, "1798-1805"),
    ],
)
def test_a_short_range_is_the_years_of_composition(cell: str, year: int, kept: str) -> None:
    poem = Poem.model_validate(poem_row(year=cell))
    assert (poem.year, poem.year_range, poem.author_dates) == (year, kept, None)
    assert poem.to_row()["year"] == kept
    again = Poem.model_validate(poem.model_dump(mode="json"))  # as a run store's record reads
    assert (again.year, again.year_range) == (year, kept)


@pytest.mark.parametrize("cell", ["1897 - 1965", "1752-1770", "1946 - "])
def test_life_dates_stay_life_dates(cell: str) -> None:
    poem = Poem.model_validate(poem_row(year=cell))
    assert (poem.year, poem.year_range, poem.author_dates) == (None, None, cell.strip())


def test_a_range_that_ends_before_it_begins_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "poems.jsonl"
    path.write_text(json.dumps({**poem_row(), "year": "1851-1850"}) + "\n", encoding="utf-8")
    report = validate_file(path)
    assert [str(issue) for issue in report.issues] == [
        f"{path}:1: year: bad year '1851-1850': the range ends before it begins; write 1850-1851"
    ]


def test_columns_named_as_the_year_fields_are_ignored_as_the_loader_says(tmp_path: Path) -> None:
    """`year_range` and `author_dates` are made from the `year` cell. A file's own columns of
    those names were warned "ignored" yet read, unchecked: `year_range` `c. 1850` was written
    back by `write_dataset` as the year, and the written file was refused ("bad year")."""
    row = {**poem_row(year="1850"), "year_range": "c. 1850", "author_dates": "1800-1870"}
    path = write_csv(tmp_path / "poems.csv", [row])
    assert any("ignored columns" in w and "'year_range'" in w for w in validate_file(path).warnings)
    (poem,) = load_dataset(path).poems
    assert (poem.year, poem.year_range, poem.author_dates) == (1850, None, None)
    written = write_dataset([poem], tmp_path / "again.csv")
    assert [p.year for p in load_dataset(written).poems] == [1850]
