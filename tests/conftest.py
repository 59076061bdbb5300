"""Shared fixtures. Tests that need ../shared/data skip outside CI and fail loudly under CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def shared_data_file(name: str) -> Path:
    """Path of a file in ../shared/data; skip (or, under CI, fail) when it is absent."""
    path = SHARED_DATA / name
    if not path.is_file():
        message = f"{path} is not present (shared research data lives beside the checkout)"
        if IN_CI:
            pytest.fail(message + "; under CI it must be present")
        pytest.skip(message)
    return path


@pytest.fixture
def poemetric_gold_csv() -> Path:
    return shared_data_file("poemetric_human_poems_annotated.csv")


@pytest.fixture
def chicago_rhyme_gold() -> Path:
    return shared_data_file("chicago_rhyme_gold_english.pgold")


@pytest.fixture
def litlab_meter_sample() -> Path:
    return shared_data_file("litlab2016_meter_sample.tsv")
