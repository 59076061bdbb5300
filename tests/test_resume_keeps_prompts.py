"""A run prepared with `--limit 3` and resumed without it (the user forgot it, or typed the
shorter command that a hint printed) was widened to every poem of the dataset, and every model
was asked for all of them: `jobs 16, done before 3, to call 13`, paid calls nobody asked for.
A command on an existing run without `--limit` keeps the prompts the run holds now and says so
in one line; widening takes an explicit `--limit N` (or `--limit all`); a new run without
`--limit` still takes every poem. The generator is served by the local OpenAI-compatible
server, which counts the calls made."""

from __future__ import annotations

from pathlib import Path

from test_merge_coverage import POEM, UserModel, _cli, _model_file, _ok
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.pipeline import ALL_POEMS, prepare_run
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

DEMO_POEMS = 16
NOTE = f"run holds prompts for 3 of {DEMO_POEMS} poems; --limit {DEMO_POEMS} widens it"


def _counts(run: Path, model: str = "tg") -> tuple[int, int]:
    """The run's prompts, and the model's stored generations."""
    with RunStore(run) as store:
        return store.count("prompts"), store.count("generations", f"author = '{model}'")


def _plan_row(output: str, model: str = "tg") -> list[str]:
    """The cells of `model`'s row in the plan or summary table."""
    (row,) = [line for line in output.splitlines() if line.strip("│ ").startswith(model)]
    return row.replace("│", " ").split()


def test_a_resume_without_limit_keeps_the_runs_prompts(
    tmp_path: Path, user_model: UserModel
) -> None:
    run = tmp_path / "run"
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        first = _ok("generate", "--no-progress", "--run", run, "--models", "tg", "--limit", "3")
        assert NOTE in first.output
        assert len(server.generation_requests) == 3

        plan = _ok("generate", "--no-progress", "--run", run, "--models", "tg", "--dry-run")
        assert "dataset demo (3 poems)" in plan.output
        assert NOTE in plan.output
        assert _plan_row(plan.output)[1:5] == ["3", "3", "0", "0"]  # jobs, done, cached, pending

        resumed = _ok("generate", "--no-progress", "--run", run, "--models", "tg")
        assert len(server.generation_requests) == 3  # 16 before: 13 more paid calls
        assert _counts(run) == (3, 3)
        assert "dataset demo (3 poems)" in resumed.output
        assert NOTE in resumed.output
        assert _plan_row(resumed.output)[1:3] == ["3", "3"]  # jobs, done before


def test_widening_takes_an_explicit_limit(tmp_path: Path, user_model: UserModel) -> None:
    run = tmp_path / "run"
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        _ok("generate", "--no-progress", "--run", run, "--models", "tg", "--limit", "3")

        plan = _ok("generate", "--no-progress", "--run", run, "--models", "tg", "-n", "5",
                   "--dry-run")  # fmt: skip
        assert _plan_row(plan.output)[1:5] == ["5", "3", "0", "2"]
        assert _counts(run) == (3, 3)  # a plan writes nothing
        wider = _ok("generate", "--no-progress", "--run", run, "--models", "tg", "--limit", "5")
        assert len(server.generation_requests) == 5
        assert _counts(run) == (5, 5)
        assert f"run holds prompts for 5 of {DEMO_POEMS} poems" in wider.output

        plan = _ok("generate", "--no-progress", "--run", run, "--models", "tg", "--limit", "all",
                   "--dry-run")  # fmt: skip
        assert _plan_row(plan.output)[1:5] == ["16", "5", "0", "11"]
        every = _ok("generate", "--no-progress", "--run", run, "--models", "tg", "--limit", "all")
        assert len(server.generation_requests) == DEMO_POEMS  # the plan's 11 pending, no more
        assert _counts(run) == (DEMO_POEMS, DEMO_POEMS)
        assert "run holds prompts" not in every.output
        assert f"dataset demo ({DEMO_POEMS} poems)" in every.output


