"""Under make (POEMETRIC_MAKE=1, set by the Makefile) the notes of `analyze` and `figures` name
make's targets: they said "(run `poemetric judge`)", a command not on the PATH of a user who only
runs make (the venv is not activated), and without the run, so it went to `runs/default`."""

from __future__ import annotations

import html
import re
import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.runner.rows import UNPARSABLE
from poemetric.store import RunStore
from poemetric.store.db import utc_now


@pytest.fixture(scope="module")
def unjudged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with poems, neither form-checked nor judged."""
    run = tmp_path_factory.mktemp("hints") / "my runs" / "demo"
    result = CliRunner().invoke(
        app,
        ["generate", "--run", str(run), "--dataset", "demo", "--models", "markov", "--limit", "2",
         "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return run


@pytest.mark.parametrize("command", ["analyze", "figures"])
def test_notes_under_make_name_make_targets(unjudged: Path, tmp_path: Path, command: str) -> None:
    args = [command, "--run", str(unjudged)]
    if command == "figures":  # the notes do not depend on the format: PNG alone, half the files
        args += ["--out", str(tmp_path / "figures"), "--format", "png"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": "1"})
    assert result.exit_code == 0, result.output
    run = shlex.quote(str(unjudged))
    assert f"(run `make judge RUN={run} JUDGE=NAME`)" in result.output
    assert f"(run `make form RUN={run}`)" in result.output
    assert "`poemetric " not in result.output
    plain = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": ""})
    # `poemetric judge --run RUN` alone stops with "No judge given" (exit 2), as make's does
    assert f"(run `poemetric judge --run {run} --judge NAME`)" in plain.output
    assert f"(run `poemetric form run --run {run}`)" in plain.output


def pending_run(tmp_path: Path) -> Path:
    """A one-poem run whose one judgment (by remote-test) waits for its re-ask."""
    run = tmp_path / "my runs" / "pending"
    generated = CliRunner().invoke(
        app,
        ["generate", "--run", str(run), "--dataset", "demo", "--models", "markov", "--limit", "1",
         "--no-progress"],
    )  # fmt: skip
    assert generated.exit_code == 0, generated.output
    with RunStore(run) as store, store.transaction() as conn:
        (generation_id,) = conn.execute(
            "SELECT generation_id FROM generations WHERE status = 'ok' LIMIT 1"
        ).fetchone()
        conn.execute(
            "INSERT INTO judgments (judgment_id, generation_id, judge, status, error, reasks, "
            "created_at) VALUES ('j1', ?, 'remote-test', 'error', ?, 0, ?)",
            (generation_id, f"{UNPARSABLE}no JSON object", utc_now()),
        )
    return run


def test_the_pending_reask_note_names_the_command_with_the_run(tmp_path: Path) -> None:
    """A judgment pending its re-ask (a stopped `judge`): the note said "running `poemetric
    judge` again finishes them" under make too, and without the run (`runs/default`) or the
    judge whose re-ask is due."""
    run = pending_run(tmp_path)
    quoted = shlex.quote(str(run))
    args = ["analyze", "--run", str(run)]
    under_make = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": "1"})
    assert under_make.exit_code == 0, under_make.output
    said = " ".join(under_make.output.split())
    assert "1 judgment is pending a re-ask" in said
    assert f"running `make judge RUN={quoted} JUDGE=remote-test` again finishes them" in said
    assert "`poemetric " not in said
    plain = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": ""})
    said = " ".join(plain.output.split())
    assert f"running `poemetric judge --run {quoted} --judge remote-test` again" in said


def test_the_pending_reask_note_names_every_judge_whose_reask_is_due(tmp_path: Path) -> None:
    """Pending re-asks of two judges: the note's command named no judge at all (`poemetric
    judge --run R`, refused by `poemetric judge`: "No judge given"); it names both, as
    `--judge` takes them."""
    run = pending_run(tmp_path)
    with RunStore(run, create=False) as store, store.transaction() as conn:
        (generation_id,) = conn.execute(
            "SELECT generation_id FROM judgments WHERE judgment_id = 'j1'"
        ).fetchone()
        conn.execute(
            "INSERT INTO judgments (judgment_id, generation_id, judge, status, error, reasks, "
            "created_at) VALUES ('j2', ?, 'other-test', 'error', ?, 0, ?)",
            (generation_id, f"{UNPARSABLE}no JSON object", utc_now()),
        )
    result = CliRunner().invoke(
        app, ["analyze", "--run", str(run)], env={"COLUMNS": "400", "POEMETRIC_MAKE": ""}
    )
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "2 judgments are pending a re-ask" in said
    command = f"poemetric judge --run {shlex.quote(str(run))} --judge other-test,remote-test"
    assert f"running `{command}` again" in said
    caption = (run / "analysis" / "judges.md").read_text(encoding="utf-8").replace("\\`", "`")
    assert f"running `{command}` again finishes them" in " ".join(caption.split())
    assert f"running {command} again finishes them" in page_text(run, "")


