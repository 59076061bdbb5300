"""`analyze --survey NAME` read one survey's answers, but `figures` had no `--survey` and `report`
none either: on a run with two surveys (here the survey restored under a new name, so that each
rater counts twice by default) Figs. 6-8 and the report drew 6 raters where `analyze --survey
experts` counted 3. The three commands take the same option, default and error; and the report
page shows the notes `analyze` prints on the raters who failed an attention check. A real run
where rater R3 fails the check (tests/test_analyze_attention_checks.py)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from test_analyze_attention_checks import _run_where_r3_fails
from typer.testing import CliRunner

from poemetric.analysis import analyze_run
from poemetric.analysis.experts import ExpertRatingsError
from poemetric.analysis.recipes import render_figures
from poemetric.cli import app
from poemetric.report.build import build_report
from poemetric.store import RunStore

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
BARS = "figures:\n  - name: bars\n    kind: dimension_bars\n    group: basic\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run, its survey `experts` exported and imported again as `restored`."""
    base = tmp_path_factory.mktemp("surveys")
    run = _run_where_r3_fails(base)
    answers = base / "answers.csv"
    exported = ["export", "survey_answers", "--run", str(run), "--to", str(answers)]
    assert runner.invoke(app, exported).exit_code == 0
    imported = ["survey", "import", str(answers), "--run", str(run), "--survey", "restored"]
    result = runner.invoke(app, imported)
    assert result.exit_code == 0, result.output
    return run


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args), env=WIDE)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def _analyze_notes(run: Path, *options: str) -> list[str]:
    _invoke("analyze", "--run", str(run), "--bootstrap", "0", *options)
    notes = (run / "analysis" / "NOTES.txt").read_text(encoding="utf-8").splitlines()
    return [n for n in notes if not n.startswith("removed the tables of an earlier analysis")]


def _report(run: Path, *options: str) -> tuple[str, list[str]]:
    """The report page as text, and its notes."""
    _invoke("report", "--run", str(run), "--bootstrap", "0", *options)
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    listed = re.search(r'<ul class="notes">(.*?)</ul>', page, re.S)
    notes = re.findall(r"<li>(.*?)</li>", listed.group(1), re.S) if listed else []
    return " ".join(html.unescape(page).split()), [html.unescape(n) for n in notes]


@pytest.mark.slow
def test_figures_and_report_read_the_survey_analyze_reads(run: Path) -> None:
    recipe = run / "bars.yaml"
    recipe.write_text(BARS, encoding="utf-8")

    def experts_in_figure(*options: str) -> str:
        out = run / f"figures{''.join(options)}"
        figure = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
        output = _invoke(*figure, "--out", str(out), *options)
        caption = (out / "bars.caption.txt").read_text(encoding="utf-8")
        found = re.search(r"Hatched grey bars: (\d+) human experts", caption)
        assert found, caption
        return found.group(1) + (" R3 kept" if "kept in the expert panels" in output else "")

    # Every survey by default, in all three: each rater twice.
    assert "expert ratings from the run's survey answers: 6 raters, 4 poems" in (
        _analyze_notes(run)
    )
    assert experts_in_figure() == "6 R3 kept"
    assert "6 experts rated 4 poems" in _report(run)[0]
    # One survey: 3 raters, as analyze counts them.
    assert "expert ratings from the run's survey answers: 3 raters, 4 poems" in (
        _analyze_notes(run, "--survey", "experts")
    )
    assert experts_in_figure("--survey", "experts") == "3 R3 kept"
    assert experts_in_figure("--survey", "experts", "--exclude-failed-checks") == "2"
    page, notes = _report(run, "--survey", "experts")
    assert "3 experts rated 4 poems" in page
    assert notes == _analyze_notes(run, "--survey", "experts")


@pytest.mark.slow
@pytest.mark.parametrize("options", [[], ["--exclude-failed-checks"]])
def test_the_report_shows_the_screening_notes_analyze_prints(run: Path, options: list[str]) -> None:
    for survey in ([], ["--survey", "experts"]):
        expected = _analyze_notes(run, *survey, *options)
        screening = [n for n in expected if "failed an attention check" in n]
        assert len(screening) == 1, expected
        assert screening[0].startswith("left out 1 rater" if options else "1 rater failed")
        assert _report(run, *survey, *options)[1] == expected


