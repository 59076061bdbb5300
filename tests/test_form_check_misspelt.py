"""`form check` of rows whose metre has a misspelt word (*iambic pentamter*): the 'did you
mean' was only in each row's `facts`, in the output file; stderr now says it once per distinct
annotation (not once per row), and the scores are those of the rows without the warning."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.form.checker import check_poem

QUATRAIN = (
    "Shall I compare thee to a summer's day?\nThou art more lovely and more temperate:\n"
    "Rough winds do shake the darling buds of May,\nAnd summer's lease hath all too short a date;"
)


def test_each_misspelt_metre_annotation_is_warned_of_once(tmp_path: Path) -> None:
    rows = [
        ("a", "iambic pentamter"),
        ("b", "iambic pentamter"),
        ("c", "iambc pentamter"),
        ("d", "iambic pentameter"),
        ("e", "iambic pentamter"),
    ]
    source = tmp_path / "poems.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": i, "form": "sonnet", "meter": m, "text": QUATRAIN}) + "\n"
            for i, m in rows
        ),
        encoding="utf-8",
    )
    out = tmp_path / "checks.jsonl"
    result = CliRunner().invoke(
        app, ["form", "check", str(source), "-o", str(out)], env={"COLUMNS": "300"}
    )
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: {source}:1: metre 'iambic pentamter' (3 rows): did you mean "
        "'pentameter' for 'pentamter'? (a misspelt word is not read)",
        f"warning: {source}:3: metre 'iambc pentamter' (1 row): did you mean "
        "'iambic' for 'iambc'? (a misspelt word is not read); did you mean 'pentameter' for "
        "'pentamter'? (a misspelt word is not read)",
    ]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for (_, meter), record in zip(rows, records, strict=True):
        alone = check_poem(QUATRAIN, "sonnet", meter)
        assert (record["passed"], record["meter_score"], record["form_score"]) == (
            alone.passed,
            alone.meter_score,
            alone.form_score,
        )
        assert record["facts"] == json.loads(json.dumps(alone.facts))
