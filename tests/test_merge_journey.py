"""`merge` of run stores made on two "machines" (folders) through the real CLI: what must not be
counted twice, silently mixed or reported as a conflict, and what a full disk says."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.form.checker import CHECKER_VERSION
from poemetric.store import RunStore
from poemetric.store.merge import merge_runs

ROOT = Path(__file__).resolve().parents[1]
MARKOV = (ROOT / "generators" / "markov.yaml").read_text(encoding="utf-8")


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, [*args], env={"COLUMNS": "400"})


def _generate(run: Path, *extra: str) -> None:
    result = _run("generate", "--no-progress", "--run", str(run), "--limit", "3", *extra)
    assert result.exit_code == 0, result.output


def _merge(dest: Path, *sources: Path) -> Result:
    return _run("merge", *map(str, sources), "--into", str(dest))


def _count(run: Path, table: str) -> int:
    with RunStore(run, create=False) as store:
        return store.count(table)


def test_the_same_answers_stored_on_two_machines_are_no_conflict(tmp_path: Path) -> None:
    """Both machines ran `markov` on the same prompts: the same poems, but each cached answer
    kept its own `latency_s`, and merge reported every cached answer as a conflict ('differs in
    completion'), telling the user of conflicts where the two stores agree."""
    a, b = tmp_path / "a", tmp_path / "b"
    for run in (a, b):
        _generate(run, "--models", "markov")
    result = _merge(tmp_path / "all", a, b)
    assert result.exit_code == 0, result.output
    assert "the destination's rows were kept" not in result.output, result.output
    report = merge_runs([a, b], tmp_path / "again")
    assert report.conflicts == []
    assert report.tables["response_cache"].identical == _count(b, "response_cache") > 0


def test_form_checks_by_this_checker_win_over_an_older_checkers(tmp_path: Path) -> None:
    """Two machines form-checked the same poems, one with an older POEMetric (another
    CHECKER_VERSION): every verdict was a conflict and the destination's was kept, the older
    checker's too, so the merged run mixed checker versions until `form run` redid them."""
    old, new = tmp_path / "old", tmp_path / "new"
    _generate(old, "--models", "markov")
    shutil.copytree(old, new)
    for run in (old, new):
        result = _run("form", "run", "--run", str(run), "--no-progress")
        assert result.exit_code == 0, result.output
    with RunStore(old) as store, store.transaction() as conn:
        conn.execute("UPDATE form_checks SET checker_version = 'form-0.1'")
    for order in ((old, new), (new, old)):
        dest = tmp_path / f"from-{order[1].name}"
        report = merge_runs(list(order), dest)
        assert report.conflicts == [], report.conflicts
        with RunStore(dest, create=False) as store:
            versions = {row[0] for row in store.query("SELECT checker_version FROM form_checks")}
        assert versions == {CHECKER_VERSION}
        result = _run("form", "run", "--run", str(dest), "--no-progress")
        assert "checked 0, skipped 6" in result.output, result.output
