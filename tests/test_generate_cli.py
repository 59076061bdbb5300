"""`poemetric generate` end to end with the offline Markov generator."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.paths import resource_path
from poemetric.store import RunStore


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, ["generate", "--no-progress", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_dry_run_then_run_then_nothing_left(tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    out = invoke("--run", run, "--models", "markov", "--limit", "3", "--samples", "2", "--dry-run")
    assert "plan (dry run)" in out and "Nothing was" in out
    assert not Path(run).exists()  # a plan makes no run
    invoke("--run", run, "--models", "markov", "--limit", "3", "--samples", "2")
    with RunStore(run) as store:
        rows = store.query("SELECT status, poem, cost_usd FROM generations WHERE author = 'markov'")
        assert len(rows) == 6 and all(r["status"] == "ok" and r["poem"] for r in rows)
        calls = store.count("calls")
    invoke("--run", run, "--models", "markov", "--limit", "3", "--samples", "2")
    with RunStore(run) as store:
        assert store.count("calls") == calls  # second run: zero calls


def test_a_dry_run_leaves_the_run_byte_for_byte_as_it_was(tmp_path: Path) -> None:
    """`--dry-run` ("call nothing") prepared the run before planning it: it made a new run's
    folder and store, and stored the prompts and human rows of poems a larger --limit added."""
    run = tmp_path / "runs" / "new"
    out = invoke("--run", str(run), "--models", "markov", "--limit", "2", "--dry-run")
    assert "plan (dry run)" in out and "Nothing was" in out
    assert not (tmp_path / "runs").exists()
    invoke("--run", str(run), "--models", "markov", "--limit", "2")
    files = {path.name: path.read_bytes() for path in run.iterdir()}
    assert set(files) == {"poemetric.sqlite"}
    out = invoke(
        "--run", str(run), "--models", "markov", "--limit", "4", "--samples", "2", "--dry-run"
    )
    # The plan counts the two poems the larger --limit adds, without adding them.
    row = next(line for line in out.splitlines() if line.startswith("│ markov"))
    jobs_done_cached_pending = [cell.strip() for cell in row.split("│")[2:6]]
    assert jobs_done_cached_pending == ["8", "2", "0", "6"]
    assert {path.name: path.read_bytes() for path in run.iterdir()} == files
    from poemetric.data import load_dataset, write_dataset

    other = tmp_path / "other.jsonl"
    write_dataset(load_dataset("demo").poems[:2], other)
    result = CliRunner().invoke(
        app, ["generate", "--run", str(run), "--dataset", str(other), "--dry-run"],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    assert result.exit_code == 2  # the error names the run, not the copy the plan was made in
    assert result.stderr.startswith(f"error: run {run} was prepared from dataset 'demo'")
    assert {path.name: path.read_bytes() for path in run.iterdir()} == files


def test_shards_cover_the_run_once(tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    for k in range(3):
        invoke(
            "--run",
            run,
            "--models",
            "markov",
            "--limit",
            "5",
            "--samples",
            "2",
            "--shard",
            f"{k}/3",
        )
    with RunStore(run) as store:
        rows = store.query(
            "SELECT COUNT(*) AS n, COUNT(DISTINCT prompt_id || sample_index) AS jobs "
            "FROM generations WHERE author = 'markov'"
        )
        assert (rows[0]["n"], rows[0]["jobs"]) == (10, 10)
        assert store.count("calls") == 10


def test_bad_shard_and_help(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["generate", "--run", str(tmp_path), "--shard", "3/3"])
    assert result.exit_code != 0 and "0 <= K < N" in result.output
    help_text = CliRunner().invoke(app, ["generate", "--help"]).output
    assert "--max-cost" in help_text and "--shard" in help_text and "Examples" in help_text


def test_dataset_problems_are_clear_errors(tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    for dataset, message in (
        ("nosuch", "unknown dataset 'nosuch'"),
        (str(tmp_path / "missing.csv"), "does not exist"),
    ):
        result = CliRunner().invoke(app, ["generate", "--run", run, "--dataset", dataset])
        assert result.exit_code == 2, result.output
        assert message in result.output and result.exception is not None
        assert "Traceback" not in result.output
    invoke("--run", run, "--limit", "1")
    other = tmp_path / "other.csv"
    other.write_text("not,a,dataset\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["generate", "--run", run, "--dataset", str(other)])
    assert result.exit_code == 2 and "other.csv" in result.output
    from poemetric.data import load_dataset, write_dataset

    mixed = tmp_path / "mixed.jsonl"
    write_dataset(load_dataset("demo").poems[:2], mixed)
    result = CliRunner().invoke(app, ["generate", "--run", run, "--dataset", str(mixed)])
    assert result.exit_code == 2 and "use another --run directory" in result.output
    with RunStore(run, create=False) as store:  # an existing run is kept as it was
        assert store.count("generations", "author = 'human'") == 1


def test_a_failed_first_preparation_leaves_no_store_behind(tmp_path: Path) -> None:
    """A mistyped dataset must not leave an empty store that later looks like a run."""
    nested = tmp_path / "runs" / "typo" / "run"
    kept = tmp_path / "existing"
    kept.mkdir()
    for run in (nested, kept):
        for extra in ([], ["--dry-run"]):
            result = CliRunner().invoke(
                app, ["generate", "--run", str(run), "--dataset", "nosuch", *extra]
            )
            assert result.exit_code == 2 and "unknown dataset 'nosuch'" in result.output
    assert not (tmp_path / "runs").exists()  # the folders it made are gone too
    assert kept.is_dir() and list(kept.iterdir()) == []  # a folder that was there stays
    bad = tmp_path / "bad.csv"
    bad.write_text("not,a,dataset\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["generate", "--run", str(nested), "--dataset", str(bad), "--dry-run"]
    )
    assert result.exit_code == 2 and not (tmp_path / "runs").exists()


def test_a_failed_preparation_never_removes_a_run_another_process_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `generate` commands start on the same new run; the one with the mistyped dataset
    fails while the other prepares the run. Its cleanup must not remove the other's store."""
    import poemetric.data
    import poemetric.pipeline
    from poemetric.data import Dataset, DatasetError

    run = tmp_path / "shared-run"
    real_load = poemetric.data.load_dataset

    def other_process_prepares_then_this_one_fails(spec: str) -> Dataset:
        if spec != "nosuch":
            return real_load(spec)
        with RunStore(run) as store:
            poemetric.pipeline.prepare_run(store, "demo", limit=1)
        raise DatasetError(f"unknown dataset {spec!r}")

    for module in (poemetric.data, poemetric.pipeline):  # wherever the command looks it up
        monkeypatch.setattr(module, "load_dataset", other_process_prepares_then_this_one_fails)
    result = CliRunner().invoke(app, ["generate", "--run", str(run), "--dataset", "nosuch"])
    assert result.exit_code == 2 and "unknown dataset 'nosuch'" in result.output
    with RunStore(run, create=False) as store:
        assert store.count("generations", "author = 'human'") == 1


