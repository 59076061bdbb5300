"""`merge` of stores whose form checks were made by different checker versions, of different
poems (shards checked on two machines, one with an older POEMetric): each check was copied,
there was no second check of the same poem to choose between, and the merged run mixed the
verdicts of two checkers with nothing said and exit status 0 (Fig. 5 and the form tables then
compared authors by two rules)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.form.checker import CHECKER_VERSION
from poemetric.store import RunStore
from poemetric.store.merge import merge_runs


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, [*args], env={"COLUMNS": "400"})


def _checked_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Two stores of the same markov poems: `old` checked all by 'form-0.1', `new` half of them
    by this POEMetric's checker."""
    old, new = tmp_path / "old", tmp_path / "new"
    result = _run(
        "generate", "--no-progress", "--run", str(old), "--limit", "4", "--models", "markov"
    )
    assert result.exit_code == 0, result.output
    result = _run("form", "run", "--run", str(old), "--no-progress")
    assert result.exit_code == 0, result.output
    shutil.copytree(old, new)
    with RunStore(old) as store, store.transaction() as conn:
        conn.execute("UPDATE form_checks SET checker_version = 'form-0.1'")
    with RunStore(new) as store, store.transaction() as conn:
        conn.execute("DELETE FROM form_checks WHERE rowid % 2 = 0")
    return old, new


def test_checks_of_two_checker_versions_are_named(tmp_path: Path) -> None:
    old, new = _checked_runs(tmp_path)
    dest = tmp_path / "all"
    result = _run("merge", str(new), str(old), "--into", str(dest))
    flat = " ".join(result.output.split())
    assert result.exit_code == 0, result.output  # `form run`, the usual next step, fixes it
    assert (
        f"mixed: the form checks of {dest} were made by different rules (form-0.1 at threshold "
        f"0.7: 4 checks; {CHECKER_VERSION} at threshold 0.7: 4 checks)"
    ) in flat, flat
    assert f"poemetric form run --run {dest}" in flat
    with RunStore(dest, create=False) as store:
        versions = {row[0] for row in store.query("SELECT checker_version FROM form_checks")}
    assert versions == {CHECKER_VERSION, "form-0.1"}  # merged, as said
    strict = _run("merge", str(new), str(old), "--into", str(tmp_path / "strict"), "--strict")
    assert strict.exit_code == 1 and "mixed: the form checks" in strict.output, strict.output

    result = _run("form", "run", "--run", str(dest), "--no-progress")
    assert result.exit_code == 0, result.output
    again = _run("merge", str(dest), "--into", str(dest))  # re-checked alike: nothing said
    assert again.exit_code == 0 and "mixed" not in again.output, again.output


def test_checks_of_one_rule_say_nothing(tmp_path: Path) -> None:
    old, new = _checked_runs(tmp_path)
    report = merge_runs([old], tmp_path / "old-only")
    assert report.form_rules == []
    with RunStore(new) as store, store.transaction() as conn:
        conn.execute("DELETE FROM form_checks")
    result = _run("merge", str(new), str(old), "--into", str(tmp_path / "all"))
    assert result.exit_code == 0 and "mixed" not in result.output, result.output
