"""docs/providers.md's "Writing a provider" example, copied as a user copies it: the package
(provider.py and pyproject.toml) installed offline with the documented pip command, the model
file, then the documented checks. Its pyproject.toml had no [build-system] and the install
fetched setuptools (failing without a network), and its model file had no price, so every
command warned "price unknown for my-model"."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _section() -> str:
    text = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    start = text.index("## Writing a provider")
    return text[start : text.index("\n## ", start + 1)]


def _block(language: str) -> str:
    blocks = re.findall(rf"^ *```{language}\n(.*?)^ *```", _section(), re.S | re.M)
    assert len(blocks) == 1, language
    return textwrap.dedent(blocks[0])


def _offline_install_command() -> list[str]:
    """The documented `pip install ... --target DIR path/to/mypkg` for a machine without a
    network (the one with `--no-build-isolation`)."""
    prose = re.sub(r"```.*?```", "", _section(), flags=re.S)
    spans = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", prose)]
    commands = [s for s in spans if s.startswith("pip install") and "--no-build-isolation" in s]
    assert commands, "no offline install command in the section"
    return shlex.split(commands[0])


def test_the_plugin_example_installs_offline_and_runs_without_a_price_warning(
    tmp_path: Path,
) -> None:
    pytest.importorskip("setuptools")  # what --no-build-isolation builds with
    package = tmp_path / "path" / "to" / "mypkg"
    (package / "src" / "mypkg").mkdir(parents=True)
    (package / "src" / "mypkg" / "__init__.py").write_text("")
    (package / "src" / "mypkg" / "provider.py").write_text(_block("python"))
    (package / "pyproject.toml").write_text(_block("toml"))
    models = tmp_path / "my-models"
    models.mkdir()
    (models / "my-model.yaml").write_text(_block("yaml"))

    words = _offline_install_command()
    assert words[:2] == ["pip", "install"] and words[-1] == "path/to/mypkg"
    # --no-index: no index or network is reached, as on a compute node
    pip = [sys.executable, "-m", "pip", *words[1:-1], "--no-index", str(package)]
    pip = [str(tmp_path / "DIR") if word == "DIR" else word for word in pip]
    installed = subprocess.run(pip, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "DIR"), str(ROOT)]),
        "POEMETRIC_GENERATORS_DIR": str(models),
        "MYSERVICE_API_KEY": "test-value",  # preflight reads it; no call is made
        "COLUMNS": "200",
    }

    def poemetric(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "poemetric", *args],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    shown = poemetric("models", "show", "my-model")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "myprovider" in shown.stdout and "unusable" not in shown.stdout
    plan = poemetric(
        "generate", "--run", str(tmp_path / "runs" / "try"), "--models", "my-model",
        "--limit", "2", "--dry-run", "--no-progress",
    )  # fmt: skip
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert "cannot run" not in plan.stdout + plan.stderr
    assert "price unknown" not in plan.stderr