def test_a_new_run_without_limit_takes_every_poem(tmp_path: Path) -> None:
    run = tmp_path / "run"
    plan = _ok("generate", "--no-progress", "--run", run, "--dry-run")
    assert _plan_row(plan.output, "markov")[1:5] == ["16", "0", "0", "16"]
    assert not run.exists()
    result = _ok("generate", "--no-progress", "--run", run)
    assert _counts(run, "markov") == (DEMO_POEMS, DEMO_POEMS)
    assert "run holds prompts" not in result.output


def test_a_limit_that_is_neither_a_number_nor_all_is_refused(tmp_path: Path) -> None:
    for value in ("0", "some"):
        result = _cli("generate", "--no-progress", "--run", tmp_path / "run", "--limit", value)
        assert result.exit_code == 2, result.output
        assert "Invalid value for '--limit'" in result.output
    assert not (tmp_path / "run").exists()


def test_prepare_run_keeps_an_existing_runs_prompts(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        prepare_run(store, "demo", limit=3)
        again = prepare_run(store, "demo")
        assert (len(again.dataset), again.prompts_added, again.poems_held) == (3, 0, 3)
        assert again.poems_in_dataset == DEMO_POEMS
        assert store.count("prompts") == 3
        every = prepare_run(store, "demo", limit=ALL_POEMS)
        assert (len(every.dataset), every.prompts_added, every.poems_held) == (16, 13, 16)


def test_the_demo_resumed_without_limit_keeps_its_prompts(tmp_path: Path) -> None:
    run = tmp_path / "demo"
    _ok("demo", "--run", run, "--no-local", "--no-progress", "--limit", "3")
    again = _ok("demo", "--run", run, "--no-local", "--no-progress")
    assert NOTE in again.output
    assert "2/5 generate 1 model: 0 new ok, 0 errors, 3 already done, 0 calls" in again.output
    assert _counts(run, "markov") == (3, 3)


def test_under_make_the_note_names_make_s_variable(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _ok("generate", "--no-progress", "--run", run, "--limit", "3")
    env = {"POEMETRIC_MAKE": "1", "COLUMNS": "400"}
    result = CliRunner().invoke(app, ["generate", "--no-progress", "--run", str(run)], env=env)
    assert result.exit_code == 0, result.output
    assert f"run holds prompts for 3 of {DEMO_POEMS} poems; LIMIT={DEMO_POEMS} widens it" in (
        result.output
    )


def test_a_limit_above_the_datasets_size_says_every_poem_is_used(tmp_path: Path) -> None:
    """`--limit 500` on a 16-poem dataset was capped silently: the user was not told that the
    dataset has fewer poems than asked for."""
    run = tmp_path / "run"
    capped = f"--limit 500: the dataset has {DEMO_POEMS} poems; all {DEMO_POEMS} are used"
    plan = _ok("generate", "--no-progress", "--run", run, "--limit", "500", "--dry-run")
    assert capped in plan.output
    result = _ok("generate", "--no-progress", "--run", run, "--limit", "500")
    assert capped in result.output
    assert _counts(run, "markov") == (DEMO_POEMS, DEMO_POEMS)
    exact = _ok("generate", "--no-progress", "--run", run, "--limit", str(DEMO_POEMS))
    assert "the dataset has" not in exact.output  # as many as asked for: nothing to say

    demo = _ok("demo", "--run", tmp_path / "demo", "--no-local", "--no-progress", "-n", "99")
    assert f"--limit 99: the dataset has {DEMO_POEMS} poems; all {DEMO_POEMS} are used" in (
        demo.output
    )
    env = {"POEMETRIC_MAKE": "1", "COLUMNS": "400"}
    args = ["generate", "--no-progress", "--run", str(run), "--limit", "500"]
    under_make = CliRunner().invoke(app, args, env=env)
    assert under_make.exit_code == 0, under_make.output
    assert f"LIMIT=500: the dataset has {DEMO_POEMS} poems; all {DEMO_POEMS} are used" in (
        under_make.output
    )
