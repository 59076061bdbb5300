"""A model that cannot start, refused before a command makes a run store only for its calls."""

from __future__ import annotations

from pathlib import Path

from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import create_provider
from poemetric.store.db import DB_NAME


def refuse_before_new_store(spec: ModelSpec, run_dir: Path) -> None:
    """For a command about to make a new run store only to hold `spec`'s calls (the probe
    commands' `--run`): a model that cannot start (no API key, no engine) raises its
    `ProviderError` now, so no empty store is left behind. An existing store is left to the
    runner, since answers already stored need no key."""
    if (run_dir / DB_NAME).exists():
        return
    create_provider(spec).preflight()
