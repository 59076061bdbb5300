"""`survey import --survey NAME` with NAME mistyped (`expert` for `experts`) silently started a
second survey, splitting one survey's answers in two (each half analysed as other raters). A name
close to one the run has is refused with a did-you-mean unless `--new`; a survey started by an
import says so on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import prepared_store
from test_survey import _fill
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

runner = CliRunner()


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    """Rater R1's filled sheet of the run's survey `experts`."""
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    built = runner.invoke(app, ["survey", "build", "--run", run, "--raters", "2", "--poems", "2"])
    assert built.exit_code == 0, built.output
    assert runner.invoke(app, ["survey", "sheets", "--run", run]).exit_code == 0
    path = tmp_path / "run" / "survey-experts" / "R1.csv"
    _fill(path, 0)
    return path


def _import(sheet: Path, *options: str) -> tuple[int, str, str]:
    run = sheet.parent.parent
    result = runner.invoke(app, ["survey", "import", str(sheet), "--run", str(run), *options])
    return result.exit_code, result.stdout, " ".join(result.stderr.split())


def _surveys(sheet: Path) -> dict[str, int]:
    with RunStore(sheet.parent.parent, create=False) as store:
        rows = store.query(
            "SELECT s.survey_id, COUNT(a.survey_id) FROM surveys s LEFT JOIN survey_answers a "
            "USING (survey_id) GROUP BY s.survey_id"
        )
    return {name: count for name, count in rows}


def test_a_mistyped_survey_is_refused_with_the_survey_it_looks_like(sheet: Path) -> None:
    database = sheet.parent.parent / "poemetric.sqlite"
    code, out, err = _import(sheet, "--survey", "expert")
    assert (code, out) == (2, ""), err
    assert err == (
        f"error: no survey 'expert' (did you mean 'experts'?) in {database}; surveys: experts; "
        "nothing imported (to start a new survey 'expert' beside them, add --new)"
    )
    assert _surveys(sheet) == {"experts": 0}


def test_new_starts_a_survey_with_a_close_name_and_says_so(sheet: Path) -> None:
    code, out, err = _import(sheet, "--survey", "expert", "--new")
    assert code == 0 and "into survey 'expert'" in out, err
    assert err == "started survey 'expert': the run had no survey of that name"
    assert _surveys(sheet) == {"experts": 0, "expert": 22}


def test_a_survey_not_close_to_any_is_started_and_said_so(sheet: Path) -> None:
    code, out, err = _import(sheet, "--survey", "paper")
    assert code == 0 and "into survey 'paper'" in out, err
    assert err == "started survey 'paper': the run had no survey of that name"
    assert _surveys(sheet) == {"experts": 0, "paper": 22}


def test_an_existing_survey_imports_quietly_and_refuses_new(sheet: Path) -> None:
    code, out, err = _import(sheet, "--survey", "experts")
    assert (code, err) == (0, ""), out
    database = sheet.parent.parent / "poemetric.sqlite"
    code, out, err = _import(sheet, "--survey", "experts", "--new")
    assert (code, out) == (2, ""), err
    assert err == (
        f"error: --new: survey 'experts' already exists in {database}; nothing imported "
        "(leave out --new to add these answers to it, or name a new survey)"
    )
    assert _surveys(sheet) == {"experts": 22}
