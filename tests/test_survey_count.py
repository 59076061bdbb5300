"""`survey build --per-rater` other than the 10 poems the verbatim instructions name: a warning
at build time, and the welcome page's own line gives each rater's real number."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient
from survey_support import survey_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.survey import tokens
from poemetric.survey.instrument import appendix_c_survey
from poemetric.survey.web import create_app

pytestmark = pytest.mark.slow
runner = CliRunner()
VERBATIM = "We will give you 10 poems in total"


def test_the_instrument_states_10_poems() -> None:
    assert appendix_c_survey().stated_poems == 10


def test_build_warns_once_and_the_page_gives_the_real_count(tmp_path: Path) -> None:
    """With --per-rater 4 the page said "We will give you 10 poems in total" (the instrument,
    verbatim) above "This private link holds 4 poems for you", and the build said nothing."""
    run = survey_run(tmp_path / "run", poems=5)
    build = ["survey", "build", "--run", str(run), "--raters", "2", "--per-poem", "2"]
    result = runner.invoke(app, [*build, "--per-rater", "4"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("warning:") == 1
    assert '"We will give you 10 poems in total", but each rater gets 4' in result.stderr
    assert "warning" not in result.stdout
    link = f"/r/{tokens.rater_token(tokens.load_secret(run), 'experts', 'R1')}"
    html = TestClient(create_app(run, "experts")).get(link).text
    assert VERBATIM in html  # the instrument stays as it is
    assert "For this study: 4 poems</strong> (not the 10 the instructions above mention)" in html
    assert html.index(VERBATIM) < html.index("For this study")

    exact = runner.invoke(app, [*build, "--per-rater", "10", "--survey", "ten"])
    assert exact.exit_code == 0, exact.output
    assert "warning" not in exact.stderr
    link = f"/r/{tokens.rater_token(tokens.load_secret(run), 'ten', 'R1')}"
    html = TestClient(create_app(run, "ten")).get(link).text
    assert "For this study: 10 poems</strong>." in html


def test_the_paper_sheet_gives_the_real_count_too(tmp_path: Path) -> None:
    """`survey sheets` printed "We will give you 10 poems in total" to a rater given 4, with
    only the grey header line's "4 poems" to say otherwise; the sheet now has the welcome
    page's line under the instructions."""
    run = survey_run(tmp_path / "run", poems=5)
    build = ["survey", "build", "--run", str(run), "--raters", "2", "--per-poem", "2"]
    assert runner.invoke(app, [*build, "--per-rater", "4"]).exit_code == 0
    assert runner.invoke(app, ["survey", "sheets", "--run", str(run)]).exit_code == 0
    html = (run / "survey-experts" / "R1.html").read_text(encoding="utf-8")
    assert "For this study: 4 poems</strong> (not the 10 the instructions above mention)" in html
    assert html.index(VERBATIM) < html.index("For this study") < html.index("Poem 1")
