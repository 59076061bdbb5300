"""An entry point naming a large object that is no provider class: the load error names it
short. The plugin is installed through a real entry point and run through `poemetric`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_provider_plugins import Installer, cli, install, user_models

__all__ = ["install", "user_models"]  # fixtures

#: An instance whose repr is a whole table, and a module-level dict of many entries.
LARGE = """\
class Table:
    def __repr__(self):
        return "Table(" + ", ".join(f"row{i}" for i in range(5000)) + ")"

Plugin = Table()
ROWS = {f"word{i}": i for i in range(5000)}
"""


@pytest.mark.parametrize(("attr", "shown"), [("Plugin", "(a Table)"), ("ROWS", "(a dict)")])
def test_a_large_object_in_an_entry_point_is_named_short(
    install: Installer, user_models: Callable[..., Path], attr: str, shown: str
) -> None:
    """The load error printed the object's whole repr (tens of thousands of characters, the
    reason lost at its end): now a short repr and its type."""
    install("large", LARGE, attr)
    user_models("generators", "mine", "name: mine\nprovider: large\nmodel: x\n")
    code, out, err = cli("models", "show", "mine")
    assert code == 2, out + err
    assert "which is not a subclass of poemetric.providers.Provider" in err
    assert shown in err and "..." in err
    assert len(err) < 1000, len(err)
