"""`probe build` of a file of just the poems: it took only a full dataset file (seven required
columns) while the probes read a poem's text and rhyme pattern alone, so a file of those was
refused for its missing title, author, meter and theme. Such a file is now read by the dataset
loader's reader, each malformed record named as `file:line: column: reason`."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "poems.csv"
WIDE = {"COLUMNS": "400"}


def demo_limericks() -> list[dict[str, str]]:
    from poemetric.data import load_dataset

    return [
        {"poem_id": p.poem_id, "content": p.content, "rhyme_pattern": p.rhyme_pattern or ""}
        for p in load_dataset(DEMO).poems
        if str(p.form) == "limerick"
    ]


def build(poems: Path, output: Path, *more: str) -> tuple[int, str, str]:
    command = ["probe", "build", str(poems), "--output", str(output), *more]
    result = CliRunner().invoke(app, command, env=WIDE)
    return result.exit_code, result.stdout, result.stderr


def test_a_file_of_text_and_rhyme_builds_the_pairs_of_the_dataset(tmp_path: Path) -> None:
    limericks = demo_limericks()
    own = tmp_path / "mine.jsonl"
    own.write_text("".join(json.dumps(row) + "\n" for row in limericks), encoding="utf-8")
    code, out, err = build(own, tmp_path / "own.jsonl")
    assert code == 0, err
    assert f"from {len(limericks)} poems of mine.jsonl" in out
    code, _, err = build(DEMO, tmp_path / "demo.jsonl", "--forms", "limerick")
    assert code == 0, err
    assert (tmp_path / "own.jsonl").read_text() == (tmp_path / "demo.jsonl").read_text()

    # Two columns, no id: ids from the text, the same however the rows are ordered.
    bare = tmp_path / "bare.csv"
    with bare.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "rhyme"])
        writer.writerows([row["content"], row["rhyme_pattern"]] for row in limericks)
    code, _, err = build(bare, tmp_path / "bare.jsonl", "--tasks", "synonym")
    assert code == 0, err
    pairs = [json.loads(line) for line in (tmp_path / "bare.jsonl").read_text().splitlines()]
    assert pairs and all(pair["poem_id"].startswith("poem-") for pair in pairs)
    assert {pair["details"]["rhyme_source"] for pair in pairs} == {"dataset"}


def test_malformed_rows_are_named_by_file_and_line(tmp_path: Path) -> None:
    limerick = demo_limericks()[0]["content"]
    bad = tmp_path / "bad.csv"
    with bad.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "rhyme"])
        writer.writerow(["a", limerick, "AABBA"])  # lines 2-6
        writer.writerow(["b", limerick, "AAB1"])  # 7-11
        writer.writerow(["c", "", "AABBA"])  # 12
        writer.writerow(["a", "Two lines\nof verse", ""])  # 13-14
    output = tmp_path / "pairs.jsonl"
    code, out, err = build(bad, output)
    assert code == 2 and out == ""
    said = err.splitlines()
    assert (
        said[0]
        == f"error: {bad}: 3 problems; fix them (no pairs are built from a file with problems):"
    )
    assert said[1].startswith(f"{bad}:7: rhyme: bad rhyme pattern 'AAB1'")
    assert said[2] == f"{bad}:12: text: no poem text"
    assert said[3].startswith(f"{bad}:13: poem_id: duplicate poem id 'a' (first on line 2")
    assert not output.exists()

    # A pattern that does not fit its poem, where the file's patterns are required.
    short = tmp_path / "short.csv"
    with short.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["text", "rhyme"], [limerick, "AABB"]])
    code, _, err = build(short, output, "--rhyme-from", "dataset")
    assert code == 2
    assert f"{short}:2: rhyme: rhyme pattern 'AABB' has 4 letters for 5 verse lines" in err
    assert build(short, output)[0] == 0  # auto: the checker's scheme instead

    nothing = tmp_path / "titles.csv"
    nothing.write_text("title,rhyme\nA title,AABBA\n", encoding="utf-8")
    code, _, err = build(nothing, output, "--rhyme-from", "dataset")
    assert code == 2 and "no poem column: give content (or text, poem)" in err


def demo_dataset(path: Path, forms: tuple[str, ...] = ("limerick",)) -> list[str]:
    """The demo poems of `forms` written as a full dataset file; their poem ids, in file order."""
    from poemetric.data import load_dataset
    from poemetric.data.io import write_dataset

    poems = [p for p in load_dataset(DEMO).poems if str(p.form) in forms]
    write_dataset(poems, path)
    return [p.poem_id for p in poems]


def test_a_dataset_pattern_that_does_not_fit_is_named_by_file_and_line(tmp_path: Path) -> None:
    """`--rhyme-from dataset` of a full dataset named the first poem id whose pattern did not
    fit ("lim-3: rhyme pattern ..."), where the file of just the poems names `file:line`."""
    dataset = tmp_path / "limericks.jsonl"  # a record a line: record N is on line N
    ids = demo_dataset(dataset)
    records = [json.loads(line) for line in dataset.read_text(encoding="utf-8").splitlines()]
    records[1]["rhyme_pattern"] = "AABB"
    records[3]["rhyme_pattern"] = ""
    dataset.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    output = tmp_path / "pairs.jsonl"
    code, out, err = build(dataset, output, "--rhyme-from", "dataset")
    assert code == 2 and out == "" and not output.exists()
    said = err.splitlines()
    assert said[0].startswith("error: limericks: 2 problems; fix them")
    assert said[1] == (
        f"{dataset}:2: rhyme_pattern: rhyme pattern 'AABB' has 4 letters for 5 verse lines "
        "(--rhyme-from dataset; auto would use the checker's scheme for it)"
    )
    assert said[2].startswith(f"{dataset}:4: rhyme_pattern: no rhyme pattern (--rhyme-from")
    assert ids[1] not in err  # named by where it is, as the file of just the poems does
    # Only the poems built from are checked (as the builders did): the first one fits.
    assert build(dataset, output, "--rhyme-from", "dataset", "--limit", "1")[0] == 0
    assert build(dataset, output)[0] == 0  # auto: the checker's scheme for the others

    # A dataset by name: its file's lines (the demo's ballads have a stanza's pattern).
    code, _, err = build(Path("demo"), output, "--rhyme-from", "dataset", "--forms", "ballad")
    assert code == 2 and f"\n{DEMO}:" in err and ": rhyme_pattern: rhyme pattern 'AB" in err


def test_a_poems_file_without_a_pattern_is_named_by_file_and_line(tmp_path: Path) -> None:
    """A blank rhyme cell with `--rhyme-from dataset` was let through the file's checks and
    refused by the builders by a made-up id ("poem-f669cbac: rhyme pattern None has 0 ...")."""
    blank = tmp_path / "blank.csv"
    with blank.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["text", "rhyme"], [demo_limericks()[0]["content"], ""]])
    code, _, err = build(blank, tmp_path / "pairs.jsonl", "--rhyme-from", "dataset")
    assert code == 2 and f"{blank}:2: rhyme: no rhyme pattern (--rhyme-from dataset" in err
    assert "poem-" not in err


@pytest.mark.parametrize("kind", ["dataset.csv", "dataset.parquet", "poems.csv"])
def test_the_file_is_read_once(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`probe build FILE` read the file twice: once to see whether it has a dataset's columns,
    once as what it is (a race with a file being written could validate one and build another)."""
    path = tmp_path / kind
    if kind.startswith("dataset"):
        demo_dataset(path)
    else:
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["text", "rhyme"])
            writer.writerows([row["content"], row["rhyme_pattern"]] for row in demo_limericks())
    reads: list[Path] = []
    read_bytes = Path.read_bytes

    def counted(self: Path) -> bytes:
        reads.append(self)
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    code, out, err = build(path, tmp_path / "pairs.jsonl", "--tasks", "rhyme_line_swap")
    assert code == 0, err
    assert "pairs from 5 poems" in out
    assert reads.count(path) == 1
