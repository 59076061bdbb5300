"""`poemetric.store` is the layer every stage writes through: it must not import the stages built
on it (the survey, the runner, the commands...), not even inside a function. `merge_surveys`
imported `poemetric.survey.tokens` for the survey secret's file name (now in `poemetric.paths`,
below both); a store module that needs a stage's rule takes it as an argument, as `merge_runs`
takes the survey's rule of a complete page (`complete_pages`)."""

from __future__ import annotations

import ast
from pathlib import Path

import poemetric.store

STORE = Path(poemetric.store.__file__).parent
#: Packages and modules that build on the store; none of them may be imported by it.
ABOVE = (
    "poemetric.survey",
    "poemetric.cli",
    "poemetric.runner",
    "poemetric.judge",
    "poemetric.generation",
    "poemetric.analysis",
    "poemetric.report",
    "poemetric.annotation",
    "poemetric.ghostwriting",
    "poemetric.probes",
    "poemetric.style",
    "poemetric.pipeline",
)


def _imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, at any depth (lazy imports included)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            if node.module == "poemetric":  # `from poemetric import survey`
                found += [(node.lineno, f"poemetric.{alias.name}") for alias in node.names]
    return found


def _above(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in ABOVE)


def test_the_store_imports_no_survey_and_no_stage_built_on_it() -> None:
    files = sorted(STORE.rglob("*.py"))
    assert len(files) > 10  # the package was found
    wrong = [
        f"{path.relative_to(STORE.parent.parent)}:{line}: imports {module}"
        for path in files
        for line, module in _imported(path)
        if _above(module)
    ]
    assert wrong == []


def test_the_check_sees_a_lazy_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "def f():\n    from poemetric.survey import tokens\n    from poemetric import cli\n",
        encoding="utf-8",
    )
    assert [name for _, name in _imported(module) if _above(name)] == [
        "poemetric.survey",
        "poemetric.cli",
    ]
