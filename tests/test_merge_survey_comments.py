"""`merge` of a survey whose rater added a comment on the second machine: every page save stores
the empty comment boxes as `''`, so the first machine held an empty comment where the second
held the rater's comment, and the merge called that a conflict, kept the empty box, exited 1 and
described it as "no score"."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from click.testing import Result
from survey_support import answers_of, serving, survey_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.web import create_app

pytestmark = pytest.mark.slow

COMMENT = "comment_overall_quality"


def _cli(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def _save(run: Path, rater: str, field: str, value: str, edited: int | None) -> str:
    """One save of the survey app serving `run`, as the page's script sends it; the poem."""
    secret = tokens.load_secret(run, create=False)
    token = tokens.rater_token(secret, "experts", rater)
    data = {"csrf": tokens.csrf_token(secret, "experts", rater), "field": field, "value": value}
    if edited is not None:
        data["edited"] = str(edited)
    with serving(create_app(run, "experts")) as url:
        saved = httpx.post(f"{url}/r/{token}/1/save", data=data, timeout=10)
    assert saved.status_code == 200, saved.text
    with RunStore(run, create=False) as store:
        return db.pages(store, "experts", rater)[0].generation_id


def _two_machines(tmp_path: Path) -> tuple[Path, Path]:
    """Machine a: R1's first poem saved with its comment box empty (`''`, no edit time, as a
    page's "Save and next" stores an untouched box); b: a copy of a."""
    a = survey_run(tmp_path / "a", poems=4)
    result = _cli("survey", "build", "--run", a, "--raters", "2", "--per-rater", "4")
    assert result.exit_code == 0, result.output
    tokens.load_secret(a)  # the links are made (`survey links` or `serve`)
    _save(a, "R1", COMMENT, "", None)
    b = tmp_path / "b"
    shutil.copytree(a, b)
    return a, b


def test_a_comment_written_on_the_second_machine_is_merged_in_either_order(
    tmp_path: Path,
) -> None:
    a, b = _two_machines(tmp_path)
    poem = _save(b, "R1", COMMENT, "a fine volta", 1_800_000_000_000)
    assert answers_of(a, "R1")[(poem, COMMENT)] == (None, "")
    for order in ((b, a), (a, b)):
        dest = tmp_path / "-".join(run.name for run in order)
        result = _cli("merge", *order, "--into", dest)
        assert result.exit_code == 0, result.output
        assert "differ from" not in result.output
        assert answers_of(dest, "R1")[(poem, COMMENT)] == (None, "a fine volta")
        with RunStore(dest, create=False) as store:
            edited = db.edit_times(store, "experts", "R1", poem)
        assert edited[COMMENT] == 1_800_000_000_000


def test_a_comment_cleared_after_it_was_written_is_still_named(tmp_path: Path) -> None:
    """The rater wrote a comment on a and cleared it later on b: a real difference, named."""
    a, b = _two_machines(tmp_path)
    poem = _save(a, "R1", COMMENT, "first thoughts", 1_800_000_000_000)
    _save(b, "R1", COMMENT, "", 1_800_000_000_001)
    result = _cli("merge", b, "--into", a)
    assert result.exit_code == 1, result.output
    assert f"R1 on {poem}, {COMMENT}: an empty comment there, 'first thoughts' here" in " ".join(
        result.output.split()
    )
    assert answers_of(a, "R1")[(poem, COMMENT)] == (None, "first thoughts")
