"""The models a run used, as they were declared when a stage ran (meta key `models`).

The generate and judge stages record each model's display name, provider, model id and settings
here, so tables, figures and the report name models as their files did at the time, even after
a model file is renamed, edited or deleted. A judge's record also keeps its `reask`
(`poemetric.judge.pending`: which stored errors still await a re-ask).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from poemetric.store.db import RunStore
from poemetric.store.merge_tables import attached_meta

if TYPE_CHECKING:
    from poemetric.providers.base import ModelSpec

MODELS_META_KEY = "models"
#: The judge stage, whose records also keep each judge's `reask`: readers of the stored
#: judgments tell an answer still to re-ask (a stopped run) from a parse failure by it.
JUDGE_STAGE = "judge"


def model_record(spec: ModelSpec, stage: str | None = None) -> dict[str, Any]:
    """What a run keeps of a model file (no secrets: a spec names its key's variable only)."""
    record = {
        "display_name": spec.label,
        "provider": spec.provider,
        "model": spec.model,
        "open_weights": spec.open_weights,
        "thinking": spec.thinking,
        "settings": spec.settings.model_dump(mode="json", exclude_none=True),
    }
    if stage == JUDGE_STAGE:
        record["reask"] = spec.reask
    return record


def record_models(store: RunStore, stage: str, specs: Iterable[ModelSpec]) -> None:
    """Add (or refresh) the stage's models in the run's meta table, atomically."""
    records = {spec.name: model_record(spec, stage) for spec in specs}
    if records:
        store.update_meta(MODELS_META_KEY, lambda held: _added(held, {stage: records}, True))


def changed_models(
    store: RunStore, stage: str, specs: Iterable[ModelSpec]
) -> list[tuple[str, str, str]]:
    """(name, recorded model id, the file's model id) for each of `specs` that ran this stage
    under its name with another model id (a `judges/local-openai.yaml` whose
    POEMETRIC_LOCAL_MODEL changed): its stored answers are kept and take the new file's label."""
    held = recorded_models(store).get(stage, {})
    changed = []
    for spec in specs:
        before = (held.get(spec.name) or {}).get("model")
        if isinstance(before, str) and before != spec.model:
            changed.append((spec.name, before, spec.model))
    return changed


def recorded_models(store: RunStore) -> dict[str, dict[str, dict[str, Any]]]:
    """stage -> model name -> record; empty for runs made before models were recorded."""
    value = store.get_meta(MODELS_META_KEY, {})
    return value if isinstance(value, dict) else {}


def merge_attached_records(store: RunStore) -> None:
    """Add the model records of the store attached as `src` (`merge`) to `store`'s: the union,
    stage -> model -> record, so shards that ran other models (one model per array task) keep
    theirs; a model already recorded keeps its record."""
    source = attached_meta(store.conn, MODELS_META_KEY)
    if source is not None:
        store.update_meta(MODELS_META_KEY, lambda held: _added(held, json.loads(source), False))


def _added(
    held: dict[str, dict[str, Any]] | None, records: dict[str, dict[str, Any]], replace: bool
) -> dict[str, dict[str, Any]]:
    """`held` (stage -> model -> record) with `records` added: replacing a model's record when
    `replace`, else keeping the one held."""
    merged = {stage: dict(models) for stage, models in (held or {}).items()}
    for stage, models in records.items():
        into = merged.setdefault(stage, {})
        for name, record in models.items():
            if replace or name not in into:
                into[name] = record
    return merged
