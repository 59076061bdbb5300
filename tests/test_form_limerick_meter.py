"""A limerick requested with a foot but no number of feet ("anapestic", "iambic")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.form.checker import check_poem

# Written for this test.
LIMERICK = """A baker who lived by the sea
once baked a great loaf like a tree;
when the town asked him why,
he replied with a sigh,
"Because leaves, after all, are for free!\""""


@pytest.mark.parametrize("meter", ["anapestic", "Anapestic", "iambic", "trochaic"])
def test_a_foot_alone_is_read_with_the_limericks_beats(meter: str) -> None:
    result = check_poem(LIMERICK, "limerick", meter, "AABBA")
    assert result.error is None
    assert result.meter_score is not None
    assert "3-3-2-2-3 beats" in result.facts["meter"]


def test_anapestic_scores_as_the_default_limerick_meter() -> None:
    requested = check_poem(LIMERICK, "limerick", "anapestic")
    default = check_poem(LIMERICK, "limerick")
    assert requested.passed and default.passed
    assert requested.meter_score == default.meter_score


def test_form_check_of_a_file_with_an_anapestic_limerick_finishes(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    rows = [
        {"id": "a", "form": "limerick", "meter": "anapestic", "text": LIMERICK},
        {"id": "b", "form": "limerick", "text": LIMERICK},
    ]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    result = CliRunner().invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [record["passed"] for record in records] == [True, True]
