"""Say when one judge's judgments came from more than one configuration.

A judge file edited between two `poemetric judge` commands on one run (another temperature, a
`judges/local-openai.yaml` whose POEMETRIC_LOCAL_MODEL now names another model, an alias such
as `gpt-4o` that the provider moved to a new snapshot) keeps the answers stored so far and asks
only the missing ones with the new configuration. The judge stage warns once, on stderr, as it
happens; every table after that pooled the two under one judge name, and `analyze` said
nothing. Each judgment row keeps the model that answered (`provider_model`) and the judge's
settings, so the mix is found in the rows themselves, as `merge` finds it across stores.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from poemetric.judge.pending import judge_clause
from poemetric.store import RunStore
from poemetric.text.plural import counted

#: A configuration: the model that answered, and the provider, whether structured output was
#: asked for and the settings, as sorted (name, value) pairs.
Configuration = tuple[str | None, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class MixedJudges:
    """What the judgments' configurations say of the judges, read in one query."""

    #: A note for each judge whose usable judgments came from more than one model or settings,
    #: naming what differs and how many judgments each had.
    notes: list[str]
    #: The judges whose usable judgments name more than one model that answered: `notes` names
    #: those models and counts, so the run's note on a model file now naming another model
    #: (`poemetric.store.models.other_model_notes`) would say it twice.
    several_models: set[str]


def mixed_judges(
    store: RunStore, judges: Sequence[str] | None = None, label: Callable[[str], str] = str
) -> MixedJudges:
    """The notes and judges of several models (of `judges`, default all): see `MixedJudges`.
    The notes name each judge by `label`, as the tables do."""
    notes = []
    configurations = _configurations(store, judges)
    for judge, counts in sorted(configurations.items()):
        if len(counts) < 2:
            continue
        listed = "; ".join(
            f"{_describe(configuration, counts)}: {counted(n, 'judgment')}"
            for configuration, n in counts.most_common()
        )
        notes.append(
            f"judge {label(judge)!r} answered under {len(counts)} configurations ({listed}), pooled in "
            f"its tables: its judge file `{judge}` (or the model behind its name) changed "
            "between `judge` commands on this run (or between runs merged into it). For one "
            "configuration, judge in a new --run; to compare them, give each its own judge file "
            "name (a copy of the file)"
        )
    several = {
        judge
        for judge, counts in configurations.items()
        if len({model for model, _ in counts if model}) > 1
    }
    return MixedJudges(notes, several)


def _configurations(
    store: RunStore, judges: Sequence[str] | None
) -> dict[str, Counter[Configuration]]:
    """judge -> configuration -> how many of its usable judgments were made under it."""
    clause, params = judge_clause(judges)
    rows = store.query(
        "SELECT judge, provider_model, provider, structured IS NOT NULL AS structured, settings, "
        f"COUNT(*) AS n FROM judgments WHERE status = 'ok'{clause} "
        "GROUP BY judge, provider_model, provider, structured IS NOT NULL, settings",
        params,
    )
    by_judge: dict[str, Counter[Configuration]] = {}
    for row in rows:
        asked = (("provider", str(row["provider"])),
                 ("structured output", "on" if row["structured"] else "off"))  # fmt: skip
        configuration = (row["provider_model"], tuple(sorted(asked + _settings(row["settings"]))))
        by_judge.setdefault(str(row["judge"]), Counter())[configuration] += int(row["n"])
    return by_judge


def _settings(text: str | None) -> tuple[tuple[str, str], ...]:
    """The settings a row was judged with, unset ones (null, empty) left out: a row stored by
    an earlier version without a setting's key is the same configuration."""
    try:
        values = json.loads(text) if text else {}
    except ValueError:
        return (("settings", text or ""),)
    if not isinstance(values, dict):
        return (("settings", str(text)),)
    return tuple(
        sorted(
            (str(name), json.dumps(_whole(value), sort_keys=True))
            for name, value in values.items()
            if value not in (None, {}, [])
        )
    )


def _whole(value: Any) -> Any:
    """`value` with whole floats as integers, inside lists and objects too: a temperature of 1
    is one of 1.0 (as the judge stage compares settings: `poemetric.store.models`)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    return value


def _describe(configuration: Configuration, all_of: Counter[Configuration]) -> str:
    """`model 'x', temperature=0.7`: only what differs between the judge's configurations.
    Provider fields (`extra`) are named, not shown: they may hold what a key file holds."""
    model, settings = configuration
    parts: list[str] = []
    if len({other[0] for other in all_of}) > 1:
        parts.append(f"model {model!r}" if model else "model not reported")
    mine = dict(settings)
    others: list[dict[str, Any]] = [dict(other[1]) for other in all_of]
    names = sorted({name for other in others for name in other})
    for name in names:
        if len({other.get(name) for other in others}) < 2:
            continue
        if name == "extra":  # differs: set in some, unset or other values in others
            parts.append("provider fields (extra) " + ("set" if name in mine else "unset"))
        else:
            parts.append(f"{name}={mine[name]}" if name in mine else f"{name} unset")
    return ", ".join(parts)
