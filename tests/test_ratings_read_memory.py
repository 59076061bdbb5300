"""`read_ratings` on a large file: read a record at a time into compact rows, not held as Python
objects. `agree` on 3 raters x 49,000 units x 10 items (1.47 million ratings) peaked at 1.2 GB,
nearly all of it in reading: every row a `RawRecord` with a dict, a `Rating`, and a key of the
duplicate check (docs/benchmarks.md, "Agreement statistics"). The rows are still checked as a
row-by-row reading checks them: these tests pin what such a reading gives."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from poemetric.data.csv_text import TextLines
from poemetric.data.io import read_table, stream_table
from poemetric.reliability import Rating, Ratings
from poemetric.reliability.io import RatingsFileError, read_ratings

ITEMS = [f"item_{i}" for i in range(10)]


def _write_ratings(path: Path, raters: int, units: int, seed: int) -> list[Rating]:
    """Distinct seeded 1-5 ratings of every unit by every rater on 10 items, some blank (not
    rated) and some N/A (`n/a`, or 0 under the default --na 0); the ratings it holds."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=(units, len(ITEMS)))
    ratings, lines = [], ["unit,rater,item,score"]
    for u in range(units):
        for r in range(raters):
            scores = np.clip(truth[u] + rng.integers(-1, 2, size=len(ITEMS)), 1, 5)
            draws = rng.random(len(ITEMS))
            for i, item in enumerate(ITEMS):
                text = "" if draws[i] < 0.05 else "n/a" if draws[i] < 0.07 else "0"
                text = text if draws[i] < 0.09 else str(scores[i])
                lines.append(f"poem-{u:05d},judge-{r},{item},{text}")
                if text:
                    score = None if text in ("n/a", "0") else float(text)
                    ratings.append(Rating(f"poem-{u:05d}", f"judge-{r}", item, score))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ratings


def _same(read: Ratings, expected: Ratings) -> None:
    assert (read.units, read.raters, read.items) == (
        expected.units,
        expected.raters,
        expected.items,
    )
    assert read.scale.tolist() == expected.scale.tolist()
    assert read.codes.dtype == expected.codes.dtype
    assert np.array_equal(read.codes, expected.codes)


