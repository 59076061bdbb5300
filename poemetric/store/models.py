"""The models a run used, as they were declared when a stage ran (meta key `models`).

The generate and judge stages record each model's display name, provider, model id and settings
here, so tables, figures and the report name models as their files did at the time, even after
a model file is renamed, edited or deleted. A judge's record also keeps its `reask`
(`poemetric.judge.pending`: which stored errors still await a re-ask).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from poemetric.store.db import RunStore
from poemetric.store.merge_tables import attached_meta
from poemetric.text.plural import counted, plural

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
    record["engine"] = engine_fingerprint(spec)
    return record


#: vLLM options that say where a model runs, not what it answers.
_PLACEMENT = {
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "gpu_memory_utilization",
    "distributed_executor_backend",
}


def engine_fingerprint(spec: ModelSpec) -> str | None:
    """What else than the model id and settings decides a model's answers, as the response
    cache keys them (`poemetric.runner.jobs.cache_key`): provider options (a Markov order, a
    chat template switch), vLLM engine options (quantization, dtype) and structured output, as
    the first 12 hex digits of their sha256; None when the file sets none. A digest, not the
    values: options may hold whatever a provider takes. The endpoint is left out: one server
    under two spellings, or each array task's own local server, is one model."""
    parts: dict[str, Any] = {}
    if spec.options:
        parts["options"] = spec.options
    if spec.vllm is not None:
        # Where the model runs is left out: one model split over 4 GPUs on one node and 8 on
        # another (docs/scaling.md) answers alike.
        parts["vllm"] = spec.vllm.model_dump(mode="json", exclude=_PLACEMENT)
    if spec.structured != "off":
        parts["structured"] = spec.structured
    if not parts:
        return None
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def engine_described(engine: object) -> str:
    """A record's `engine` (`engine_fingerprint`) as words: `provider or engine options sha256
    5bce7b8c365f…`, or `no provider or engine options`."""
    return (
        f"provider or engine options sha256 {engine}…"
        if engine
        else "no provider or engine options"
    )


def record_models(store: RunStore, stage: str, specs: Iterable[ModelSpec]) -> None:
    """Add (or refresh) the stage's models in the run's meta table, atomically. A model whose
    file now names another model id keeps, in `answers_before`, how many of its stored answers
    were made while it named each earlier one (`other_model_notes`)."""
    held = recorded_models(store).get(stage, {})
    records = {}
    for spec in specs:
        record = model_record(spec, stage)
        old = held.get(spec.name)
        if isinstance(old, dict):
            before = {str(k): int(v) for k, v in (old.get("answers_before") or {}).items()}
            earlier = old.get("model")
            if isinstance(earlier, str) and earlier != spec.model:
                made = sum(answered_by(store, stage, spec.name).values()) - sum(before.values())
                if made > 0:
                    before[earlier] = before.get(earlier, 0) + made
            if before:
                record["answers_before"] = before
        records[spec.name] = record
    if records:
        store.update_meta(MODELS_META_KEY, lambda held: _added(held, {stage: records}, True))


def changed_models(
    store: RunStore, stage: str, specs: Iterable[ModelSpec]
) -> list[tuple[str, str, str]]:
    """(name, what the run recorded, what the file says now) for each of `specs` that ran this
    stage under its name in another configuration: another model id (a
    `judges/local-openai.yaml` whose POEMETRIC_LOCAL_MODEL changed), named as `model '...'`, or
    another provider, sampling settings (a temperature or seed edited between two runs, which
    `merge` names as `mixed` across stores: `poemetric.store.merge_checks`) or provider or
    engine options (`engine_fingerprint`; not in records made before), naming what
    differs; its stored answers are kept and take the new file's label. A record without settings (a run made before they were
    recorded) is compared by its model id only. The model ids named as before are those of the
    stored answers (`answered_by`), not the record's: a run that asked nothing recorded its
    file's model id all the same; a model id back to that of every stored answer is no change."""
    held = recorded_models(store).get(stage, {})
    changed = []
    for spec in specs:
        record = held.get(spec.name)
        if not isinstance(record, dict):
            continue
        before = record.get("model")
        now = model_record(spec, stage)
        if isinstance(before, str) and before != spec.model:
            served = answered_by(store, stage, spec.name)
            if set(served) != {spec.model}:  # else every stored answer is the file's model's
                said = _served(served) if served else f"model {before!r}"
                changed.append((spec.name, said, repr(spec.model)))
        elif isinstance(record.get("settings"), dict) and (shown := _differences(record, now)):
            changed.append((spec.name, *shown))
    return changed


