"""A command whose output file is its own input refuses (exit 2) instead of replacing the input
with its output: `form check poems.csv -o poems.csv` turned a dataset into form checks, `probe
run pairs.jsonl -o pairs.jsonl` the pairs into scores, `probe build poems.csv -o poems.csv` the
poems into pairs (`judge parse` already refused), and `report --out RUN/poemetric.sqlite` the
run store into HTML, each with exit status 0."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import DemoTemplate, copy_demo_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.paths import resource_path
from poemetric.store import RunStore


def _invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    return result.exit_code, result.stderr


@pytest.fixture
def demo_run(tmp_path: Path, demo_run_template: DemoTemplate) -> Path:
    """A whole demo run of this test's own (the tests check that it is left intact)."""
    return copy_demo_run(demo_run_template, tmp_path / "demo")


def _pairs(tmp_path: Path) -> Path:
    pairs = tmp_path / "pairs.jsonl"
    build = ["probe", "build", "lear-limericks", "-o", str(pairs), "--limit", "3"]
    code, err = _invoke([*build, "--tasks", "rhyme_line_swap"])
    assert code == 0, err
    return pairs


@pytest.mark.parametrize(
    ("command", "loss"),
    [
        (["form", "check"], "the poems would be replaced by their checks"),
        (["probe", "build"], "the poems would be replaced by pairs"),
        (["probe", "run"], "the pairs would be replaced by scores"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
def test_an_output_that_is_the_input_file_is_refused(
    tmp_path: Path, command: list[str], loss: str
) -> None:
    if command == ["probe", "run"]:
        source = _pairs(tmp_path)
    else:
        source = tmp_path / "poems.csv"
        shutil.copyfile(resource_path("datasets", "demo", "poems.csv"), source)
    before = source.read_bytes()
    (tmp_path / "sub").mkdir()
    # The same file under another spelling is the same file.
    for output in (source, tmp_path / "sub" / ".." / source.name):
        code, err = _invoke([*command, str(source), "-o", str(output)])
        assert code == 2
        assert err.strip() == (
            f"error: -o {output} is the input file: {loss}; give another file name"  # as typed
        )
    assert source.read_bytes() == before


def test_another_output_file_is_still_written(tmp_path: Path) -> None:
    pairs = _pairs(tmp_path)
    scores = tmp_path / "scores.jsonl"
    code, err = _invoke(["probe", "run", str(pairs), "-o", str(scores)])
    assert code == 0, err
    assert scores.read_text(encoding="utf-8").count("\n") == pairs.read_text().count("\n")


def test_report_out_naming_a_run_store_is_refused(tmp_path: Path, demo_run: Path) -> None:
    """`report --run runs/x --out runs/x/poemetric.sqlite` (a completed path) wrote the HTML
    over the run store, exit status 0: every stored poem, judgment and paid answer was gone."""
    run = demo_run
    store = run / "poemetric.sqlite"
    other = tmp_path / "other" / "poemetric.sqlite"
    other.parent.mkdir()
    shutil.copyfile(store, other)
    for out in (store, other):
        code, err = _invoke(["report", "--run", str(run), "--out", str(out)])
        assert code == 2
        assert err.strip() == (
            f"error: --out {out} is a SQLite database (a run store?): the output would replace "
            "it; give another file name"
        )
    with RunStore(run) as opened:
        assert opened.count("generations", "status = 'ok'") == 32
    code, err = _invoke(["report", "--run", str(run), "--out", str(tmp_path / "r.html")])
    assert code == 0, err


@pytest.mark.parametrize("command", [["form", "check"], ["judge", "parse"]])
def test_a_jsonl_output_naming_a_run_store_is_refused(
    tmp_path: Path, demo_run: Path, command: list[str]
) -> None:
    """`form check` and `judge parse` write their `-o` through one replace-on-success file: a
    run store named there (a completed path) would have been replaced by JSON lines."""
    run = demo_run
    store = run / "poemetric.sqlite"
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "a\\nb", "form": "sonnet", "answer": "{}"}\n', encoding="utf-8")
    code, err = _invoke([*command, str(source), "-o", str(store)])
    assert code == 2
    assert "is a SQLite database (a run store?): the output would replace it" in err
    with RunStore(run) as opened:
        assert opened.count("generations", "status = 'ok'") == 32
