"""Reading a run store into the data frames the analysis works on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from poemetric.analysis.generation_notes import (
    cut_poems_note,
    failed_generations_note,
    withheld_note,
)
from poemetric.analysis.judge_configs import mixed_judges
from poemetric.analysis.poems_only import NOT_POEM_KINDS
from poemetric.hints import stage_command
from poemetric.judge.pending import judge_clause, judges_of, judgment_errors, pending_note
from poemetric.questionnaire import DIMENSION_KEYS, DIMENSIONS
from poemetric.store import HUMAN_AUTHOR as HUMAN_AUTHOR
from poemetric.store import RunStore
from poemetric.store.cut_poems import cut_poems
from poemetric.store.models import JUDGE_STAGE, other_model_notes
from poemetric.store.withheld import withheld_answers
from poemetric.suggest import did_you_mean, name_hint
from poemetric.text.ordering import author_order as author_order
from poemetric.text.ordering import natural_key as natural_key
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.analysis.labels import Labels  # it reads this module


@dataclass
class RunData:
    """The rows an analysis needs, already joined. Empty frames when a stage has not run."""

    generations: pd.DataFrame
    form_checks: pd.DataFrame
    judgments: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    #: The run's folder, named in the commands that notes give (`run ... form run --run X`).
    run_dir: Path | None = None
    #: The judges `--judge` chose (`poemetric.analysis.judge_choice`); None: every judge.
    chosen_judges: list[str] | None = None
    #: Every poem of the run's dataset snapshot (poem_id, title, author, content, in dataset
    #: order), whatever `--limit` prompted: the ghostwriting reference corpus, as the tables'.
    dataset_poems: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Those of `notes` that concern the judgments alone (judgments failed, pending or not
    #: made, generations a judge has not judged, the chosen judges): `figures` says them only
    #: when it drew a judge's figure.
    judge_notes: list[str] = field(default_factory=list)
    #: The run's display names (`run_labels`), which the notes name authors and judges by:
    #: read once here for every reader of the data (None for data not read from a run).
    labels: Labels | None = None

    @property
    def judges(self) -> list[str]:
        if self.judgments.empty:
            return []
        return sorted(self.judgments["judge"].unique())


#: The order of the rows that `load_run_data` reads: by the dataset's order, the human original
#: first, then each author's samples. Without it SQLite returns them in the order they were stored,
#: which `merge` changes with the order of its sources, and the float sums of every mean with it.
POEM_ORDER = (
    f"p.position, g.prompt_id, g.author != '{HUMAN_AUTHOR}', g.author, g.sample_index, "
    "g.generation_id"
)


def load_run_data(store: RunStore, *, judge: str | None = None) -> RunData:
    """Successful generations (with their prompt's form and human original), form checks and
    judgments, each joined with author and form. Failed rows are counted in `notes`. `judge`:
    only the judgments of that judge, of several comma-separated, or of a judge group's members
    (`poemetric.analysis.judge_choice`); a ValueError when one of them has none usable."""
    from poemetric.analysis.judge_choice import chosen_judges
    from poemetric.analysis.labels import run_labels  # it reads this module

    # The notes name each author and judge as the tables beside them do (`Markov baseline`, not
    # `markov`); the commands in them keep the key.
    labels = run_labels(store)
    author = labels.author
    judges, judge_notes = chosen_judges(store, judge) if judge else (None, [])
    notes = list(judge_notes)
    generations = pd.read_sql_query(
        f"""
        SELECT g.generation_id, g.poem_id, g.prompt_id, g.author, g.sample_index, g.poem,
               g.extraction_notes, g.provider,
               p.form AS poem_form, p.title AS poem_title, p.imagery AS poem_imagery
        FROM generations g JOIN poems p ON p.poem_id = g.poem_id
        WHERE g.status = 'ok' AND g.poem IS NOT NULL
        ORDER BY {POEM_ORDER}
        """,
        store.conn,
    )
    dataset_poems = pd.read_sql_query(
        "SELECT poem_id, title, author, content FROM poems ORDER BY position", store.conn
    )
    # Beside its poem's other columns, where the join put it.
    where = list(generations.columns).index("poem_title")
    generations.insert(where, "human_poem", human_originals(dataset_poems, generations))
    if failed := failed_generations_note(store, author):
        notes.append(failed)
    if cut := cut_poems(store):
        notes.append(cut_poems_note(cut, author))
    if withheld := withheld_answers(store):
        notes.append(withheld_note(withheld, author))
    # Labels name the file's model, answers may not: said here, so every reader of the run's
    # data (`analyze`, `report`, `figures`) says it.
    notes += other_model_notes(store, stages=("generate",))
    form_checks = pd.read_sql_query(
        f"""
        SELECT f.generation_id, g.author, g.poem_id, p.form AS poem_form, f.passed, f.meter_score,
               f.rhyme_score, f.form_score, f.error, p.position,
               json_extract(f.explanation, '$.errata') AS errata,
               json_extract(f.explanation, '$.threshold') AS threshold
        FROM form_checks f
        JOIN generations g ON g.generation_id = f.generation_id
        JOIN poems p ON p.poem_id = g.poem_id
        WHERE g.status = 'ok'
        ORDER BY {POEM_ORDER}
        """,
        store.conn,
    )
    columns = ", ".join(f"j.{key}" for key in DIMENSION_KEYS)
    judge_filter, params = judge_clause(judges, "j.judge")
    judgments = pd.read_sql_query(
        f"""
        SELECT j.generation_id, j.judge, j.sample_index, g.author, g.poem_id, p.form AS poem_form, {columns}
        FROM judgments j
        JOIN generations g ON g.generation_id = j.generation_id
        JOIN poems p ON p.poem_id = g.poem_id
        WHERE j.status = 'ok' AND g.status = 'ok' {judge_filter}
        ORDER BY {POEM_ORDER}, j.judge, j.sample_index
        """,
        store.conn,
        params=params,
    )
    for name in judges or []:
        if not (judgments["judge"] == name).any():
            raise ValueError(no_judgments_message(store, name))
    errors = judgment_errors(store, judges)
    first_judge_note = len(notes)
    if errors.failed:
        notes.append(
            f"{counted(len(errors.failed), 'judgment')} failed to parse or call and "
            f"{plural(len(errors.failed), 'is', 'are')} left out"
        )
    if errors.pending:
        notes.append(pending_note(len(errors.pending), store.run_dir, judges_of(errors.pending)))
    not_poems = store.count("judgments", "status = 'not_judged'" + judge_clause(judges)[0], params)
    if not_poems:
        notes.append(
            f"{counted(not_poems, 'judgment')} not made: the answer was not a poem ({NOT_POEM_KINDS})"
            f"{_not_poems_by_author(store, judges, author)}; see the `judges` table"
        )
    mixed = mixed_judges(store, judges, labels.judge)
    notes += mixed.notes
    # A judge whose judgments came from several models has its note already: one note, not two.
    notes += other_model_notes(store, mixed.several_models, judges, stages=(JUDGE_STAGE,))
    judge_notes += notes[first_judge_note:]
    for key in DIMENSION_KEYS:
        judgments[key] = pd.to_numeric(judgments[key], errors="coerce")
    notes += form_coverage_notes(generations, form_checks, store, author)
    unjudged = judge_coverage_notes(generations, judgments, store, author, labels.judge)
    notes += unjudged
    judge_notes += unjudged
    return RunData(
        generations, form_checks, judgments, notes, store.run_dir, judges, dataset_poems,
        judge_notes, labels,
    )  # fmt: skip


def human_originals(poems: pd.DataFrame, generations: pd.DataFrame) -> pd.Series:
    """Each generation's human original (the text of its poem in `poems`, the run's poems
    table), one text per poem of the run: joined in SQL, a run's every generation held its own
    copy of the original (30 models x 3 samples: 90 copies of each), read as Python strings and
    then copied into the frame, some 90 MB at 14,833 generations. The values are the same
    strings (NaN where a poem has no text)."""
    texts = poems["content"].to_numpy(dtype=object, na_value=float("nan"))
    rows = pd.Index(poems["poem_id"]).get_indexer(generations["poem_id"])
    return pd.Series(pd.Categorical(texts[rows]), index=generations.index)


def _not_poems_by_author(
    store: RunStore, judges: list[str] | None, label: Callable[[str], str]
) -> str:
    """`: by author, Refuser LLM 62 of 163, ...; ...` (named by `label`) for the not-a-poem
    note: a model's judge scores
    are over the answers that were poems, so one that refused a third of its prompts may rank
    first on the two thirds it wrote."""
    clause, params = judge_clause(judges, "j.judge")
    rows = store.query(
        "SELECT g.author, COUNT(DISTINCT g.generation_id), "
        "(SELECT COUNT(*) FROM generations a WHERE a.author = g.author AND a.status = 'ok') "
        "FROM judgments j JOIN generations g ON g.generation_id = j.generation_id "
        f"WHERE j.status = 'not_judged'{clause} GROUP BY g.author",
        params,
    )
    counts = {str(author): (int(skipped), int(total)) for author, skipped, total in rows}
    listed = ", ".join(
        f"{label(author)} {counts[author][0]} of {counts[author][1]}"
        for author in author_order(counts)
    )
    return (
        f": by author, {listed} generations; an author's judge scores are over its answers "
        "that were poems"
        if listed
        else ""
    )


def no_judgments_message(store: RunStore, judge: str) -> str:
    """Why a judge has no usable judgment: it never ran, or every one of its judgments failed."""
    errors = judgment_errors(store, judge)
    failed = errors.failed
    not_judged = store.count("judgments", "judge = ? AND status = 'not_judged'", (judge,))
    if errors.pending and not failed:
        note = pending_note(len(errors.pending), store.run_dir, judge)
        return f"judge {judge!r} has no judgment yet: {note}"
    if not_judged and not failed:
        return (
            f"judge {judge!r} has no judgment: "
            + plural(
                not_judged,
                "the 1 poem it was given was not a poem (an empty answer or a refusal) and was",
                f"all {not_judged} poems it was given were not poems (empty answers or refusals) "
                "and were",
            )
            + " not sent to it"
        )
    if failed:
        return (
            f"{plural(len(failed), 'the 1 judgment', f'all {len(failed)} judgments')} by judge "
            f"{judge!r} failed; the first error: "
            f"{failed[0]['error']} (fix the cause, then run `{stage_command('judge', store.run_dir, judge)}` "
            "again: failed judgments are retried)"
        )
    known = [r[0] for r in store.query("SELECT DISTINCT judge FROM judgments ORDER BY judge")]
    if not known:
        return no_judgments_yet(store.run_dir, judge)
    from poemetric.analysis.labels import run_labels  # it reads this module

    hint = name_hint(judge, known, run_labels(store).judges)  # `--judge GPT-4o`: its label
    return f"no judgments by judge {judge!r}{hint} in the run; judges: " + ", ".join(known)


def no_judgments_yet(run_dir: Path, judge: str) -> str:
    """A run without judgments: the `poemetric judge` command that makes them, when `judge` is
    a judge or judge group of judges/. A mistyped name was sent there too (`--judge gemni`), and
    that command then failed with "unknown judge"; the message now says so, with close names."""
    from poemetric.roster import RosterError, load_catalog, load_groups

    try:
        catalog = load_catalog("judges")
        names = catalog.names()
        groups = [g for g in load_groups("judges", catalog=catalog) if g != "all"]
    except (RosterError, OSError):
        names = groups = []
    if names and judge not in names and judge not in groups:
        return (
            f"no judgments by judge {judge!r}: the run has no judgments yet, and judges/ has no "
            f"judge {judge!r}{did_you_mean(judge, names + groups)}; judges: {', '.join(names)}"
        )
    return (
        f"no judgments by judge {judge!r}: the run has no judgments yet; make them with "
        f"`{stage_command('judge', run_dir, judge)}`"
    )


def form_coverage_notes(
    generations: pd.DataFrame,
    form_checks: pd.DataFrame,
    store: RunStore,
    label: Callable[[str], str] = str,
) -> list[str]:
    """Say when the form checks cover only part of the poems (e.g. poems generated after the
    last `form run`), or mix checker versions or thresholds: the tables would then silently
    compare authors over different subsets or rules. Authors are named by `label`."""
    notes: list[str] = []
    if not form_checks.empty:
        unchecked = generations[~generations["generation_id"].isin(form_checks["generation_id"])]
        if len(unchecked):
            by_author = unchecked["author"].value_counts()
            listed = ", ".join(
                f"{label(str(a))} {by_author[a]}" for a in author_order(by_author.index)
            )
            notes.append(
                f"{counted(len(unchecked), 'generation')} {plural(len(unchecked), 'has', 'have')} no "
                f"form check ({listed}): the form tables "
                f"cover only the checked ones; run `{stage_command('form', store.run_dir)}`"
            )
        rules = store.query(
            "SELECT DISTINCT checker_version, json_extract(explanation, '$.threshold') "
            "FROM form_checks"
        )
        if len(rules) > 1:
            listed = ", ".join(f"{r[0]} at threshold {r[1]}" for r in rules)
            notes.append(
                f"form checks were made with different rules ({listed}): run "
                f"`{stage_command('form', store.run_dir)}` to re-check them alike"
            )
    return notes


def judge_coverage_notes(
    generations: pd.DataFrame,
    judgments: pd.DataFrame,
    store: RunStore,
    label: Callable[[str], str] = str,
    judge_label: Callable[[str], str] = str,
) -> list[str]:
    """Say when a judge judged only part of the poems (e.g. poems generated after its last
    `judge`): its tables would then silently compare authors (named by `label`) over different
    subsets. The judge is named by `judge_label`, its command by its key."""
    notes: list[str] = []
    for judge, rows in judgments.groupby("judge", sort=True):
        # A generation that is not a poem (empty, a refusal) is stored as not judged and never
        # sent: the note on those counts it, and `judge` again would not judge it either.
        not_poems = {
            row[0]
            for row in store.query(
                "SELECT generation_id FROM judgments WHERE judge = ? AND status = 'not_judged'",
                (str(judge),),
            )
        }
        covered = set(rows["generation_id"]) | not_poems
        unjudged = generations[~generations["generation_id"].isin(covered)]
        if len(unjudged):
            by_author = unjudged["author"].value_counts()
            listed = ", ".join(
                f"{label(str(a))} {by_author[a]}" for a in author_order(by_author.index)
            )
            notes.append(
                f"{counted(len(unjudged), 'generation')} {plural(len(unjudged), 'was', 'were')} not "
                f"judged by {judge_label(str(judge))} ({listed}): its "
                "tables cover only the judged ones; run "
                f"`{stage_command('judge', store.run_dir, str(judge))}`"
            )
    return notes


def judgments_per_generation(judgments: pd.DataFrame) -> pd.DataFrame:
    """One row per (judge, generation): repeated judge samples averaged.

    N/A (0) is excluded from the average of imagery and literary devices; a poem whose every
    sample said N/A keeps NaN for the score and `<key>_na` = True. A missing score (an expert
    who left the item blank: not rated) is neither a score nor N/A: a poem nobody rated on the
    item has NaN and `<key>_na` = False.
    """
    if judgments.empty:
        return judgments.assign(
            **{f"{d.key}_na": pd.Series(dtype=bool) for d in DIMENSIONS if d.allows_na}
        )
    frame = judgments.copy()
    na_keys = [d.key for d in DIMENSIONS if d.allows_na]
    for key in na_keys:
        frame[f"{key}_said_na"] = frame[key] == 0
        frame[key] = frame[key].where(frame[key] != 0)
    keys = ["judge", "generation_id", "author", "poem_id", "poem_form"]
    grouped = frame.groupby(keys, as_index=False, sort=False)
    averaged = grouped[list(DIMENSION_KEYS)].mean()
    said_na = grouped[[f"{key}_said_na" for key in na_keys]].any()
    for key in na_keys:
        averaged[f"{key}_na"] = averaged[key].isna() & said_na[f"{key}_said_na"].to_numpy()
    return averaged