#: stage -> (table, column naming the model) of the stages whose rows name the model as its
#: `models` record does (`poemetric.generation.stage.STAGE`, ...) and keep, per answer, the model
#: id that answered (`provider_model`: the id the provider reported, else the one asked): read
#: by `answered_by` and by `merge` (`poemetric.store.merge_started`). A stage not here (the
#: probes' chat scorer, stored as "chat:MODEL") is never taken for only started.
STAGE_RESULTS = {
    "generate": ("generations", "author"),
    JUDGE_STAGE: ("judgments", "judge"),
    "recognise": ("recognitions", "judge"),
    "style-match": ("style_matches", "judge"),
    "probe-lines": ("probe_lines", "generator"),
}


def answered_by(store: RunStore, stage: str, name: str) -> dict[str, int]:
    """model id -> how many of `name`'s stored answers of `stage` it gave (the rows with a
    response: a failed call is no answer); empty for a stage without such a table. The record
    only says what the file named at the stage's last run, which may have asked nothing."""
    if stage not in STAGE_RESULTS:
        return {}
    table, who = STAGE_RESULTS[stage]
    rows = store.query(
        f"SELECT provider_model, COUNT(*) AS n FROM {table} WHERE {who} = ? "
        "AND raw_response IS NOT NULL AND provider_model IS NOT NULL "
        "GROUP BY provider_model ORDER BY n DESC, provider_model",
        (name,),
    )
    return {str(row["provider_model"]): int(row["n"]) for row in rows}


def other_model_notes(
    store: RunStore,
    judges_named: Collection[str] = (),
    judges: Collection[str] | None = None,
    stages: Sequence[str] = ("generate", JUDGE_STAGE),
) -> list[str]:
    """One line for each generator or judge some of whose stored answers were made while its
    file named another model id (a `judges/local-openai.yaml` whose POEMETRIC_LOCAL_MODEL
    changed, run again: the answers stored are kept, and a run that asked nothing still takes
    the new id): tables, figures and the report label every answer of a name as its file names
    it now, so the line says whose they are (`answers_before`, kept by `record_models`).
    `judges_named`: judges whose models the caller names already, with their judgments' counts
    (`poemetric.analysis.judge_configs.MixedJudges.several_models`), given no line here;
    `judges`: the judges analysed (`--judge`), None for every judge of the run; `stages`: the
    stages whose models are said (the run's data keeps the judge stage's among its judge notes)."""
    notes = []
    for stage in stages:
        for name, record in sorted(recorded_models(store).get(stage, {}).items()):
            if not isinstance(record, dict):
                continue
            if stage == JUDGE_STAGE and (
                name in judges_named or (judges is not None and name not in judges)
            ):
                continue
            model = record.get("model")
            before = record.get("answers_before") or {}
            others = {str(m): int(n) for m, n in before.items() if m != model and int(n) > 0}
            if not others:
                continue
            total = sum(answered_by(store, stage, name).values())
            shown = ", ".join(f"{n} under model {m!r}" for m, n in others.items())
            earlier = "that model" if len(others) == 1 else "those models"
            notes.append(
                f"{stage}: {name} is labelled as its file names it now (model {model!r}), but of "
                f"its {counted(total, 'stored answer')} {shown} {plural(sum(others.values()), 'was', 'were')} "
                f"made while its file named {earlier}: "
                "to tell them apart, give each model its own file name or use a new --run"
            )
    return notes


def _served(served: dict[str, int]) -> str:
    """`model 'a'` for one model id, `models 'a' (12 answers), 'b' (3 answers)` for several."""
    if len(served) == 1:
        return f"model {next(iter(served))!r}"
    return "models " + ", ".join(
        f"{model!r} ({counted(count, 'answer')})" for model, count in served.items()
    )


def _differences(record: dict[str, Any], now: dict[str, Any]) -> tuple[str, str] | None:
    """How a model's recorded provider and settings differ from the file's now, as (before,
    now) naming only what differs (`settings temperature=0.7`, `seed unset`); None when they
    do not differ. Compared as values: a temperature of 1 is one of 1.0."""
    parts: tuple[list[str], list[str]] = ([], [])
    if record.get("provider") != now.get("provider"):
        for shown, side in zip(parts, (record, now), strict=True):
            shown.append(f"provider {side.get('provider')}")
    if "engine" in record and record.get("engine") != now.get("engine"):  # recorded since
        for shown, side in zip(parts, (record, now), strict=True):
            shown.append(engine_described(side.get("engine")))
    was, will = record.get("settings") or {}, now.get("settings") or {}
    names = sorted(name for name in {*was, *will} if _value(was, name) != _value(will, name))
    for shown, values in zip(parts, (was, will), strict=True):
        if names:
            shown.append("settings " + ", ".join(_setting(name, values) for name in names))
    return None if not parts[0] else (", ".join(parts[0]), ", ".join(parts[1]))


def _value(values: dict[str, Any], name: str) -> Any:
    """A recorded setting; None where unset (an empty `extra` is none)."""
    value = values.get(name)
    return None if value in ({}, []) else value


def _setting(name: str, values: dict[str, Any]) -> str:
    value = _value(values, name)
    return f"{name} unset" if value is None else f"{name}={json.dumps(value, sort_keys=True)}"


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