def test_a_large_ratings_file_is_read_without_holding_every_row(tmp_path: Path) -> None:
    # 3 raters x 600 units x 10 items, 18,000 rows (0.5 MB): the rows as Python objects (a
    # RawRecord with a dict, a Rating, a duplicate check's key) peaked at 12.5 MiB, 25 times
    # the file, now 3 times it (its bytes and its text alone are twice it).
    path = tmp_path / "ratings.csv"
    ratings = _write_ratings(path, raters=3, units=600, seed=0)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        read = read_ratings(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _same(read, Ratings.from_ratings(ratings))
    assert read.codes.shape == (3, 600, 10)
    assert peak < 5 * size, f"peak {peak / 2**20:.1f} MiB for a {size / 2**20:.1f} MiB file"


def test_rows_are_checked_as_read_one_by_one(tmp_path: Path) -> None:
    """A repeated (unit, rater, item) is reported at its line with the line it repeats, and
    nothing else of it is read (its score is no problem of its own); the first row with a
    decimal comma is said, a repeat's not; N/A numbers are counted once per rating."""
    path = tmp_path / "ratings.csv"
    path.write_text(
        "unit;rater;item;score\n"
        "p1;a;form;4\n"
        "p1;a;form;3,5\n"     # a repeat of line 2: its decimal comma is not read
        "p2;a;form;0\n"
        "p2;a;form;0\n"       # a repeat: not a second N/A
        "p3;a;form;2,5\n"     # the first decimal comma read
        "p1;a;form;oops\n"    # a repeat again, of line 2: no score problem
        "p4;a;form;oops\n",
        encoding="utf-8",
    )  # fmt: skip
    warnings: list[str] = []
    na_read: dict[str, int] = {}
    with pytest.raises(RatingsFileError) as error:
        read_ratings(path, warnings=warnings, na_read=na_read)
    assert str(error.value).splitlines()[1:] == [
        f"  {path}:3: rater 'a' rated unit 'p1' on 'form' already on line 2",
        f"  {path}:5: rater 'a' rated unit 'p2' on 'form' already on line 4",
        f"  {path}:7: rater 'a' rated unit 'p1' on 'form' already on line 2",
        f"  {path}:8: score 'oops' is not a number (or N/A)",
    ]
    assert len(warnings) == 2 and "semicolon-separated" in warnings[0]
    assert warnings[1].startswith(f"{path}:6: scores with a decimal comma (first '2,5')")
    assert na_read == {"form": 1}


def test_items_and_raters_are_ordered_by_the_ratings_read(tmp_path: Path) -> None:
    """Items in the order of their first rating (an item first seen on a blank row comes where
    it is first rated); a rater or unit with blank scores only is none of the ratings'."""
    rows = [
        ("u2", "expert_10", "theme", ""),
        ("u2", "expert_10", "form", "3"),
        ("u1", "expert_2", "theme", "n/a"),
        ("u3", "ghost", "form", ""),
        ("u1", "Expert_1", "form", "5"),
        ("u1", "expert_10", "theme", "2"),
    ]
    path = tmp_path / "ratings.tsv"
    path.write_text(
        "unit\trater\titem\tscore\n" + "".join("\t".join(row) + "\n" for row in rows),
        encoding="utf-8",
    )
    expected = [Rating(u, r, i, None if s == "n/a" else float(s)) for u, r, i, s in rows if s]
    read = read_ratings(path, scale=[1, 2, 3, 4, 5])
    _same(read, Ratings.from_ratings(expected, scale=[1, 2, 3, 4, 5]))
    assert read.items == ("form", "theme") and read.units == ("u1", "u2")
    assert read.raters == ("Expert_1", "expert_2", "expert_10")


def test_jsonl_columns_are_every_records_keys(tmp_path: Path) -> None:
    """A JSONL file has no header: a `poem` key on a later line names the unit column, and an
    `item` key on some lines only leaves the others on the item `score`, as when read at once."""
    path = tmp_path / "ratings.jsonl"
    records = [
        {"rater": "a", "score": 4, "poem": "p1"},
        {"poem": "p1", "rater": "b", "score": 5.0, "item": "form"},
        {"poem": "p2", "rater": "a", "score": None},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    read = read_ratings(path)
    assert read.units == ("p1",) and read.items == ("score", "form")
    assert read.codes[:, 0, :].tolist() == [[0, -1], [-1, 1]]


def test_several_surveys_of_an_exported_file_name_their_raters(tmp_path: Path) -> None:
    """`export survey_answers` with two surveys: the same rater id in each is two raters, and a
    repeat is one within a survey; attention checks are no rating."""
    path = tmp_path / "answers.csv"
    path.write_text(
        "survey_id,rater_id,generation_id,question,score,text\n"
        "s1,r1,g1,form,4,\n"
        "s2,r1,g1,form,5,\n"
        "s1,r1,g1,attention_check,1,\n"
        "s1,r1,g2,form,3,\n",
        encoding="utf-8",
    )
    read = read_ratings(path)
    assert read.raters == ("s1:r1", "s2:r1") and read.items == ("form",)
    with path.open("a", encoding="utf-8") as out:
        out.write("s2,r1,g1,form,2,\n")
    with pytest.raises(RatingsFileError, match=r"answers.csv:6: rater 's2:r1' .* on line 3"):
        read_ratings(path)


@pytest.mark.parametrize(
    "text",
    ["", "a", "a\n", "\n\n", "a\r\nb\rc\nd", "x\r\r\n\n\ry", 'q,"two\nlines"\r\nz', "end\r"],
)
def test_csv_lines_are_those_of_a_stringio(text: str) -> None:
    """The CSV reader's lines, held as offsets into the text, are what it read before."""
    lines = TextLines(text)
    assert list(lines) == list(io.StringIO(text, newline=""))
    if len(lines):
        lines[0] = "\n"
        assert lines[0] == "\n" and list(lines)[1:] == list(io.StringIO(text, newline=""))[1:]


def test_a_streamed_table_is_the_table_read_at_once(tmp_path: Path) -> None:
    """`stream_table`'s records are `read_table`'s, and once they are read its issues and
    notes are too (a malformed row, a row of separators only)."""
    path = tmp_path / "data.csv"
    path.write_bytes(b'unit;rater;score\r\np1;a;4\r\n;;\r\np2;"b;3\r\np3;c;5\r\np4;d;2;9\r\n')
    whole = read_table(path, semicolon_names=lambda names: "score" in names)
    table, records = stream_table(path, semicolon_names=lambda names: "score" in names)
    assert table.columns == ["unit", "rater", "score"] and table.records == []
    assert list(records) == whole.records and len(whole.records) == 2
    assert table.issues == whole.issues and len(table.issues) == 2
    assert table.notes == whole.notes and len(table.notes) == 2
    assert table.unreadable == whole.unreadable


def test_the_benchmark_file_is_a_ratings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bench/make_ratings_file.py` (docs/benchmarks.md) writes what `agree` reads, CSV or
    JSONL alike: every rater on every unit and item, N/A only where POEMetric allows it."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "bench"))
    import make_ratings_file

    for name in ("ratings.csv", "ratings.jsonl"):
        assert make_ratings_file.write_ratings(tmp_path / name, raters=2, units=30, seed=0) == 600
    csv_read, jsonl_read = (read_ratings(tmp_path / n) for n in ("ratings.csv", "ratings.jsonl"))
    _same(jsonl_read, csv_read)
    assert csv_read.codes.shape == (2, 30, 10) and (csv_read.codes >= 0).all()
    na = (csv_read.codes == csv_read.na_code).any(axis=(0, 1))
    assert {item for item, has in zip(csv_read.items, na, strict=True) if has} <= {
        "imagery",
        "literary_devices",
    }


def test_a_jsonl_file_is_parsed_once_when_its_first_record_names_the_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A JSONL file was parsed twice, first for every record's keys (about a third of the time
    of `agree` on 1.47 million ratings); now once, when its first record's keys name the columns
    that every record's keys name (again only when a later key changes them)."""
    import poemetric.data.io as data_io

    parsed: list[Path] = []
    parse = data_io._read_jsonl

    def counted_parse(table: data_io.RawTable, data: bytes) -> Iterator[data_io.RawRecord]:
        parsed.append(table.path)
        return parse(table, data)

    monkeypatch.setattr(data_io, "_read_jsonl", counted_parse)
    path = tmp_path / "ratings.jsonl"
    lines = [
        {"unit": "u1", "rater": "a", "score": 4},
        {"unit": "u1", "rater": "b", "score": 5, "item": "form"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    read = read_ratings(path)
    assert parsed == [path]
    assert read.units == ("u1",) and read.items == ("score", "form")
    later = [{"rater": "a", "score": 4}, {"poem": "p1", "rater": "b", "score": 5}]
    path.write_text("".join(json.dumps(r) + "\n" for r in later), encoding="utf-8")
    parsed.clear()
    with pytest.raises(RatingsFileError) as failed:
        read_ratings(path)
    assert parsed == [path, path]  # `poem` names the unit column, as when read whole
    assert f"{path}:1: empty poem" in str(failed.value), failed.value
