"""What each stage of a run covers, by the stage's own rule, and which of its poems hold no
result of it: `merge` names a stage that covers only part of the merged run (a judge run on one
store, whose other stores' poems it never saw; `poemetric.store.merge_coverage`).

A poem counts as covered by any row of the stage and model, ok or failed: a failed row is named
by the stage's own summary and retried by its command. Per stage:

* judge: each judge, over the poems `poemetric judge` gives it (every ok generation,
  `judgeable_generations`), at least one judgment (or a 'not_judged' row: not a poem);
* judge recognise: each judge, over the human poems (`human_poems`);
* ghostwriting style-match: each judge, over the poems that can have a trial (`style_trials`:
  their poet has another poem in a dataset of four poets or more);
* form check (no model): every ok generation, as `form run` checks them, once any is checked
  (the command carries the `--threshold` the stored checks were made at);
* generate: each model (not the human author), over the run's prompts times the samples it
  wrote (`merge` counts these only where no store records the stage's shards).

The probes' lines and choices (`probe build`, `probe run`) answer a probe set, not the run's
poems: nothing of the merged run says what they are to cover, so they are not checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from math import isclose
from typing import Any

from poemetric.generation.stage import STAGE as GENERATE
from poemetric.judge.recognise import STAGE as RECOGNISE
from poemetric.judge.recognise import human_poems
from poemetric.judge.stage import STAGE as JUDGE
from poemetric.judge.stage import judgeable_generations
from poemetric.store import HUMAN_AUTHOR, RunStore
from poemetric.store.merge_coverage import FORM, StageGap
from poemetric.style.stage import STAGE as STYLE_MATCH
from poemetric.style.stage import style_trials
from poemetric.text.ordering import author_order

__all__ = ["stage_gaps"]


def stage_gaps(store: RunStore) -> list[StageGap]:
    """The gaps of every stage and model with results in `store`, in the order above."""
    gaps: list[StageGap] = []
    authors = {
        str(row["generation_id"]): str(row["author"])
        for row in store.query("SELECT generation_id, author FROM generations")
    }
    if judges := _owners(store, "judgments"):
        poems = [str(g["generation_id"]) for g in judgeable_generations(store)]
        for judge in judges:
            done = _column(store, "generation_id", "judgments", judge)
            gaps += _gap(JUDGE, judge, poems, done, authors)
    if judges := _owners(store, "recognitions"):
        human = [str(row["poem_id"]) for row in human_poems(store)]
        for judge in judges:
            done = _column(store, "poem_id", "recognitions", judge)
            gaps += _gap(RECOGNISE, judge, human, done, dict.fromkeys(human, HUMAN_AUTHOR))
    if judges := _owners(store, "style_matches"):
        trials = style_trials(store, trials_per_poem=1).trials  # which poems can have one
        eligible = list(dict.fromkeys(trial.generation_id for trial in trials))
        for judge in judges:
            done = _column(store, "generation_id", "style_matches", judge)
            gaps += _gap(STYLE_MATCH, judge, eligible, done, authors)
    if store.count("form_checks"):
        ok = store.query("SELECT generation_id FROM generations WHERE status = 'ok'")
        checked = {str(r[0]) for r in store.query("SELECT generation_id FROM form_checks")}
        form = _gap(FORM, None, (str(r[0]) for r in ok), checked, authors)
        gaps += [replace(gap, **_threshold_options(store)) for gap in form]
    return gaps + _generation_gaps(store)


def _threshold_options(store: RunStore) -> dict[str, Any]:
    """`form run`'s `--threshold` for the stored checks: a plain `form run` (0.7) checks every
    row made at another threshold again, not only the missing ones."""
    from poemetric.form.checker import DEFAULT_THRESHOLD

    rows = store.query(
        "SELECT DISTINCT json_extract(explanation, '$.threshold') FROM form_checks "
        "WHERE json_valid(explanation) AND json_extract(explanation, '$.threshold') IS NOT NULL"
    )
    thresholds = sorted({float(row[0]) for row in rows})
    if not thresholds or (len(thresholds) == 1 and isclose(thresholds[0], DEFAULT_THRESHOLD)):
        return {}
    if len(thresholds) == 1:
        return {"options": (f"--threshold {thresholds[0]:g}",)}
    made = " and ".join(f"{t:g}" for t in thresholds)
    note = (
        f"its checks were made at thresholds {made}: add --threshold with the one wanted (the "
        "checks made at another are checked again too)"
    )
    return {"options_note": note}


def _owners(store: RunStore, table: str) -> list[str]:
    """The judges with rows in `table`, sorted."""
    return [str(r[0]) for r in store.query(f"SELECT DISTINCT judge FROM {table} ORDER BY judge")]


def _column(store: RunStore, column: str, table: str, judge: str) -> set[str]:
    """The values of `column` in the rows of `judge` in `table`."""
    sql = f"SELECT DISTINCT {column} FROM {table} WHERE judge = ?"
    return {str(r[0]) for r in store.query(sql, (judge,))}


def _gap(
    stage: str, model: str | None, items: Iterable[str], done: set[str], authors: dict[str, str]
) -> list[StageGap]:
    """The gap of `model` in `stage` over `items` (none if every item is `done`)."""
    wanted = list(items)
    lacking = Counter(authors.get(item, "?") for item in wanted if item not in done)
    if not lacking:
        return []
    by_author = tuple((author, lacking[author]) for author in author_order(lacking))
    return [StageGap(stage, model, sum(lacking.values()), len(wanted), by_author)]


def _generation_gaps(store: RunStore) -> list[StageGap]:
    """Each model's (prompt, sample) jobs without a row, ok or error, over the run's prompts
    and the samples it wrote (its highest sample index, plus one)."""
    prompts = store.count("prompts")
    rows = store.query(
        "SELECT author, MAX(sample_index) + 1 AS samples, "
        "COUNT(DISTINCT prompt_id || '/' || sample_index) AS held "
        "FROM generations WHERE author != ? GROUP BY author ORDER BY author",
        (HUMAN_AUTHOR,),
    )
    gaps = []
    for row in rows:
        total = prompts * int(row["samples"])
        if (lacking := total - int(row["held"])) > 0:
            author = str(row["author"])
            gaps.append(StageGap(GENERATE, author, lacking, total, ((author, lacking),)))
    return gaps
