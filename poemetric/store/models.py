"""The models a run used, as they were declared when a stage ran (meta key `models`).

The generate and judge stages record each model's display name, provider, model id and settings
here, so tables, figures and the report name models as their files did at the time, even after
a model file is renamed, edited or deleted.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from poemetric.store.db import RunStore, to_json

if TYPE_CHECKING:
    from poemetric.providers.base import ModelSpec

MODELS_META_KEY = "models"


def model_record(spec: ModelSpec) -> dict[str, Any]:
    """What a run keeps of a model file (no secrets: a spec names its key's variable only)."""
    return {
        "display_name": spec.label,
        "provider": spec.provider,
        "model": spec.model,
        "open_weights": spec.open_weights,
        "thinking": spec.thinking,
        "settings": spec.settings.model_dump(mode="json", exclude_none=True),
    }


def record_models(store: RunStore, stage: str, specs: Iterable[ModelSpec]) -> None:
    """Add (or refresh) the stage's models in the run's meta table, atomically."""
    records = {spec.name: model_record(spec) for spec in specs}
    if not records:
        return
    with store.transaction() as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (MODELS_META_KEY,)).fetchone()
        current: dict[str, dict[str, Any]] = json.loads(row[0]) if row else {}
        current.setdefault(stage, {}).update(records)
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (MODELS_META_KEY, to_json(current)),
        )


def recorded_models(store: RunStore) -> dict[str, dict[str, dict[str, Any]]]:
    """stage -> model name -> record; empty for runs made before models were recorded."""
    value = store.get_meta(MODELS_META_KEY, {})
    return value if isinstance(value, dict) else {}


def merge_attached_records(conn: sqlite3.Connection) -> None:
    """Add the model records of the store attached as `src` (`merge`) to the main store's: the
    union, stage -> model -> record, so shards that ran other models (one model per array task)
    keep theirs; a model already recorded keeps its record."""
    source = conn.execute("SELECT value FROM src.meta WHERE key = ?", (MODELS_META_KEY,)).fetchone()
    if source is None:
        return
    held = conn.execute("SELECT value FROM main.meta WHERE key = ?", (MODELS_META_KEY,)).fetchone()
    merged: dict[str, dict[str, Any]] = json.loads(held[0]) if held else {}
    for stage, records in json.loads(source[0]).items():
        for name, record in records.items():
            merged.setdefault(stage, {}).setdefault(name, record)
    conn.execute(
        "INSERT INTO main.meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (MODELS_META_KEY, to_json(merged)),
    )
