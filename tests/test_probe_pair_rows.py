"""A pairs file's bad rows: every one listed, in the file's words, with what to do (only the
first was said, as pydantic's "corrupted: Field required"); a task name that is a near miss of
one `probe build` writes is a warning (`rhyme_swapp` was accepted silently and its pairs
reported as a task apart). A pairs file may hold tasks of its own (docs/probes.md), so an
unknown name that looks like no known one is neither."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.probes.pairs import PairFileError, read_pairs


def _row(number: int, **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f"p{number}",
        "poem_id": "poem-1",
        "task": "synonym",
        "original": "The cat sat on the mat",
        "corrupted": f"The cat sat on the rug {number}",
    }
    return {**row, **changes}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_every_bad_row_is_listed_with_what_to_do(tmp_path: Path) -> None:
    row_1 = _row(1)
    del row_1["corrupted"]
    path = _write(
        tmp_path / "pairs.jsonl",
        [row_1, _row(2), _row(3, original=42), _row(4, tsak="synonym"), _row(5, id="p2"),
         _row(6, task="")],
    )  # fmt: skip
    with pytest.raises(PairFileError) as error:
        read_pairs(path)
    assert str(error.value).splitlines() == [
        f"{path}: 5 bad rows of pairs; rebuild the file with `poemetric probe build` (or fix the "
        "rows):",
        f"  {path}:1: corrupted: missing",
        f"  {path}:3: original: expected text, found a number",
        f"  {path}:4: tsak: unknown key 'tsak' (did you mean 'task'?); keys: id, poem_id, task, "
        "original, corrupted, details",
        f"  {path}:5: id: duplicate pair id 'p2' (first on line 2)",
        f"  {path}:6: task: empty",
    ]


def test_rows_that_are_not_json_objects_are_listed_with_the_others(tmp_path: Path) -> None:
    """A row that is not JSON, or JSON but not an object, raised at once: the bad rows before it
    were lost and those after it never looked at. Now they are listed with the others, in line
    order; a first line that is not JSON is still refused alone (the file is not JSONL)."""
    rows = [
        json.dumps(_row(1, original=5)),
        json.dumps(_row(2)),
        "{not json",
        json.dumps(_row(4, task="")),
        json.dumps([1, 2]),
        json.dumps(_row(6)),
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(PairFileError) as error:
        read_pairs(path)
    assert str(error.value).splitlines() == [
        f"{path}: 4 bad rows of pairs; rebuild the file with `poemetric probe build` (or fix the "
        "rows):",
        f"  {path}:1: original: expected text, found a number",
        f"  {path}:3: not valid JSON: Expecting property name enclosed in double quotes",
        f"  {path}:4: task: empty",
        f"  {path}:5: expected a JSON object ({{...}}), found a list",
    ]
    path.write_text("".join(row + "\n" for row in ["{not json", *rows]), encoding="utf-8")
    with pytest.raises(PairFileError) as error:
        read_pairs(path)
    assert str(error.value) == (
        f"{path}:1: not valid JSON: Expecting property name enclosed in double quotes; a pairs "
        "file is the JSONL file that `poemetric probe build` writes"
    )


def test_a_long_list_of_bad_rows_is_cut_and_counted(tmp_path: Path) -> None:
    path = _write(tmp_path / "pairs.jsonl", [_row(n, original=n) for n in range(1, 26)])
    with pytest.raises(PairFileError) as error:
        read_pairs(path)
    lines = str(error.value).splitlines()
    assert lines[0].startswith(f"{path}: 25 bad rows of pairs; ")
    assert len(lines) == 22 and lines[-1] == "  ... and 5 more problems"


def test_a_near_miss_of_a_known_task_is_a_warning(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "pairs.jsonl",
        [_row(1), _row(2, task="rhyme_swapp"), _row(3, task="rhyme_swapp"),
         _row(4, task="my_own_probe"), _row(5, task="last_line_dbs")],
    )  # fmt: skip
    warnings: list[str] = []
    assert len(read_pairs(path, warnings)) == 5
    assert warnings == [
        f"{path}:2: task 'rhyme_swapp' is not a task `probe build` writes (did you mean "
        "'rhyme_word_swap', 'rhyme_line_swap'?); its 2 pairs are reported as a separate task: "
        "correct the name if it is a typo"
    ]


def test_probe_run_prints_the_warning_and_scores_all_pairs(tmp_path: Path) -> None:
    path = _write(tmp_path / "pairs.jsonl", [_row(1), _row(2, task="synonim")])
    scores = tmp_path / "scores.jsonl"
    result = CliRunner().invoke(
        app, ["probe", "run", str(path), "--scorer", "ngram", "-o", str(scores)],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (
        f"warning: {path}:2: task 'synonim' is not a task `probe build` writes (did you mean "
        "'synonym'?); its pair is reported as a separate task"
    ) in result.stderr
    assert len(scores.read_text(encoding="utf-8").splitlines()) == 2