def test_the_generate_hint_names_the_runs_own_dataset(tmp_path: Path) -> None:
    """`make generate RUN=R` (and `poemetric generate --run R`) take the demo dataset, which a
    run prepared from another file refuses, or, for a new run, fills it with the demo's poems:
    the hint names the run's dataset (its file, or its registry name), else DATASET=NAME."""
    from poemetric.hints import recorded_dataset, stage_command

    data = tmp_path / "my poems.csv"
    data.write_text(
        "form,title,author,content,meter_pattern,rhyme_pattern,theme\n"
        'limerick,One,Nobody,"a\nb\nc\nd\ne",anapestic,AABBA,sea\n',
        encoding="utf-8",
    )
    runs = {"mine": str(data), "demo": "demo"}
    for name, dataset in runs.items():
        args = ["generate", "--run", str(tmp_path / name), "--dataset", dataset, "--limit", "1"]
        result = CliRunner().invoke(app, [*args, "--no-progress"])
        assert (tmp_path / name / "poemetric.sqlite").is_file(), result.output
    with RunStore(tmp_path / "mine", create=False) as store:
        assert recorded_dataset(store) == str(data)
    with RunStore(tmp_path / "demo", create=False) as store:
        assert recorded_dataset(store) == "demo"
    quoted = shlex.quote(str(data))
    assert stage_command("generate", "r", dataset=str(data)) == (
        f"poemetric generate --run r --dataset {quoted}"
    )
    with pytest.MonkeyPatch.context() as patched:
        patched.setenv("POEMETRIC_MAKE", "1")
        assert stage_command("generate", "r", dataset=str(data)) == (
            f"make generate RUN=r DATASET={quoted}"
        )
        assert stage_command("generate", "r") == "make generate RUN=r DATASET=NAME"


def page_text(run: Path, make: str) -> str:
    """`poemetric report` (under make when `make` is 1): the page's text, unescaped, tags dropped
    and whitespace folded."""
    result = CliRunner().invoke(app, ["report", "--run", str(run)], env={"POEMETRIC_MAKE": make})
    assert result.exit_code == 0, result.output
    page = html.unescape((run / "report" / "index.html").read_text(encoding="utf-8"))
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_the_report_and_the_judges_caption_name_the_judge_command(tmp_path: Path) -> None:
    """The report's form-only leaderboard ("No judgments yet (run `poemetric judge`)"), its
    judges table and the `judges` table's caption in analysis/judges.md (a judgment pending its
    re-ask: "`poemetric judge` was stopped; running it again finishes them") named a command
    without the run, which went to `runs/default`, and not on a make user's PATH."""
    run = pending_run(tmp_path)
    unjudged = tmp_path / "my runs" / "unjudged"
    generated = CliRunner().invoke(
        app,
        ["generate", "--run", str(unjudged), "--dataset", "demo", "--models", "markov",
         "--limit", "1", "--no-progress"],
    )  # fmt: skip
    assert generated.exit_code == 0, generated.output
    assert CliRunner().invoke(app, ["form", "run", "--run", str(unjudged)]).exit_code == 0
    pending, plain = shlex.quote(str(run)), shlex.quote(str(unjudged))
    made = page_text(unjudged, "1")
    assert f"No judgments yet (run make judge RUN={plain} JUDGE=NAME )" in made
    assert f"(run poemetric judge --run {plain} --judge NAME )" in page_text(unjudged, "")
    finish = "judging was stopped; running {} again finishes them"
    assert finish.format(f"make judge RUN={pending} JUDGE=remote-test") in page_text(run, "1")
    command = f"poemetric judge --run {pending} --judge remote-test"
    assert finish.format(command) in page_text(run, "")
    for make, said in (("1", f"make judge RUN={pending} JUDGE=remote-test"), ("", command)):
        result = CliRunner().invoke(
            app, ["analyze", "--run", str(run)], env={"POEMETRIC_MAKE": make}
        )
        assert result.exit_code == 0, result.output
        caption = (run / "analysis" / "judges.md").read_text(encoding="utf-8").replace("\\`", "`")
        assert finish.format(f"`{said}`") in " ".join(caption.split())


def test_the_form_leaderboard_of_a_run_whose_judgments_all_failed_names_the_judge(
    tmp_path: Path,
) -> None:
    """A run judged, but with no usable judgment yet (here one pending its re-ask): the report's
    leaderboard said "No judgments yet (run `poemetric judge --run R`)", a command that
    `poemetric judge` refuses without a judge. It names the judge and says the judgments so far
    are not usable yet."""
    run = pending_run(tmp_path)
    assert CliRunner().invoke(app, ["form", "run", "--run", str(run)]).exit_code == 0
    quoted = shlex.quote(str(run))
    said = page_text(run, "")
    assert (
        f"No successful judgments yet (run poemetric judge --run {quoted} --judge remote-test "
        "again)" in said
    )
    made = page_text(run, "1")
    assert f"(run make judge RUN={quoted} JUDGE=remote-test again)" in made


def test_a_dataset_not_fetched_names_the_venvs_poemetric_under_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make generate DATASET=poemetric` before the fetch said "run `poemetric dataset fetch
    poemetric`", which is not on a make user's PATH (the venv is not activated)."""
    monkeypatch.setenv("POEMETRIC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("POEMETRIC_MAKE", "1")
    monkeypatch.setattr(sys, "argv", ["/home/me/poemetric/.venv/bin/poemetric"])
    result = CliRunner().invoke(app, ["dataset", "show", "poemetric"])
    assert result.exit_code == 2
    assert (
        "run `/home/me/poemetric/.venv/bin/poemetric dataset fetch poemetric` or pass the path"
        in " ".join(result.output.split())
    ), result.output
