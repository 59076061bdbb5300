"""A range in a dataset's `year` was all taken for the author's life dates: `1850-1851` became
`author_dates` and the poem had no year. A range shorter than a life is now the years of
composition: kept as written in `year_range`, its first year the poem's `year`, written back as
it was. Life dates (the release's `1897 - 1965`, `1946 -`) are read as before; a range that ends
before it begins is refused with its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_dataset import poem_row

from poemetric.data import Poem, validate_file


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
