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
from poemetric.data import load_dataset
from poemetric.store import RunStore

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


def test_the_same_poems_reordered(prepared: tuple[Path, Path]) -> None:
    run, dataset = prepared
    _write(dataset, _rows()[::-1])
    status, output = _generate(run, dataset)
    assert status == 2 and "has changed since" in output
    assert ": the same poems, in another order." in output


def _resaved(path: Path) -> Path:
    """The file as a spreadsheet saves it: CRLF for every newline (inside quoted cells too),
    behind a UTF-8 byte-order mark."""
    data = path.read_bytes()
    assert b"\r" not in data
    path.write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
    return path


def _store(run: Path) -> tuple[dict[str, object], list[tuple[str, str]]]:
    with RunStore(run, create=False) as store:
        rows = store.query("SELECT poem_id, record FROM poems ORDER BY position")
        return store.get_meta("dataset"), [(str(r[0]), str(r[1])) for r in rows]


def test_a_file_resaved_with_crlf_and_a_bom_is_the_same_dataset(tmp_path: Path) -> None:
    """A dataset re-saved with CRLF line endings and a byte-order mark (no poem changed) was
    refused as a changed file: the run compared the file's sha256. It now compares what the file
    reads as, so the run goes on, keeping the recorded file and its sha256."""
    rows = _rows()
    rows[2]["theme"] = "a small voyage\nand a long way home"  # a cell of two lines
    dataset = _write(tmp_path / "mine.csv", rows)
    run = tmp_path / "run"
    assert _generate(run, dataset)[0] == 0
    meta, poems = _store(run)
    _resaved(dataset)
    status, output = _generate(run, dataset)
    assert status == 0, output
    assert "has changed since" not in output
    assert _store(run) == (meta, poems)  # nothing re-recorded, no poem added
    # A real change in a re-saved file is still one, and named.
    rows[1]["rhyme_pattern"] = "AABBC"
    _resaved(_write(dataset, rows))
    status, output = _generate(run, dataset)
    assert status == 2 and "and the file has changed since" in output
    assert re.search(
        r": 1 poem changed: limerick-nobody-known-the-thimble-\S+ \(rhyme_pattern\)\.", output
    )


def test_a_crlf_file_loads_the_same_poems(tmp_path: Path) -> None:
    """No stray `\\r` in any value of a CRLF file: a cell of several lines other than the poem
    (a theme, a source) kept its `\\r\\n`, so the same file with other line endings read as other
    annotations."""
    rows = _rows()
    rows[0]["theme"] = "a small voyage\nand a long way home"
    rows[1]["content"] = rows[1]["content"].replace("\n", "\n\n", 1)  # a stanza break
    lf = load_dataset(_write(tmp_path / "lf.csv", rows))
    crlf = load_dataset(_resaved(_write(tmp_path / "crlf.csv", rows)))
    assert lf.sha256 != crlf.sha256
    assert [p.model_dump() for p in crlf] == [p.model_dump() for p in lf]
    assert not any("\r" in str(value) for p in crlf for value in p.model_dump().values())
    assert crlf.poems[0].theme == "a small voyage\nand a long way home"


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


def test_shards_prepared_from_a_crlf_and_an_lf_copy_merge(tmp_path: Path) -> None:
    """Shards prepared on two machines from copies of one file, one with CRLF line endings and a
    byte-order mark, were refused by `merge` as runs of different datasets (it compared the
    files' sha256s). They hold the same poems, so they merge; a real difference is still
    refused, naming the poem and the field."""
    rows = _rows()
    rows[2]["theme"] = "a small voyage\nand a long way home"
    (tmp_path / "lf").mkdir()
    (tmp_path / "crlf").mkdir()
    (tmp_path / "fixed").mkdir()
    lf = _write(tmp_path / "lf" / "mine.csv", rows)
    crlf = _resaved(_write(tmp_path / "crlf" / "mine.csv", rows))
    rows[1]["rhyme_pattern"] = "AABBC"
    fixed = _write(tmp_path / "fixed" / "mine.csv", rows)
    for shard, dataset in (("0", lf), ("1", crlf), ("fixed", fixed)):
        status, output = _generate(tmp_path / f"shard{shard}", dataset)
        assert status == 0, output

    def merge(*shards: str) -> tuple[int, str]:
        runs = [str(tmp_path / f"shard{shard}") for shard in shards]
        result = CliRunner().invoke(app, ["merge", *runs, "--into", str(tmp_path / "all")])
        return result.exit_code, " ".join(result.output.split())

    status, output = merge("0", "1")
    assert status == 0, output
    assert "different datasets" not in output
    status, output = merge("1", "fixed")
    assert status == 2
    assert "were prepared from different datasets (two versions of 'mine', sha256 " in output
    assert re.search(
        r"\): 1 poem changed: limerick-nobody-known-the-thimble-\S+ \(rhyme_pattern\);", output
    )
