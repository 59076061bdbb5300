"""`poemetric agree --confidence 0.999` headed its interval column "overall [100% CI]" (and
0.975 "[98% CI]"): the level was rounded to a whole percent."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("confidence", "header"),
    [("0.999", "overall [99.9% CI]"), ("0.975", "overall [97.5% CI]"),
     ("0.95", "overall [95% CI]"), ("0.9", "overall [90% CI]")],
)  # fmt: skip
def test_the_interval_column_names_the_confidence_level_given(confidence: str, header: str) -> None:
    args = ["agree", "krippendorff-2011", "--na", "none", "--bootstrap", "20"]
    result = runner.invoke(app, [*args, "--confidence", confidence], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert header in result.stdout
    assert "100% CI" not in result.stdout
