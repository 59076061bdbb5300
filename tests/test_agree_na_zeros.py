"""`poemetric agree` on a 0-4 scale without `--na none`: the default `--na 0` read every 0 as
missing (alpha and Gwet left them out) and said nothing. Now one warning line says so, except
on the POEMetric questions whose 0 is N/A (imagery, literary devices)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

#: Two raters on a 0-4 scale: 0 is the lowest score, not N/A.
ZERO_TO_FOUR = """\
unit,rater,item,score
1,A,clarity,0
1,B,clarity,0
2,A,clarity,4
2,B,clarity,3
3,A,clarity,1
3,B,clarity,0
4,A,clarity,2
4,B,clarity,2
"""

#: The POEMetric questionnaire: N/A = 0 on imagery and literary devices, 1-5 elsewhere.
POEMETRIC = """\
unit,rater,item,score
1,A,imagery,0
1,B,imagery,0
2,A,imagery,5
2,B,imagery,4
1,A,literary_devices,0
1,B,literary_devices,3
2,A,literary_devices,2
2,B,literary_devices,2
1,A,overall_quality,3
1,B,overall_quality,4
2,A,overall_quality,1
2,B,overall_quality,2
"""


def agree(path: Path, *args: str) -> tuple[str, str]:
    result = CliRunner().invoke(app, ["agree", str(path), "-b", "0", "-f", "json", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_zeros_read_as_na_on_a_scale_from_0_are_said_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(ZERO_TO_FOUR, encoding="utf-8")
    out, err = agree(path)
    assert err == (
        f"warning: {path}: 3 scores of 0 (item clarity) were read as N/A, not as scores (the "
        "default --na 0: POEMetric's N/A); give --na none if 0 is a score on this scale, or "
        "--na 0 to keep them N/A without this warning\n"
    )
    assert json.loads(out)["overall"]["n_na"] == 3
    out, err = agree(path, "--na", "none")  # what the warning says to do
    assert err == "" and json.loads(out)["overall"]["n_na"] == 0


@pytest.mark.parametrize("args", [("--na", "0"), ("--scale", "1-4")], ids=["na-0", "scale"])
def test_an_explicit_na_or_scale_is_quiet(tmp_path: Path, args: tuple[str, str]) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(ZERO_TO_FOUR, encoding="utf-8")
    assert agree(path, *args)[1] == ""


def test_the_poemetric_questionnaire_na_is_quiet(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(POEMETRIC, encoding="utf-8")
    out, err = agree(path)
    assert err == "" and json.loads(out)["overall"]["n_na"] == 3
