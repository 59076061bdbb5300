"""What `merge` checks across the stores before (or beside) merging their rows: one generation
prompt template for all, and each model name meaning one model under one configuration.

A run keeps one generation template (`poemetric.pipeline.prepare_run` refuses a second): the
stores of two templates have two prompts for each poem, so merged, every human poem would count
once per template; such stores are refused. A model name that ran one stage with another model
id, provider, settings, provider or engine options (`options:`, `vllm:`, `structured:`, kept
as a digest) or judge template in another store (a copied model file edited on one
machine, `judges/local-openai.yaml` pointing at another server) would put the poems or scores
of two configurations under one name: the merge is written, and each such model is named
(`MixedModel`), as the generate and judge stages warn of a changed model id in one store.
Form checks of different poems made by different rules (checker version, threshold: shards
checked on two machines, one with an older POEMetric) are all copied, as no second check of the
same poem chooses between them; the merged run's rules are named (`FormRule`), as `analyze`
names them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from poemetric.store.db import StoreError, to_json
from poemetric.store.models import engine_described
from poemetric.text.plural import counted

__all__ = [
    "FormRule",
    "MixedModel",
    "check_one_template",
    "mixed_form_rules",
    "mixed_models",
    "read_templates",
]


@dataclass(frozen=True)
class Templates:
    """A store's generation template (sha256, name; None before prompts) and each judge's
    judge template hashes."""

    generation: tuple[str, str] | None
    judges: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class FormRule:
    """A rule the form checks of a merged run were made by, with how many checks it made."""

    version: str
    threshold: float | None
    checks: int

    def describe(self) -> str:
        return f"{self.version} at threshold {self.threshold}: {counted(self.checks, 'check')}"


def mixed_form_rules(conn: sqlite3.Connection) -> list[FormRule]:
    """The rules (checker version, threshold) of the form checks in `conn`'s main store, most
    checks first, when there are several; [] when one rule (or none) made them all."""
    rows = conn.execute(
        "SELECT checker_version, json_extract(explanation, '$.threshold'), count(*) "
        "FROM main.form_checks GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2"
    ).fetchall()
    return [FormRule(str(v), t, int(n)) for v, t, n in rows] if len(rows) > 1 else []


@dataclass(frozen=True)
class MixedModel:
    """A model that ran `stage` under one name in other configurations in the merged stores:
    (store, what it ran) for each configuration, the store first holding it."""

    stage: str
    model: str
    versions: tuple[tuple[Path, str], ...]


def read_templates(conn: sqlite3.Connection) -> Templates:
    """The templates of the store open on `conn`."""
    row = conn.execute(
        "SELECT p.template_hash, COALESCE(t.name, '?') FROM prompts p "
        "LEFT JOIN templates t ON t.template_hash = p.template_hash LIMIT 1"
    ).fetchone()
    judges: dict[str, list[str]] = {}
    for judge, template_hash in conn.execute(
        "SELECT DISTINCT judge, template_hash FROM judgments WHERE template_hash IS NOT NULL "
        "ORDER BY judge, template_hash"
    ):
        judges.setdefault(str(judge), []).append(str(template_hash))
    generation = None if row is None else (str(row[0]), str(row[1]))
    return Templates(generation, {judge: tuple(hashes) for judge, hashes in judges.items()})


def check_one_template(stores: Sequence[tuple[Path, Templates]]) -> None:
    """Refuse stores prepared with different generation templates (as `prepare_run` does)."""
    prepared = [(path, found.generation) for path, found in stores if found.generation]
    for path, (template_hash, name) in prepared[1:]:
        first, (first_hash, first_name) = prepared[0]
        if template_hash == first_hash:
            continue
        raise StoreError(
            f"{first} and {path} were prepared with different generation prompt templates "
            f"({first_name!r}, sha256 {first_hash[:12]}…, and {name!r}, sha256 "
            f"{template_hash[:12]}…): a run keeps one template so that every model answers the "
            "same prompts, and merged, each human poem would count once per template. Merge "
            "only runs of one template; compare the two as separate runs"
        )


def mixed_models(
    stores: Sequence[tuple[Path, dict[str, Any], Templates]],
) -> list[MixedModel]:
    """The models that ran a stage in other configurations in `stores`: (path, `models` meta
    record, templates) each."""
    # (stage, model, what is compared: its record or its judge templates) -> what -> first store
    seen: dict[tuple[str, str, str], dict[str, Path]] = {}
    for path, records, templates in stores:
        for stage, by_model in records.items():
            if not isinstance(by_model, dict):
                continue
            for name, record in by_model.items():
                if isinstance(record, dict):
                    _add(seen, (str(stage), str(name), "record"), _describe(record), path)
                # Records made before the options were recorded are not compared on them.
                if isinstance(record, dict) and "engine" in record:
                    what = engine_described(record["engine"])
                    _add(seen, (str(stage), str(name), "engine"), what, path)
        for judge, hashes in templates.judges.items():
            shown = ", ".join(h[:12] + "…" for h in hashes)
            _add(seen, ("judge", judge, "template"), f"judge template sha256 {shown}", path)
    return [
        MixedModel(stage, name, tuple((path, what) for what, path in versions.items()))
        for (stage, name, _), versions in seen.items()
        if len(versions) > 1
    ]


def _add(
    seen: dict[tuple[str, str, str], dict[str, Path]],
    key: tuple[str, str, str],
    what: str,
    path: Path,
) -> None:
    seen.setdefault(key, {}).setdefault(what, path)


def _describe(record: dict[str, Any]) -> str:
    """The parts of a model's record (`poemetric.store.models.model_record`) that change its
    results, as one line."""
    settings = record.get("settings")
    shown = to_json(settings) if settings else "{}"
    return f"{record.get('provider')} model {record.get('model')!r}, settings {shown}"
