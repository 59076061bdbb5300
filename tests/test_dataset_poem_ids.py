"""A refused poem id says which character (or which start) breaks the rule.

`poème-1` was refused with "use letters, digits and . _ : + - (no spaces)": è is a letter, so a
scholar whose ids carry accents could not tell what to change; `-p1` (a leading `-`) was refused
with the same words, which it follows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app

RULE = (
    "use ASCII letters A-Z a-z, digits and . _ : + - (no spaces), starting with a letter or digit"
)
POEM = {
    "form": "limerick",
    "title": "Dundee",
    "author": "Ann Example",
    "content": "A tinker from Dundee\nMade tea\nFor a fee\nOn his knee\nBy the sea",
    "meter_pattern": "",
    "rhyme_pattern": "AAAAA",
    "theme": "tea",
}


@pytest.mark.parametrize(
    ("poem_id", "fault"),
    [
        ("poème-1", "'è' is not allowed"),
        ("poème 1", "'è' and a space are not allowed"),
        ("Þing/2", "'Þ' and '/' are not allowed"),
        ("-p1", "it starts with '-'"),
    ],
)
def test_a_bad_id_names_what_is_wrong(tmp_path: Path, poem_id: str, fault: str) -> None:
    data = tmp_path / "poems.jsonl"
    records = [POEM | {"poem_id": "ok-1"}, POEM | {"poem_id": poem_id, "title": "Two"}]
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    result = CliRunner().invoke(app, ["dataset", "validate", str(data)])
    assert result.exit_code == 1, result.output
    problems = [line for line in result.output.splitlines() if line.startswith(f"{data}:")]
    assert problems == [f"{data}:2: poem_id: bad poem id {poem_id!r}: {fault}; {RULE}"]