@pytest.mark.slow
def test_an_unknown_survey_is_the_same_error_in_each_command(run: Path, tmp_path: Path) -> None:
    store = run / "poemetric.sqlite"
    for command, out in (("analyze", "a"), ("figures", "f"), ("report", "r.html")):
        output = tmp_path / out
        result = runner.invoke(
            app, [command, "--run", str(run), "--survey", "expert", "--out", str(output)], env=WIDE
        )
        assert result.exit_code == 2, result.output
        assert " ".join(result.output.split()) == (
            f"error: no survey 'expert' (did you mean 'experts'?) in {store}; "
            "surveys: experts, restored"
        )
        assert not output.exists()


@pytest.mark.slow
@pytest.mark.parametrize("command", ["status", "links", "sheets"])
def test_survey_commands_name_the_survey_a_typo_looks_like(run: Path, command: str) -> None:
    """`survey status --survey expert` listed the run's surveys but, unlike `analyze`, named
    none of them as the one meant."""
    result = runner.invoke(app, ["survey", command, "--run", str(run), "--survey", "expert"])
    assert result.exit_code == 2, result.output
    assert " ".join(result.output.split()) == (
        f"error: no survey 'expert' (did you mean 'experts'?) in {run / 'poemetric.sqlite'}; "
        "surveys: experts, restored"
    )


@pytest.mark.slow
def test_experts_and_survey_together_are_refused_in_each_command(run: Path, tmp_path: Path) -> None:
    """`--experts FILE` read the file and silently ignored `--survey NAME`."""
    ratings = tmp_path / "ratings.csv"
    exported = ["export", "survey_answers", "--run", str(run), "--to", str(ratings)]
    assert runner.invoke(app, exported).exit_code == 0
    for command, out in (("analyze", "a"), ("figures", "f"), ("report", "r.html")):
        output = tmp_path / out
        options = ["--experts", str(ratings), "--survey", "experts", "--out", str(output)]
        result = runner.invoke(app, [command, "--run", str(run), *options], env=WIDE)
        assert result.exit_code == 2, result.output
        assert " ".join(result.output.split()) == (
            f"error: --experts {ratings} and --survey experts both choose the expert ratings "
            "(a file, or one of the run's stored surveys): give one"
        )
        assert not output.exists()


@pytest.mark.slow
def test_experts_and_survey_together_are_refused_by_the_library(run: Path, tmp_path: Path) -> None:
    """`analyze_run`, `render_figures` and `build_report` took a ratings file and a survey and
    used the file, ignoring the survey; only the commands refused it. Now they refuse it too,
    with the commands' message, before writing anything."""
    ratings = tmp_path / "ratings.csv"
    exported = ["export", "survey_answers", "--run", str(run), "--to", str(ratings)]
    assert runner.invoke(app, exported).exit_code == 0
    message = (
        f"--experts {ratings} and --survey experts both choose the expert ratings "
        "(a file, or one of the run's stored surveys): give one"
    )
    with RunStore(run, create=False) as store:
        with pytest.raises(ExpertRatingsError) as analyzed:
            analyze_run(store, experts=ratings, survey="experts")
        with pytest.raises(ExpertRatingsError) as drawn:
            render_figures(store, tmp_path / "f", experts=ratings, survey="experts")
        with pytest.raises(ExpertRatingsError) as reported:
            build_report(store, tmp_path / "r.html", experts=ratings, survey="experts")
    assert [str(e.value) for e in (analyzed, drawn, reported)] == [message] * 3
    assert not (tmp_path / "f").exists() and not (tmp_path / "r.html").exists()


def test_help_is_the_same_in_each_command() -> None:
    for command in ("analyze", "figures", "report"):
        result = runner.invoke(app, [command, "--help"], env=WIDE)
        text = " ".join(result.output.replace("│", " ").split())
        assert "--survey <str> Only this survey's stored answers (default: every survey)." in (
            text
        ), text
