"""`report --judge X` on a run of several judges: the overview counted every judge's judgments
("Judges 1" beside "Judgments (successful) 22" and "Judgments failed 2" where the judge shown
had 12 and none failed: the other judge's), unlike its notes, tables and charts."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


def _facts(page: Path) -> dict[str, str]:
    html = page.read_text(encoding="utf-8")
    overview = html[html.index('<section id="overview"') : html.index("</section>")]
    return dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", overview))


def test_the_overview_counts_the_chosen_judges_judgments(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=("human", "model-a"), poems_per_form=2,
                             judges=("judge-x", "judge-y")) as store:  # fmt: skip
        # judge-y: 2 of its 12 judgments failed, one answer was not a poem
        store.conn.execute(
            "UPDATE judgments SET status = 'error', error = 'HTTP 500', form = NULL "
            "WHERE judge = 'judge-y' AND generation_id IN "
            "(SELECT generation_id FROM generations WHERE poem_id = 'ballad-0')"
        )
        store.conn.execute(
            "UPDATE judgments SET status = 'not_judged', form = NULL WHERE judge = 'judge-y' "
            "AND generation_id IN (SELECT generation_id FROM generations WHERE poem_id = "
            "'ballad-1' AND author = 'model-a')"
        )
        store.conn.commit()
    runner = CliRunner()
    for judge, ok, failed, not_judged in (("judge-x", "12", "0", "0"), ("judge-y", "9", "2", "1")):
        page = tmp_path / f"{judge}.html"
        result = runner.invoke(
            app, ["report", "--run", str(run), "--judge", judge, "--out", str(page)]
        )
        assert result.exit_code == 0, result.output
        facts = _facts(page)
        assert facts["Judges"] == "1"
        assert facts["Judgments (successful)"] == ok, judge
        assert facts["Judgments failed"] == failed, judge
        assert facts["Not judged (not a poem)"] == not_judged, judge
    everyone = tmp_path / "all.html"
    result = runner.invoke(app, ["report", "--run", str(run), "--out", str(everyone)])
    assert result.exit_code == 0, result.output
    facts = _facts(everyone)
    assert (facts["Judges"], facts["Judgments (successful)"], facts["Judgments failed"],
            facts["Not judged (not a poem)"]) == ("2", "21", "2", "1")  # fmt: skip


def test_a_judge_whose_every_call_failed_is_counted_among_the_judges(tmp_path: Path) -> None:
    """ "Judges" counted the judges with a successful judgment: one that failed every call read
    "Judges 1" while the Judges section listed both."""
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=("human", "model-a"), poems_per_form=2,
                             judges=("judge-x", "judge-y")) as store:  # fmt: skip
        store.conn.execute(
            "UPDATE judgments SET status = 'error', error = 'HTTP 500', form = NULL "
            "WHERE judge = 'judge-y'"
        )
        store.conn.commit()
    page = tmp_path / "all.html"
    result = CliRunner().invoke(app, ["report", "--run", str(run), "--out", str(page)])
    assert result.exit_code == 0, result.output
    facts = _facts(page)
    assert (facts["Judges"], facts["Judgments (successful)"], facts["Judgments failed"]) == (
        "2", "12", "12",
    )  # fmt: skip
    html = page.read_text(encoding="utf-8")
    judges = html[html.index('<section id="judges"') :]
    assert "judge-y" in judges[: judges.index("</section>")]
