"""Run metadata: the dataset, every model as it was declared (display name, provider, model id,
settings), prompt templates with their hashes, tokens, costs and dates."""

from __future__ import annotations

import json
from typing import Any

from poemetric import __version__
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render
from poemetric.store.models import recorded_models
from poemetric.text.plural import plural

_USAGE = """
    SELECT {who} AS name, COUNT(*) AS total, SUM(status = 'ok') AS ok,
           SUM(COALESCE(input_tokens, 0)) AS input_tokens,
           SUM(COALESCE(output_tokens, 0)) AS output_tokens,
           SUM(COALESCE(cost_usd, 0)) AS cost, MIN(created_at) AS first, MAX(created_at) AS last,
           MAX(provider) AS provider, MAX(provider_model) AS provider_model,
           MAX(settings) AS settings, GROUP_CONCAT(DISTINCT template_hash) AS templates
    FROM {table} GROUP BY {who} ORDER BY {who}
"""


def _models(run: ReportRun, table: str, who: str, stage: str) -> list[dict[str, Any]]:
    recorded = recorded_models(run.store).get(stage, {})
    label = run.labels.author if stage == "generate" else run.labels.judge
    rows = []
    for row in run.store.query(_USAGE.format(who=who, table=table)):
        record = recorded.get(row["name"], {})
        settings = record.get("settings") or (
            json.loads(row["settings"]) if row["settings"] else {}
        )
        rows.append({
            **dict(row), "label": label(str(row["name"])),
            "model": record.get("model") or row["provider_model"] or "",
            "provider": record.get("provider") or row["provider"] or "",
            "settings": ", ".join(f"{k}={v}" for k, v in sorted(settings.items()) if v is not None),
        })  # fmt: skip
    return rows


#: The other tables of paid calls, each with the command that fills it: the total counted only
#: generations and judgments, so a run's `judge recognise`, style matching or probe calls were
#: left out of what the report called its total cost.
_OTHER_COSTS = (
    ("recognitions", "judge recognise"),
    ("style_matches", "style matching"),
    ("probe_choices", "probe choices"),
    ("probe_lines", "probe lines"),
)


def _costs(
    run: ReportRun, generators: list[dict[str, Any]], judges: list[dict[str, Any]]
) -> dict[str, float]:
    """The run's cost by command, generation and judging first; the others where they cost."""
    costs = {
        "generation": sum((float(r["cost"] or 0) for r in generators), 0.0),
        "judging": sum((float(r["cost"] or 0) for r in judges), 0.0),
    }
    for table, label in _OTHER_COSTS:
        (row,) = run.store.query(f"SELECT SUM(COALESCE(cost_usd, 0)) AS cost FROM {table}")
        if row["cost"]:
            costs[label] = float(row["cost"])
    return costs


#: The tables whose rows name the template they were made with, and what a row is. Only the
#: prompts were counted ("Prompts"), so a judge's or `judge recognise`'s template was "used by 0"
#: in a run of thousands of judgments.
_TEMPLATE_USERS = (
    ("prompts", "prompt", "prompts"),
    ("generations", "generation", "generations"),
    ("judgments", "judgment", "judgments"),
    ("recognitions", "recognition", "recognitions"),
    ("style_matches", "style match", "style matches"),
)


def _templates(run: ReportRun) -> list[dict[str, Any]]:
    """Each stored template with `used_by`: how many stored rows of each kind name it (`16
    prompts, 32 generations`; `64 judgments`), '' for none."""
    uses: dict[str, list[str]] = {}
    for table, one, many in _TEMPLATE_USERS:
        for row in run.store.query(
            f"SELECT template_hash, COUNT(*) AS n FROM {table} WHERE template_hash IS NOT NULL "
            "GROUP BY template_hash"
        ):
            n = int(row["n"])
            uses.setdefault(str(row["template_hash"]), []).append(f"{n:,} {plural(n, one, many)}")
    rows = run.store.query("SELECT name, template_hash FROM templates ORDER BY name")
    return [{**dict(t), "used_by": ", ".join(uses.get(t["template_hash"], []))} for t in rows]


def merge_lines(entries: list[Any]) -> list[str]:
    """The store's `merged_from` record (one entry per source merged: `{"source", "merged_at"}`)
    as lines to read: the sources of one merge (one `merged_at`) and when, to the second,
    `runs/s0, runs/s1 (merged 2026-05-01 14:03:12 UTC)`. The page printed each entry as a
    Python dict. An entry without its time (a plain path) is its source alone."""
    merges: list[tuple[str, list[str]]] = []  # (merged_at, sources), in the order merged
    for entry in entries:
        if isinstance(entry, dict):
            source, stamp = str(entry.get("source", "")), str(entry.get("merged_at") or "")
        else:
            source, stamp = str(entry), ""
        if merges and stamp and merges[-1][0] == stamp:
            merges[-1][1].append(source)
        else:
            merges.append((stamp, [source]))
    return [
        ", ".join(sources) + (f" (merged {stamp[:19].replace('T', ' ')} UTC)" if stamp else "")
        for stamp, sources in merges
    ]


@section(100)
def metadata(run: ReportRun) -> Section:
    store = run.store
    templates = _templates(run)
    generators = _models(run, "generations", "author", "generate")
    judges = _models(run, "judgments", "judge", "judge")
    costs = _costs(run, generators, judges)
    html = render(
        "metadata.html.j2",
        run_dir=str(store.run_dir),
        dataset=store.get_meta("dataset", {}) or {},
        merged=merge_lines(store.get_meta("merged_from", []) or []),
        generators=generators,
        judges=judges,
        templates=templates,
        total_cost=sum(costs.values()),
        cost_parts=costs if len(costs) > 2 else {},
        version=__version__,
        schema=store.schema_version,
    )
    return Section("metadata", "Run metadata", html)