def test_a_run_another_process_prepared_after_the_dataset_was_read_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other command prepares the new run from another dataset just as this one opens the
    store (after its check that the store is new): this one's preparation then fails on the
    mismatch, and must not remove the other's run as if this call had made it."""
    import poemetric.pipeline
    import poemetric.store
    from poemetric.data import load_dataset, write_dataset

    run = tmp_path / "shared-run"
    two = tmp_path / "two.csv"
    write_dataset(load_dataset("demo").poems[:2], two)

    class OtherPreparesFirst(RunStore):
        def __init__(self, run_dir: str | Path, *, create: bool = True) -> None:
            if Path(run_dir) == run and not run.exists():
                with RunStore(run) as other:
                    poemetric.pipeline.prepare_run(other, "demo", limit=1)
            super().__init__(run_dir, create=create)

    monkeypatch.setattr(poemetric.store, "RunStore", OtherPreparesFirst)
    result = CliRunner().invoke(app, ["generate", "--run", str(run), "--dataset", str(two)])
    assert result.exit_code == 2 and "was prepared from dataset 'demo'" in result.output
    with RunStore(run, create=False) as store:
        assert store.count("generations", "author = 'human'") == 1


def test_demo_refuses_an_unknown_judge(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--run", str(tmp_path / "d"), "--judge", "nosuch"])
    assert result.exit_code == 2 and "unknown judge 'nosuch'" in result.output
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("command", [["demo"], ["judge"]])
def test_an_unknown_judge_from_the_environment_is_named_as_such(
    tmp_path: Path, command: list[str]
) -> None:
    """`POEMETRIC_JUDGE=gemni poemetric demo` said "--judge: unknown judge 'gemni'" to a user who
    had typed no --judge; the error names the variable. A --judge given keeps its own name."""
    run = tmp_path / "d"
    if command == ["judge"]:
        CliRunner().invoke(app, ["generate", "--run", str(run), "--limit", "1", "--no-progress"])
    env = {"POEMETRIC_JUDGE": "gemni", "COLUMNS": "400"}
    result = CliRunner().invoke(app, [*command, "--run", str(run)], env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        "error: POEMETRIC_JUDGE (set in the environment): unknown judge"
    )
    assert "'gemni'" in result.stderr and "judges: claude-3.7-sonnet" in result.stderr
    given = CliRunner().invoke(app, [*command, "--run", str(run), "--judge", "gemni"], env=env)
    assert given.exit_code == 2 and "POEMETRIC_JUDGE (set" not in given.stderr
    assert "unknown judge" in given.stderr
    assert command == ["judge"] or not run.exists()


@pytest.mark.parametrize("command", [["demo"], ["judge"]])
def test_a_misspelt_judge_family_is_told_the_judge_it_looks_like(
    tmp_path: Path, command: list[str]
) -> None:
    """`--judge gemni` got no "did you mean" in demo or judge: the whole name gemini-2.5-pro is
    only 0.53 like it (cut-off 0.6); its first part, gemini, is 0.91 like it."""
    run = tmp_path / "d"
    if command == ["judge"]:
        RunStore(run).close()
    result = CliRunner().invoke(
        app, [*command, "--run", str(run), "--judge", "gemni"], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    assert "unknown judge" in result.stderr
    assert "'gemni' (did you mean 'gemini-2.5-pro'?)" in result.stderr, result.stderr
    assert command == ["judge"] or not run.exists()


@pytest.mark.parametrize(
    ("value", "env", "named"),
    [
        ("pilot", {}, "--judge: 'pilot' is a judge group (gemini-2.5-pro, gpt-4o, deepseek-r1)"),
        ("gpt-4o,deepseek-r1", {}, "--judge: 'gpt-4o,deepseek-r1' names 2 judges"),
        (None, {"POEMETRIC_JUDGE": "pilot"}, "POEMETRIC_JUDGE (set in the environment): 'pilot'"),
    ],
)
def test_demo_names_a_judge_group_as_a_group_with_the_command_that_takes_it(
    tmp_path: Path, value: str | None, env: dict[str, str], named: str
) -> None:
    """`make help` said demo's JUDGE= took groups, as `judge` does; `demo --judge pilot` said
    "unknown judge 'pilot'". It says the demo runs one judge, and how to judge with the group."""
    run = tmp_path / "d"
    given = ["--judge", value] if value else []
    result = CliRunner().invoke(
        app, ["demo", "--run", str(run), *given], env={**env, "COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {named}"), line
    assert "demo runs one judge: give one (e.g. --judge " in line
    assert f"`poemetric judge --run {run} --judge {value or 'pilot'}`" in line
    assert "unknown judge" not in line and not run.exists()


def test_demo_under_make_names_one_judge_as_make_takes_it(tmp_path: Path) -> None:
    """`make demo JUDGE=pilot` said "give one (e.g. --judge gemini-2.5-pro)": typed as written,
    `make demo --judge gemini-2.5-pro` is make's own option, which make refuses."""
    run = tmp_path / "d"
    command = ["demo", "--run", str(run), "--judge", "pilot"]
    result = CliRunner().invoke(app, command, env={"POEMETRIC_MAKE": "1", "COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert "demo runs one judge: give one (e.g. JUDGE=gemini-2.5-pro)" in line, line
    assert f"`make judge RUN={run} JUDGE=pilot`" in line and not run.exists()


def test_demo_refuses_a_judge_without_its_key_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make demo JUDGE=gemini-2.5-pro` without the key generated, checked and analysed first
    (minutes with the local model) and named the missing variable only at the end."""
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    run = tmp_path / "d"
    command = ["demo", "--run", str(run), "--judge", "gemini-2.5-pro", "--no-local"]
    result = CliRunner().invoke(app, command, terminal_width=400)
    # 1, as `generate` and `judge` exit for a model that cannot run (2: unusable input)
    assert result.exit_code == 1, result.output
    judge_file = resource_path("judges", "gemini-2.5-pro.yaml")  # line 4: `provider: google`
    assert (
        f"--judge gemini-2.5-pro: model 'gemini-2.5-pro' (provider 'google', {judge_file}:4) "
        "needs an API key: set the environment variable GEMINI_API_KEY or GOOGLE_API_KEY"
        in result.output
    )
    assert "nothing was run" in result.output
    assert not run.exists()
    # `judge` with the same judge refuses it with the same status
    ran = CliRunner().invoke(app, ["generate", "--run", str(run), "--limit", "1", "--no-progress"])
    assert ran.exit_code == 0, ran.output
    judged = CliRunner().invoke(app, ["judge", "--run", str(run), "--judge", "gemini-2.5-pro"])
    assert judged.exit_code == result.exit_code == 1, judged.output
    assert "gemini-2.5-pro cannot run" in " ".join(judged.output.split())


def test_models_that_cannot_run_for_one_cause_share_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`generate --models paper30 --dry-run` without keys or vLLM printed 30 "cannot run" lines,
    27 of them one of three causes; models with the same cause share one line naming them."""
    from poemetric.runner.not_run_lines import not_run_lines

    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    models = "gpt-4o,claude-3.5-sonnet,gpt-4,markov,o1"
    command = ["generate", "--no-progress", "--run", str(tmp_path / "r"), "--models", models]
    dry = CliRunner().invoke(app, [*command, "--limit", "2", "--dry-run"], env={"COLUMNS": "400"})
    assert dry.exit_code == 0, dry.output
    lines = [line for line in dry.output.splitlines() if "left pending" in line]
    claude = resource_path("generators", "claude-3.5-sonnet.yaml")
    assert lines == [  # each file's place is said on a line of its own model only
        "3 models cannot run (6 jobs left pending: gpt-4o, gpt-4, o1): each model (provider "
        "'openai') needs an API key: set the environment variable OPENAI_API_KEY",
        "claude-3.5-sonnet cannot run (2 jobs left pending): model 'claude-3.5-sonnet' "
        f"(provider 'anthropic', {claude}:3) needs an API key: set the environment variable "
        "ANTHROPIC_API_KEY",
    ]
    (alone,) = not_run_lines([("mine", 2, "ValueError: 'mine' broke")])
    assert alone.head() == "mine cannot run (2 jobs left pending)"
    assert alone.reason == "ValueError: 'mine' broke"


def test_a_model_without_its_key_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = tmp_path / "r"
    command = ["generate", "--no-progress", "--run", str(run), "--models", "gpt-4o,markov",
               "--limit", "2"]  # fmt: skip
    dry = CliRunner().invoke(app, [*command, "--dry-run"])
    assert dry.exit_code == 0 and "gpt-4o cannot run" in dry.output
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "gpt-4o cannot run (2 jobs left pending)" in output and "OPENAI_API_KEY" in output
    with RunStore(run) as store:
        # No error row per job: the other model ran, and gpt-4o's jobs stay pending.
        assert store.count("generations", "author = 'gpt-4o'") == 0
        assert store.count("generations", "author = 'markov' AND status = 'ok'") == 2
        assert store.count("calls", "provider = 'openai'") == 0


def test_a_dry_run_does_not_price_a_model_that_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--dry-run` priced a model without its key as any other (in its row and in the total)
    while saying it cannot run: its estimate is not applicable, and the total says that it
    leaves such models out."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    command = ["generate", "--no-progress", "--run", str(tmp_path / "r"), "--models",
               "gpt-4o,markov", "--limit", "2", "--dry-run"]  # fmt: skip
    dry = CliRunner().invoke(app, command, env={"COLUMNS": "200"})
    assert dry.exit_code == 0, dry.output
    rows = {line.split()[1]: line for line in dry.output.splitlines() if line.startswith("│")}
    assert rows["gpt-4o"].split("│")[-2].strip() == "n/a (cannot run)"
    assert rows["markov"].split("│")[-2].strip() == "0.0000"
    assert (
        "Estimated cost of the pending calls: $0.0000 (input from prompt length, output per call "
        "from the model's answers so far in this stage (95th percentile) where it has some, else "
        "a typical answer length; batch discount applied with --batch), excluding 1 model that "
        "cannot run (below); once it can run, it adds an estimated $"
    ) in " ".join(dry.output.split())


def test_a_wrong_key_stops_the_model_with_one_line_and_a_rerun_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_model: Callable[..., Path]
) -> None:
    """A wrong OPENAI_API_KEY made one 'HTTP 401: openai: HTTP 401: Error code: 401' error row
    per job (4 jobs, 4 identical errors) and as many refused requests."""
    from poemetric.testing import OpenAIServer

    right, wrong = "sk-right-0123456789abcdef", "sk-wrong-fedcba9876543210"
    run = tmp_path / "run"
    command = ["generate", "--no-progress", "--run", str(run), "--models", "my-gpt",
               "--limit", "2", "--samples", "2"]  # fmt: skip
    with OpenAIServer(api_key=right) as server:
        user_model(
            "generators",
            "my-gpt",
            f"name: my-gpt\nprovider: openai\nmodel: gpt-4o\nbase_url: {server.base_url}\n"
            "limits:\n  max_concurrency: 1\n",
        )
        monkeypatch.setenv("OPENAI_API_KEY", wrong)
        result = CliRunner().invoke(app, command, env={"COLUMNS": "200"})
        assert result.exit_code == 1, result.output
        line = "my-gpt: authentication failed (HTTP 401): check OPENAI_API_KEY; 4 jobs left for "
        assert [x for x in result.output.splitlines() if "401" in x] == [line + "the next run"]
        assert wrong not in result.output and "0 errors" not in result.output
        assert len(server.requests) == 1
        with RunStore(run, create=False) as store:
            assert store.count("generations", "author = 'my-gpt'") == 0

        monkeypatch.setenv("OPENAI_API_KEY", right)
        invoke(*command[2:])
        with RunStore(run, create=False) as store:
            assert store.count("generations", "author = 'my-gpt' AND status = 'ok'") == 4
        assert len(server.successful_generations) == 4  # each job paid for once


BROKEN = "name: broken\nprovider: openai\nmodel: x\nsettings:\n  temprature: 1\n"
TYPO = "settings.temprature: unknown key 'temprature' (did you mean 'temperature'?)"


@pytest.mark.parametrize("variable", ["POEMETRIC_GENERATORS_DIR", "POEMETRIC_JUDGES_DIR"])
def test_demo_with_a_broken_user_model_file_is_an_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """A mistyped key in a file of the user's roster folder ended `demo` in a RosterError
    traceback (after it had made the run's store, for a generator file). Now such a file stops
    the demo only when the demo uses its model: a user `markov.yaml`, or `--judge broken`."""
    folder = tmp_path / "mine"
    folder.mkdir()
    name, args = ("markov", []) if "GENERATORS" in variable else ("broken", ["--judge", "broken"])
    (folder / f"{name}.yaml").write_text(BROKEN.replace("broken", name), encoding="utf-8")
    monkeypatch.setenv(variable, str(folder))
    run = tmp_path / "demo"
    result = CliRunner().invoke(
        app, ["demo", "--run", str(run), "--no-progress", *args], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    what, flag = ("model", "") if "GENERATORS" in variable else ("judge", " --judges")
    assert result.stderr.splitlines() == [
        f"error: {folder / f'{name}.yaml'}:5: {what} {name!r} cannot be used: {TYPO}; details: "
        f"`poemetric models show {name}{flag}`"
    ]
    assert not run.exists()


@pytest.mark.parametrize(
    ("args", "variable", "first"),
    [
        (["generate", "--models", "markv"], None,
         "error: unknown model or group 'markv' (did you mean 'markov'?); see `poemetric models`"),
        (["generate", "--models", "broken"], "POEMETRIC_GENERATORS_DIR",
         "error: {path}:5: model 'broken' cannot be used: " + TYPO),
        (["judge", "--judge", "gpt4o"], None,
         "error: unknown judge or group 'gpt4o' (did you mean 'gpt-4o'?); see `poemetric models "
         "--judges` (files read from "),
        (["judge", "--judge", "broken"], "POEMETRIC_JUDGES_DIR",
         "error: {path}:5: judge 'broken' cannot be used: " + TYPO),
    ],
    ids=["unknown-model", "broken-model", "unknown-judge", "broken-judge"],
)  # fmt: skip
def test_roster_errors_of_generate_and_judge_are_error_lines(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    variable: str | None,
    first: str,
) -> None:
    """They were Typer's usage box, which cut a model file's path and its problems across
    the box's lines (at 80 columns a path in a home folder did not fit)."""
    folder = tmp_path / "mine"
    if variable:
        folder.mkdir()
        (folder / "broken.yaml").write_text(BROKEN, encoding="utf-8")
        monkeypatch.setenv(variable, str(folder))
    run = tmp_path / "run"
    RunStore(run).close()
    result = CliRunner().invoke(app, [*args, "--run", str(run), "--dry-run"], env={"COLUMNS": "80"})
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Usage:" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(first.format(path=folder / "broken.yaml"))


def test_a_model_file_without_api_key_env_says_what_to_add(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """An openai-compatible file without `api_key_env` (the provider has no default variable) was
    listed as usable and planned by --dry-run with status 0; only a run said "needs an API key",
    without the file. It is an unusable file, refused with its file before anything runs."""
    path = user_model(
        "generators",
        "keyless",
        "name: keyless\nprovider: openai-compatible\nmodel: m\nbase_url: http://127.0.0.1:9/v1\n",
    )
    run = tmp_path / "r"
    for dry_run in (["--dry-run"], []):
        result = CliRunner().invoke(
            app,
            ["generate", "--no-progress", "--run", str(run), "--models", "keyless", *dry_run],
            env={"COLUMNS": "400"},
        )
        assert (result.exit_code, result.stdout) == (2, ""), result.output
        assert result.stderr.startswith(
            f"error: {path}:2: model 'keyless' cannot be used: api_key_env: missing"
        )
        assert not run.exists()
    shown = CliRunner().invoke(app, ["models", "show", "keyless"], env={"COLUMNS": "400"})
    assert shown.exit_code == 2
    assert (
        f"{path}:2: api_key_env: missing; provider 'openai-compatible' has no default key "
        "variable: name the environment variable that holds the server's key (e.g. api_key_env: "
        "MY_SERVER_KEY), or write api_key_env: false for a server that checks no key"
    ) in shown.stderr


@pytest.mark.parametrize("command", [["generate"], ["demo", "--no-progress"]], ids=" ".join)
def test_a_file_in_place_of_the_run_folder_is_an_error_not_a_traceback(
    tmp_path: Path, command: list[str]
) -> None:
    """`--run` naming a file (or a folder under one) ended in mkdir's FileExistsError traceback."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n", encoding="utf-8")
    for run, reason in ((a_file, "not a folder"), (a_file / "run", f"({a_file} is a file)")):
        result = CliRunner().invoke(
            app, [*command, "--run", str(run), "--limit", "1"], env={"COLUMNS": "400"}
        )
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        (line,) = result.stderr.splitlines()  # stdout: at most the demo's title
        assert line.startswith(f"error: --run {run}: not a folder") and reason in line
    assert a_file.read_text(encoding="utf-8") == "mine\n"


def test_a_dry_runs_summary_line_counts_the_calls_of_the_models_that_can_run() -> None:
    """The one-line summary (the demo's, logs) counted the calls of models that cannot run
    ("6 calls planned, estimated $0.01, excluding 1 model that cannot run") while its estimate
    left them out."""
    from poemetric.runner.report import ModelReport, StageReport

    plan = StageReport("generate", dry_run=True)
    plan.models = [
        ModelReport("gpt-4o", "openai", pending=4, not_run="needs an API key"),
        ModelReport("markov", "markov", pending=2, from_cache_to_call=1),
    ]
    assert plan.summary_line().startswith("2 models, 3 calls planned, estimated $0.0000")
    assert plan.summary_line().endswith(", excluding 1 model that cannot run")


def test_a_plan_says_what_the_models_that_cannot_run_yet_would_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's `generate ... --dry-run  # plan + cost` before setting any key: every paid
    model "n/a (cannot run)" and "Estimated cost of the pending calls: $0.0000, excluding 30
    models that cannot run", nothing on what they would cost. The plan now adds what they
    would cost once they can run: the estimate the same plan gives with the key set."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["generate", "--run", str(tmp_path / "r"), "--models", "gpt-4o", "--limit", "2"]
    args += ["--dry-run", "--no-progress"]
    keyless = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert keyless.exit_code == 0, keyless.output
    text = " ".join(keyless.output.split())
    found = re.search(r"once it can run, it adds an estimated \$(\d+\.\d{4})\. Nothing", text)
    assert found is not None, text
    assert "Estimated cost of the pending calls: $0.0000" in text
    keyed = CliRunner().invoke(app, args, env={"COLUMNS": "400", "OPENAI_API_KEY": "sk-test"})
    assert keyed.exit_code == 0, keyed.output
    priced = f"Estimated cost of the pending calls: ${found.group(1)} "
    assert priced in " ".join(keyed.output.split()) and float(found.group(1)) > 0
