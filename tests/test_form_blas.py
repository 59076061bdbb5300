"""Form checks run BLAS on one thread: the metre search's products are small, and a pool of one
thread per core only spins (poemetric/form/blas.py, docs/benchmarks.md)."""

from __future__ import annotations

import json
import operator
import os
import subprocess
import sys

import pytest
from threadpoolctl import threadpool_info, threadpool_limits
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.form import parallel
from poemetric.form.blas import BLAS_THREAD_VARIABLES, ask_one_blas_thread
from poemetric.form.checker import batch_checks

LIMERICK = (
    "There was an Old Man with a beard,\n"
    "Who said, 'It is just as I feared!\n"
    "Two Owls and a Hen,\n"
    "Four Larks and a Wren,\n"
    "Have all built their nests in my beard!'\n"
)
BLAS_THREADS_OF_A_NEW_PROCESS = (
    "import json, numpy, threadpoolctl;"
    "print(json.dumps(sorted({lib['num_threads'] for lib in threadpoolctl.threadpool_info()"
    " if lib['user_api'] == 'blas'})))"
)


@pytest.fixture
def no_blas_variables() -> None:
    """The variables unset for the test (conftest's autouse fixture restores them after it)."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.pop(name, None)


def _blas_threads(libraries: list[dict[str, object]]) -> set[object]:
    threads = {lib["num_threads"] for lib in libraries if lib["user_api"] == "blas"}
    assert threads, f"threadpoolctl found no BLAS library under numpy: {libraries}"
    return threads


#: Also read by OpenBLAS (after OPENBLAS_NUM_THREADS) and MKL: a CI runner that sets
#: OMP_NUM_THREADS=1 must not make the default pool look like one thread.
OTHER_THREAD_VARIABLES = ("GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _new_process_threads(code: str, *, stdin: str | None = None) -> list[int]:
    unset = (*BLAS_THREAD_VARIABLES, *OTHER_THREAD_VARIABLES)
    env = {k: v for k, v in os.environ.items() if k not in unset}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    threads: list[int] = json.loads(done.stdout.splitlines()[-1])  # after a command's output
    return threads


def test_asking_before_numpy_loads_gives_one_thread_from_the_start() -> None:
    asked = "from poemetric.form.blas import ask_one_blas_thread; ask_one_blas_thread();"
    assert _new_process_threads(asked + BLAS_THREADS_OF_A_NEW_PROCESS) == [1]
    if parallel.available_cpus() > 1:  # the default pool, for contrast
        assert _new_process_threads(BLAS_THREADS_OF_A_NEW_PROCESS)[0] > 1


@pytest.mark.usefixtures("no_blas_variables")
def test_a_value_the_user_set_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    ask_one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3" and os.environ["MKL_NUM_THREADS"] == "1"


@pytest.mark.usefixtures("no_blas_variables")
def test_the_form_commands_ask_for_one_thread() -> None:
    result = CliRunner().invoke(app, ["form", "scan", "-", "--form", "limerick"], input=LIMERICK)
    assert result.exit_code == 0, result.output
    assert all(os.environ[name] == "1" for name in BLAS_THREAD_VARIABLES)


def test_a_form_command_loads_numpy_with_one_blas_thread() -> None:
    """The variables only count when they are set before numpy loads: a whole `form scan`
    process, whose numpy the command itself loads, runs BLAS on one thread."""
    command = (
        "import sys; from poemetric.cli import main;"
        "sys.argv = ['poemetric', 'form', 'scan', '-', '--form', 'limerick'];\n"
        "try:\n main()\n"
        "except SystemExit as end:\n assert not end.code, end.code\n"
        "assert 'numpy' in sys.modules;"
    )
    assert _new_process_threads(command + BLAS_THREADS_OF_A_NEW_PROCESS, stdin=LIMERICK) == [1]


@pytest.mark.usefixtures("no_blas_variables")
def test_workers_ask_for_one_thread_and_leave_the_parent_alone() -> None:
    seen = list(parallel.map_in_order(os.getenv, ["OPENBLAS_NUM_THREADS"] * 2, jobs=2))
    assert seen == ["1", "1"]
    assert not any(name in os.environ for name in BLAS_THREAD_VARIABLES)


def test_workers_run_blas_on_one_thread() -> None:
    seen = list(parallel.map_in_order(operator.call, [threadpool_info] * 2, jobs=2))
    assert [_blas_threads(libraries) for libraries in seen] == [{1}, {1}]


def test_a_batch_limits_a_loaded_pool_and_gives_it_back() -> None:
    """A library caller's numpy is loaded before any form code runs: the batch limits the pool
    while it runs, through threadpoolctl."""
    with threadpool_limits(limits=2, user_api="blas"):  # a pool of two, even on one CPU
        assert _blas_threads(threadpool_info()) == {2}
        with batch_checks():
            assert _blas_threads(threadpool_info()) == {1}
        assert _blas_threads(threadpool_info()) == {2}
