"""`analyze --exclude-failed-checks` left the raters who failed the survey's attention check out
of the agreement tables, but `figures` (Figs. 6-8 draw the stored expert ratings) had no such
option and said nothing of them, and the survey's admin page counted them with nothing saying
so. `figures` takes the same option, default and notes; the admin page says that every rater
counts, naming those who failed. A real run where rater R3 fails the check."""

from __future__ import annotations

import html
from pathlib import Path

import httpx
import pytest
from survey_support import serving
from test_analyze_attention_checks import _run_where_r3_fails
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.survey import tokens
from poemetric.survey.web import create_app

runner = CliRunner()
WIDE = {"COLUMNS": "400"}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run_where_r3_fails(tmp_path_factory.mktemp("checks"))


def _figures(run: Path, *options: str) -> tuple[str, str]:
    """The command's output and the caption of Fig. 6-8's bars."""
    recipe = run / "bars.yaml"
    recipe.write_text(
        "figures:\n  - name: bars\n    kind: dimension_bars\n    group: basic\n", encoding="utf-8"
    )
    out = run / f"figures{'-'.join(options)}"
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = runner.invoke(app, [*command, "--out", str(out), *options], env=WIDE)
    assert result.exit_code == 0, result.output
    caption = (out / "bars.caption.txt").read_text(encoding="utf-8")
    return " ".join(result.output.split()), " ".join(caption.split())


@pytest.mark.slow
def test_figures_leave_out_failed_raters_on_request_and_name_them(run: Path) -> None:
    output, caption = _figures(run)
    assert "Hatched grey bars: 3 human experts" in caption
    assert (
        "note 1 rater failed an attention check and is kept in the expert panels (Figs. 6-8) "
        "(--exclude-failed-checks leaves them out): R3 (failed 1 of 1 taken)" in output
    ), output

    output, caption = _figures(run, "--exclude-failed-checks")
    assert "Hatched grey bars: 2 human experts" in caption
    assert (
        "note left out 1 rater who failed an attention check (--exclude-failed-checks): "
        "R3 (failed 1 of 1 taken)" in output
    ), output


@pytest.mark.slow
def test_the_admin_page_says_that_every_rater_counts(run: Path) -> None:
    admin = tokens.admin_token(tokens.load_secret(run), "experts")
    with serving(create_app(run, "experts")) as url:
        page = httpx.get(f"{url}/admin/{admin}", timeout=60)
    page.raise_for_status()
    text = " ".join(html.unescape(page.text).split())
    assert (
        "Every rater counts here, the 1 rater who failed an attention check too: R3 (failed 1 of "
        "1 taken). So does `poemetric analyze` by default; `poemetric analyze "
        "--exclude-failed-checks` leaves this rater out." in text
    ), text
