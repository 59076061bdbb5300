"""How `make test` distributes the suite (`--dist loadfile`, tests/conftest.py): by file, with
every module that loads the packaged SmolLM2 in the test process sent to one worker as one unit,
so the model (about 20 s of CPU to load) loads once in the whole run, not once per worker."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SMOLLM2_MODULES, SMOLLM2_UNIT, xdist_work_unit

TESTS = Path(__file__).parent


def takes_the_smollm2_fixture(path: Path) -> bool:
    """Whether a function of the module (a test or a fixture) has a `smollm2` parameter."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        argument.arg == "smollm2"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for argument in node.args.args + node.args.kwonlyargs
    )


def test_every_module_using_the_smollm2_fixture_is_in_the_one_unit() -> None:
    """A new module taking the `smollm2` fixture, left out, would load the model again on the
    other worker; a module named but gone or not using it would be a stale entry."""
    using = {path.name for path in TESTS.glob("test_*.py") if takes_the_smollm2_fixture(path)}
    assert using == SMOLLM2_MODULES


def test_under_loadfile_the_smollm2_modules_run_on_one_worker_and_other_files_apart(
    tmp_path: Path,
) -> None:
    """A real `pytest -n 2 --dist loadfile` (as `make test` runs it) with this conftest, over
    modules named as the SmolLM2 ones and as others: the SmolLM2 modules' tests all run on one
    worker; the other files are still units of their own, shared between the workers."""
    from xdist.scheduler import LoadFileScheduling

    if not hasattr(LoadFileScheduling, "_split_scope"):
        pytest.skip("this pytest-xdist has no LoadFileScheduling._split_scope: files run apart")
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    seen = tmp_path / "seen"
    seen.mkdir()
    test = (
        "import os, pathlib, time\n"
        "def test_{n}():\n"
        "    time.sleep(0.05)\n"
        f"    pathlib.Path({str(seen)!r}, '{{module}}-{{n}}').write_text("
        "os.environ['PYTEST_XDIST_WORKER'])\n"
    )
    others = [f"test_other_{n}.py" for n in range(8)]
    for module in [*SMOLLM2_MODULES, *others]:
        stem = module.removesuffix(".py")
        (tmp_path / module).write_text(
            "".join(test.format(n=n, module=stem) for n in range(3)), encoding="utf-8"
        )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile",
         "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {path.name: path.read_text() for path in seen.iterdir()}
    assert len(workers) == 3 * (len(SMOLLM2_MODULES) + len(others))
    smollm2 = {
        w for name, w in workers.items() if f"{name.rsplit('-', 1)[0]}.py" in SMOLLM2_MODULES
    }
    assert len(smollm2) == 1, workers
    for module in others:  # each file is one unit: its three tests on one worker
        assert len({workers[f"{module.removesuffix('.py')}-{n}"] for n in range(3)}) == 1
    assert set(workers.values()) == {"gw0", "gw1"}
    assert xdist_work_unit("tests/test_local_model.py::test_x[a::b]") == SMOLLM2_UNIT
    assert xdist_work_unit("tests/test_store.py::Class::test_x") == "tests/test_store.py"
