"""analysis/README.md documents every figure kind a recipe may name: the `ghostwriting` kind,
which `poemetric figures` draws by default, was missing from its table of kinds."""

from __future__ import annotations

import re
from pathlib import Path

from poemetric.analysis.recipes import FIGURE_KINDS, load_recipe

README = Path(__file__).resolve().parent.parent / "analysis" / "README.md"


def test_the_table_of_kinds_is_the_list_of_kinds() -> None:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| kind | parameters | paper |") :]
    rows = re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.MULTILINE)
    assert sorted(rows) == sorted(FIGURE_KINDS)


def test_every_bundled_recipe_in_the_readme_loads() -> None:
    text = README.read_text(encoding="utf-8")
    for name in re.findall(r"^\| `([a-z-]+)\.yaml` \|", text, flags=re.MULTILINE):
        assert load_recipe(name).figures, name
