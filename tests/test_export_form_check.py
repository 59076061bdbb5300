"""`poemetric form check` of a run's exported generations gives the run's own verdicts.

An exported `generations` file had no `form` column (nor the requested metre and rhyme
pattern), so `form check` refused it (`missing required column(s) form`) and a user who
exported the poems to check them outside the run had to join the `poems` table in by hand. The
export now carries each generation's request, under the names `form check` reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

runner = CliRunner()
SCORES = ("meter_score", "rhyme_score", "form_score")


@pytest.fixture(scope="module")
def checked_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo dataset answered by the Markov baseline (and the human poems), form-checked."""
    run = tmp_path_factory.mktemp("export-form") / "run"
    generate = ["generate", "--run", str(run), "--dataset", "demo", "--models", "markov"]
    for args in ([*generate, "--no-progress"], ["form", "run", "--run", str(run), "--no-progress"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    return run


def _stage_verdicts(run: Path) -> list[dict[str, object]]:
    """The form stage's stored verdicts, in the export's row order (the generations table's
    natural key, `schema.EXPORT_ORDER`)."""
    with RunStore(run, create=False) as store:
        rows = store.query(
            "SELECT f.passed, f.meter_score, f.rhyme_score, f.form_score, f.error, p.form "
            "FROM generations AS g JOIN form_checks AS f ON f.generation_id = g.generation_id "
            "JOIN poems AS p ON p.poem_id = g.poem_id ORDER BY g.prompt_id, g.author, g.sample_index"
        )
    return [dict(row) for row in rows]


def _check_export(run: Path, tmp_path: Path, fmt: str) -> list[dict[str, Any]]:
    """`form check`'s records for the run's generations exported as `fmt`, in file order."""
    exported = runner.invoke(
        app, ["export", "generations", "--run", str(run), "--to", str(tmp_path), "-f", fmt]
    )
    assert exported.exit_code == 0, exported.output
    out = tmp_path / "checks.jsonl"
    checked = runner.invoke(
        app, ["form", "check", str(tmp_path / f"generations.{fmt}"), "-o", str(out)]
    )
    assert checked.exit_code == 0, checked.output  # was 2: missing required column(s) form
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_form_check_reads_an_export_and_agrees_with_the_form_stage(
    checked_run: Path, tmp_path: Path, fmt: str
) -> None:
    records = _check_export(checked_run, tmp_path, fmt)
    stage = _stage_verdicts(checked_run)
    assert len(records) == len(stage) == 32
    assert {bool(row["passed"]) for row in stage} == {True, False}  # both verdicts are compared
    for record, row in zip(records, stage, strict=True):
        assert record["form"] == str(row["form"]).lower()
        assert record["passed"] == bool(row["passed"]), record["id"]
        assert [record[score] for score in SCORES] == [row[score] for score in SCORES]
        assert record["error"] == row["error"]


def test_the_export_carries_each_generations_request(checked_run: Path, tmp_path: Path) -> None:
    import pandas as pd

    with RunStore(checked_run, create=False) as store:
        path = store.export("generations", tmp_path / "generations.parquet")
        poems = store.frame("poems").set_index("poem_id")
    frame = pd.read_parquet(path)
    assert list(frame.columns[-3:]) == ["form", "meter", "rhyme"]
    for _, row in frame.iterrows():
        poem = poems.loc[row["poem_id"]]
        assert (row["form"], row["meter"], row["rhyme"]) == (
            poem["form"],
            poem["meter"],
            poem["rhyme"],
        )


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_form_check_ids_of_an_export_are_its_generation_ids(
    checked_run: Path, tmp_path: Path, fmt: str
) -> None:
    """Each row's id was its `poem_id`, shared by every author's answer to that poem (the human
    poem and the Markov answer here): the checks could not be joined back to the run. An
    export's rows now keep their `generation_id`, which joins the form stage's table one-to-one."""
    records = _check_export(checked_run, tmp_path, fmt)
    with RunStore(checked_run, create=False) as store:
        generations = store.query(
            "SELECT generation_id, poem_id FROM generations ORDER BY prompt_id, author, sample_index"
        )
        checks = store.query("SELECT generation_id, passed, form_score FROM form_checks")
    assert len({row["poem_id"] for row in generations}) < len(generations)  # poem ids repeat
    ids = [record["id"] for record in records]
    assert ids == [row["generation_id"] for row in generations]
    stage = {row["generation_id"]: row for row in checks}
    assert len(set(ids)) == len(ids) == len(stage) == len(checks) and set(ids) == set(stage)
    for record in records:
        row = stage[record["id"]]
        assert (record["passed"], record["form_score"]) == (bool(row["passed"]), row["form_score"])
