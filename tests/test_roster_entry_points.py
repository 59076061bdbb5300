"""A roster load reads the installed packages' entry points once. It read them at each check of
each model file (some 75 reads of every installed package's metadata, about 0.4 s of CPU): most
of what `poemetric models` or `generate --dry-run` cost, in every command and every test that
ran one. A package installed since the last load is still seen by the next one."""

from __future__ import annotations

from typing import Any

import pytest
from test_provider_plugins import GOOD, Installer, install  # noqa: F401 (a fixture)
from typer.testing import CliRunner

import poemetric.cli.models_cmd  # noqa: F401 - registers `poemetric models` on the app
from poemetric.cli import app
from poemetric.providers import registry
from poemetric.roster import list_models, list_unusable, load_catalog, select_models


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each read of the entry points (`importlib.metadata.entry_points`) the registry makes."""
    made: list[Any] = []
    real = registry.entry_points

    def counted(**kwargs: Any) -> Any:
        made.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(registry, "entry_points", counted)
    return made


def test_loading_listing_and_selecting_read_the_entry_points_once_each(reads: list[Any]) -> None:
    catalog = load_catalog("generators")
    assert len(catalog.entries) >= 30 and reads == [{"group": "poemetric.providers"}]
    # each checks every model's provider (its price, whether it loads): from one read
    reads.clear()
    assert len(list_models(catalog=catalog)) == len(catalog.entries) and len(reads) == 1
    reads.clear()
    assert list_unusable(catalog=catalog) == [] and len(reads) == 1
    reads.clear()
    assert len(select_models("all", catalog=catalog)) >= 30 and len(reads) == 1


def test_poemetric_models_reads_them_a_few_times_not_once_per_check(reads: list[Any]) -> None:
    result = CliRunner().invoke(app, ["models"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "markov" in result.output and 0 < len(reads) <= 4, len(reads)


def test_a_provider_installed_after_a_load_is_found_by_the_next(
    install: Installer,  # noqa: F811 (the fixture)
    user_model: Any,
) -> None:
    user_model("generators", "toy-writer", "name: toy-writer\nprovider: toy\nmodel: w\n")
    assert "toy-writer" in load_catalog("generators").unusable  # not installed yet
    install("toy", GOOD)
    assert [spec.name for spec in select_models("toy-writer")] == ["toy-writer"]


def test_a_dry_run_of_the_paper_roster_reads_them_a_few_times(
    reads: list[Any], tmp_path: Any
) -> None:
    """The stage itself asked for them three times a model (whether it runs isolated, its
    provider, its key's variable): 89 reads for the paper's 30 models, where the roster load made one."""
    args = ["generate", "--run", str(tmp_path / "run"), "--models", "paper30", "--limit", "1"]
    result = CliRunner().invoke(app, [*args, "--dry-run"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert 0 < len(reads) <= 4, len(reads)
