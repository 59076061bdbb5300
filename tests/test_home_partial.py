"""A `$POEMETRIC_HOME` that lacks some of the bundled folders (made to add a few judge files,
which is what POEMETRIC_JUDGES_DIR is for) replaces them all. The errors said "reinstall
POEMetric", "bundled templates: " with nothing after it, or only "no generators folder at ...";
they now say that the home replaces every bundled folder and lacks this one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from poemetric.paths import resource_root

LACKS = "has no {kind}/ and replaces every bundled folder (prompts, datasets, judges, generators, analysis): copy the ones you keep into it"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home with `judges/` alone."""
    from poemetric.data.registry import _load_registry
    from poemetric.prompts import load_template

    (tmp_path / "judges").mkdir()
    monkeypatch.setenv("POEMETRIC_HOME", str(tmp_path))
    caches = (resource_root, _load_registry, load_template)
    for cached in caches:
        cached.cache_clear()  # looked up once per process
    yield tmp_path
    for cached in caches:
        cached.cache_clear()


def _lacks(home: Path, kind: str) -> str:
    return f"POEMETRIC_HOME={home} " + LACKS.format(kind=kind)


def test_the_roster(home: Path) -> None:
    from poemetric.roster import RosterError, load_catalog

    with pytest.raises(RosterError) as error:
        load_catalog("generators")
    assert str(error.value) == (
        f"no generators folder at {home / 'generators'}: {_lacks(home, 'generators')}; for "
        "generator files beside the bundled ones, set POEMETRIC_GENERATORS_DIR instead"
    )


def test_the_dataset_registry(home: Path) -> None:
    from poemetric.data import DatasetError, load_dataset

    with pytest.raises(DatasetError) as error:
        load_dataset("demo")
    assert str(error.value) == (
        f"dataset registry {home / 'datasets' / 'registry.yaml'} is missing; "
        + _lacks(home, "datasets")
    )


def test_the_figure_recipes(home: Path) -> None:
    from poemetric.analysis.recipes import RecipeError, load_recipe

    with pytest.raises(RecipeError) as error:
        load_recipe("paper")
    assert str(error.value).endswith(f"; bundled recipes: none ({_lacks(home, 'analysis')})")


def test_the_prompts(home: Path) -> None:
    from poemetric.prompts import JUDGE_TEMPLATE, PromptError, bundled_template

    with pytest.raises(PromptError) as error:
        bundled_template(JUDGE_TEMPLATE)
    assert str(error.value).endswith(f"; bundled templates: none ({_lacks(home, 'prompts')})")


def test_a_reinstall_is_still_what_a_missing_bundled_registry_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the variable the message is as before."""
    from poemetric.data.registry import _load_registry

    monkeypatch.delenv("POEMETRIC_HOME", raising=False)
    from poemetric.data import DatasetError

    with pytest.raises(DatasetError, match=r"is missing; reinstall POEMetric$"):
        _load_registry(tmp_path / "registry.yaml")
