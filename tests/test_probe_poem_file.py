"""`probe build` of a file of just the poems: it took only a full dataset file (seven required
columns) while the probes read a poem's text and rhyme pattern alone, so a file of those was
refused for its missing title, author, meter and theme. Such a file is now read by the dataset
loader's reader, each malformed record named as `file:line: column: reason`."""

from __future__ import annotations

import csv
import json
from pathlib import Path

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
