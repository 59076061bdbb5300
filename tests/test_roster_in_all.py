"""The built-in group `all` leaves out a model whose file says `in_all: false`: the demo judge
(judges/smollm2-135m.yaml), whose scores say nothing about the poems, was judging every poem on
the CPU for `judge --judge all` (`make judge JUDGE=all`). Named, or through a group it joins, it
still runs; the generators' `all` keeps every shipped model."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import poemetric.cli.models_cmd  # noqa: F401 - registers `poemetric models` on the app
from poemetric.cli import app
from poemetric.roster import UnusableModelError, load_groups, load_roster, select_models

DEMO_JUDGE = "smollm2-135m"


@pytest.fixture(autouse=True)
def _no_user_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POEMETRIC_GENERATORS_DIR", raising=False)
    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)


def _file(folder: Path, name: str, extra: str = "", provider: str = "openai-compatible") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(
        f"name: {name}\nprovider: {provider}\nmodel: m\nbase_url: http://127.0.0.1:9/v1\n"
        f"api_key_env: false\n{extra}",
        encoding="utf-8",
    )


def test_the_judges_all_leaves_out_the_demo_judge_which_runs_when_named() -> None:
    judges = load_roster("judges")
    assert not judges[DEMO_JUDGE].in_all
    assert [name for name, spec in judges.items() if not spec.in_all] == [DEMO_JUDGE]
    every = [spec.name for spec in select_models("all", "judges")]
    assert every == sorted(set(judges) - {DEMO_JUDGE})
    assert "gemini-2.5-pro" in every and "local-openai" in every
    assert [spec.name for spec in select_models(DEMO_JUDGE, "judges")] == [DEMO_JUDGE]
    assert [s.name for s in select_models(f"paper,{DEMO_JUDGE}", "judges")] == [
        "gemini-2.5-pro",
        DEMO_JUDGE,
    ]


def test_the_generators_all_is_every_shipped_model() -> None:
    """Decided: smollm2-135m stays in the generators' `all`. As a generator it writes real
    (weak) poems that real judges score, like markov, the other non-paper model; `paper30` is
    the paper's set."""
    groups = load_groups()
    assert all(spec.in_all for spec in load_roster().values())
    assert set(groups["all"]) == set(groups["paper30"]) | {"markov", DEMO_JUDGE}


def test_in_all_false_leaves_a_model_out_of_all_only(tmp_path: Path) -> None:
    _file(tmp_path, "real")
    _file(tmp_path, "toy", "in_all: false\ngroups: [toys]\n")
    assert [s.name for s in select_models("all", "judges", directory=tmp_path)] == ["real"]
    assert [s.name for s in select_models("toy", "judges", directory=tmp_path)] == ["toy"]
    assert [s.name for s in select_models("toys", "judges", directory=tmp_path)] == ["toy"]
    assert load_groups("judges", directory=tmp_path)["toys"] == ["toy"]


def test_an_unusable_file_outside_all_does_not_stop_all(tmp_path: Path) -> None:
    """A demo model whose file cannot be used (its provider not installed) is not run by `all`,
    so it is no reason to stop it; one in `all` is, naming the file."""
    _file(tmp_path, "real")
    _file(tmp_path, "toy", "in_all: false\n", provider="not-installed")
    assert [s.name for s in select_models("all", "judges", directory=tmp_path)] == ["real"]
    with pytest.raises(UnusableModelError, match=r"toy\.yaml"):
        select_models("toy", "judges", directory=tmp_path)
    _file(tmp_path, "toy", "", provider="not-installed")
    with pytest.raises(UnusableModelError, match=r"toy\.yaml"):
        select_models("all", "judges", directory=tmp_path)


def test_judge_all_plans_without_the_demo_judge(tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    runner = CliRunner()
    env = {"COLUMNS": "200"}
    generate = ["generate", "--run", run, "--dataset", "demo", "--models", "markov", "--limit", "1"]
    assert runner.invoke(app, [*generate, "--no-progress"], env=env).exit_code == 0
    for selection, judges in (("all", "5 judges"), (DEMO_JUDGE, "1 judge")):
        args = ["judge", "--run", run, "--judge", selection, "--dry-run", "--no-progress"]
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
        assert f"dataset demo (1 poem), {judges} x 1 sample" in result.output
        assert (f"│ {DEMO_JUDGE} " in result.output) == (selection == DEMO_JUDGE), result.output


def test_models_list_says_whom_all_leaves_out() -> None:
    listed = CliRunner().invoke(app, ["models", "--judges"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    assert f"all: every one but {DEMO_JUDGE} (in_all: false)" in listed.output
    generators = CliRunner().invoke(app, ["models"], env={"COLUMNS": "200"})
    assert generators.exit_code == 0 and "every one but" not in generators.output
