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


# -- a home with the folder, made for a file of one's own, without the bundled file -------------
@pytest.fixture
def home_with_folders(home: Path) -> Path:
    """A home with `datasets/` and `prompts/` holding one file of one's own each."""
    (home / "datasets").mkdir()
    (home / "datasets" / "mine.csv").write_text("form,content\n", encoding="utf-8")
    (home / "prompts").mkdir()
    (home / "prompts" / "my-judge.md").write_text("{generation_prompt} {the_poem}\n", "utf-8")
    return home


def _copy_from(*parts: str) -> str:
    from poemetric.paths import installed_root

    return f": copy it from {installed_root().joinpath(*parts)}"


def test_a_registry_missing_from_the_homes_datasets_folder_is_not_a_reinstall(
    home_with_folders: Path,
) -> None:
    """The home's datasets/ holds a file of its owner's, not registry.yaml: "reinstall
    POEMetric" was said, which changes nothing under the home."""
    from poemetric.data import DatasetError, load_dataset

    with pytest.raises(DatasetError) as error:
        load_dataset("demo")
    home = home_with_folders
    assert str(error.value) == (
        f"dataset registry {home / 'datasets' / 'registry.yaml'} is missing; "
        f"POEMETRIC_HOME={home} replaces the bundled folders and has no datasets/registry.yaml"
        + _copy_from("datasets", "registry.yaml")
    )


def test_a_bundled_dataset_missing_from_the_home_is_not_a_reinstall(
    home_with_folders: Path,
) -> None:
    """The registry copied into the home, not the demo dataset's folder."""
    from poemetric.data import DatasetError, load_dataset
    from poemetric.paths import installed_root

    home = home_with_folders
    registry = installed_root() / "datasets" / "registry.yaml"
    (home / "datasets" / "registry.yaml").write_bytes(registry.read_bytes())
    with pytest.raises(DatasetError) as error:
        load_dataset("demo")
    assert str(error.value) == (
        f"bundled dataset 'demo' is missing from {home / 'datasets' / 'demo' / 'poems.csv'}; "
        f"POEMETRIC_HOME={home} replaces the bundled folders and has no datasets/demo/poems.csv"
        + _copy_from("datasets", "demo", "poems.csv")
    )


def test_dataset_list_without_the_registry_is_an_error_not_a_traceback(
    home_with_folders: Path,
) -> None:
    from typer.testing import CliRunner

    from poemetric.cli import app

    result = CliRunner().invoke(app, ["dataset", "list"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # a DatasetError traceback before
    assert result.stderr.startswith("error: dataset registry ")
    assert "replaces the bundled folders and has no datasets/registry.yaml" in result.stderr


def test_a_bundled_template_missing_from_the_homes_prompts_folder(
    home_with_folders: Path,
) -> None:
    from poemetric.prompts import JUDGE_TEMPLATE, PromptError, bundled_template

    with pytest.raises(PromptError) as error:
        bundled_template(JUDGE_TEMPLATE)
    assert str(error.value) == (
        f"no prompt template 'judge.md': POEMETRIC_HOME={home_with_folders} replaces the bundled "
        "folders and has no prompts/judge.md" + _copy_from("prompts", "judge.md")
    )


def test_a_home_with_every_bundled_file_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from poemetric.paths import RESOURCE_DIRS, home_lacks, installed_root

    for kind in RESOURCE_DIRS:
        shutil.copytree(installed_root() / kind, tmp_path / kind)
    monkeypatch.setenv("POEMETRIC_HOME", str(tmp_path))
    resource_root.cache_clear()
    try:
        assert home_lacks("datasets", "registry.yaml") == ""
        assert home_lacks("datasets", "demo", "poems.csv") == ""
        assert home_lacks("prompts", "judge.md") == ""
        assert home_lacks("prompts", "nope.md") == (  # in neither: nothing to copy from
            f"POEMETRIC_HOME={tmp_path} replaces the bundled folders and has no prompts/nope.md"
        )
    finally:
        resource_root.cache_clear()


def test_prompts_list_without_templates_says_where_it_looked(home: Path) -> None:
    """It printed an empty table and exited 0, as if POEMetric had no prompts."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    result = CliRunner().invoke(app, ["prompts", "list"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert (
        result.stderr == f"error: no templates in {home / 'prompts'}: {_lacks(home, 'prompts')}\n"
    )


def test_an_unknown_judge_with_no_judge_files_says_so(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A home whose judges/ is empty: the unknown-judge error ended "judges: " with nothing."""
    import typer

    from poemetric.cli.judging import judge_spec

    with pytest.raises(typer.Exit):
        judge_spec("gpt-4o", "ghostwriting style-match")
    said = " ".join(capsys.readouterr().err.split())
    assert said.startswith("error: unknown judge 'gpt-4o'"), said
    assert said.endswith("; judges: none (the judges folder holds no judge file)"), said
