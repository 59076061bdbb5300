"""A plugin class's `name` was never checked against its entry point's name: a class saying
"something-else" registered as `othername` ran, and its errors said "something-else: ..." to a
user whose model file said `othername`. The entry point's name is the name; the class must repeat
it. Plugins are installed through real entry points (docs/providers.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_provider_plugins import GOOD, Installer, cli, install, user_models

__all__ = ["install", "user_models"]  # fixtures

MISNAMED = GOOD.replace('"NAME"', '"something-else"')
UNNAMED = GOOD.replace('        name: ClassVar[str] = "NAME"\n', "")


@pytest.mark.parametrize(
    ("source", "said"),
    [(MISNAMED, "says name = 'something-else'"), (UNNAMED, "sets no `name`")],
    ids=["other-name", "no-name"],
)
def test_a_class_named_otherwise_than_its_entry_point_is_an_error(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    source: str,
    said: str,
) -> None:
    module = install("othername", source)
    mine = user_models("generators", "mine", "name: mine\nprovider: othername\nmodel: x\n")
    reason = (
        f"provider 'othername' (entry point 'othername = {module}:Plugin' of package {module} "
        f"0.1): Plugin {said}, but its entry point names it 'othername': model files name a "
        "provider by its entry point (`provider: othername`) and its messages by `name`, so "
        "they must be the same; set `name: ClassVar[str] = 'othername'` in Plugin, or rename "
        "the entry point (and the model files' `provider:`)"
    )
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--no-progress")
    assert code == 2, out + err
    assert err.startswith(f"error: {mine}: model 'mine': {reason}"), err
    assert not run.exists()  # refused before the run was prepared
    code, out, err = cli("models")
    assert code == 0 and f"  mine: {reason}  ({mine})" in out.splitlines(), out + err


def test_a_class_named_as_its_entry_point_runs(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    install("othername", GOOD)  # the fixture gives the class its entry point's name
    user_models("generators", "mine", "name: mine\nprovider: othername\nmodel: x\n")
    code, out, err = cli("generate", "--run", str(tmp_path / "run"), "--models", "mine",
                         "--limit", "1", "--no-progress")  # fmt: skip
    assert code == 0, out + err
