"""Human expert ratings: reading them (a file, or the run's survey answers) and matching them to
the run's generations.

Two file formats (CSV/TSV/JSONL/Parquet; documented in docs/survey.md):

* **long**, one row per rater x poem x item: `poem` (a generation_id; or `poem_id` + `author`
  + optional `sample_index`), `rater` (or `expert`), `item`, `score`, optional `comment`.
  `item` is a dimension key (form, theme, …) or its question number (1-8, 10, 12); the comment
  of a row belongs to its item (only literary_devices, overall_quality and human_authorship
  have comments).
* **wide**, one row per expert x poem: `expert`, the poem as above (or `generation_id`), one
  column per dimension key and optionally the comment columns `comment_literary_devices`,
  `comment_overall_quality`, `comment_human_authorship`. Other columns are ignored.
* **exported**, the run's own `survey_answers` table as `poemetric export survey_answers` writes
  it: `rater_id`, `generation_id`, `question` (a dimension key, a comment key, or
  `attention_check`, read but never a rating), `score`, `text`, optional `survey_id` (with
  several, rater ids are prefixed with it, as `analyze` does with the stored answers).

Scores 1-5; 0 (or N/A) = N/A for imagery and literary_devices; a blank score = not rated.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from poemetric.analysis.expert_columns import item_renames, misnamed_items_message
from poemetric.analysis.expert_poems import PoemResolver, ok_generations
from poemetric.analysis.expert_rows import (
    COMMENT_KEYS,
    ExpertAnswer,
    exported_row,
    first_lines,
    item_key,
    long_row,
    wide_row,
)
from poemetric.data.io import DatasetError, RawRecord, RawTable
from poemetric.questionnaire import DIMENSIONS, DIMENSIONS_BY_KEY
from poemetric.reliability.header_hints import EXPERT_SPELLINGS, header_renames, rename_hint
from poemetric.reliability.io import (
    RATER_COLUMNS,
    LinedProblems,
    problem_report,
    read_ratings_table,
    score_text,
)
from poemetric.reliability.rater_spellings import spelled_apart, spelled_apart_message
from poemetric.store import RunStore
from poemetric.text.plural import plural

EXPERTS_JUDGE = "experts"
#: The columns of `poemetric export survey_answers` that mark that format.
EXPORTED_COLUMNS = {"rater_id", "generation_id", "question"}
#: The columns that hold a score (long and exported files; wide files).
SCORE_COLUMNS = {"score", *(d.key for d in DIMENSIONS)}
FRAME_COLUMNS = [
    "expert",
    "generation_id",
    "author",
    "poem_id",
    "poem_form",
    *(d.key for d in DIMENSIONS),
]


class ExpertRatingsError(ValueError):
    """The expert ratings are malformed; the message names the file and line."""


def one_expert_source(experts: str | Path | None, survey: str | None) -> None:
    """A ratings file `experts` with a stored survey `survey` is unusable input: the file's
    ratings would be used and the survey silently ignored (`analyze_run`, `render_figures`,
    `build_report` and their commands), so name both instead of guessing."""
    if experts is not None and survey is not None:
        raise ExpertRatingsError(
            f"--experts {experts} and --survey {survey} both choose the expert ratings (a file, "
            "or one of the run's stored surveys): give one"
        )


def expert_header(names: set[str]) -> bool:
    """Whether a `.csv` header split on `;` is an expert ratings file's: a rater column, and a
    score column (long, exported) or a dimension's (wide)."""
    return bool(names & RATER_COLUMNS) and bool(names & SCORE_COLUMNS)


def read_expert_answers(
    path: str | Path,
    store: RunStore,
    warnings: list[str] | None = None,
    skipped: Counter[str] | None = None,
) -> list[ExpertAnswer]:
    """Validated answers from a long- or wide-format file; every bad row is reported at once.
    `warnings` gets how the file was read (Windows-1252, `;`-separated, decimal commas);
    `skipped` counts the rows of an exported file that hold no answer, by what they lack ("an
    empty comment", "an empty score"): the export writes a comment left empty on the web as a
    row, so its row count and the answers imported differed without a word."""
    path = Path(path)
    try:
        table = read_ratings_table(path, warnings, expert_header)
    except (OSError, DatasetError) as exc:
        raise ExpertRatingsError(f"{path}: cannot read expert ratings: {exc}") from exc
    _refuse_unreadable(path, table)
    header = set(table.columns) if table.header_read else _keys(table.records)
    resolver = PoemResolver(store, path, header)
    long_format = {"item", "score"} <= header
    exported = not long_format and header >= EXPORTED_COLUMNS
    rater_column = "rater" if "rater" in header else "expert"
    rater_column = "rater_id" if exported else rater_column
    surveys = {str(r.values.get("survey_id") or "") for r in table.records} if exported else set()
    if rater_column in header:
        missing = []
    else:
        missing = ["rater (or expert)" if not exported else rater_column]
    missing += resolver.missing_columns()
    if not long_format and not exported and not any(d.key in header for d in DIMENSIONS):
        missing.append(
            "item and score (long format) or at least one item column ("
            + ", ".join(d.key for d in DIMENSIONS)
            + ")"
        )
    renames = header_renames(table.columns, EXPERT_SPELLINGS) if table.header_read else {}
    found = table.columns if table.header_read else sorted(header)
    items = {} if exported else item_renames(found, long_format)
    if missing:
        raise ExpertRatingsError(
            f"{path}: missing {plural(len(missing), 'column')}: {', '.join(missing)}; found "
            f"{', '.join(found) or 'none'}{rename_hint(renames | items, 'docs/survey.md')}"
        )
    if items:  # other columns are ignored: these would be lost
        raise ExpertRatingsError(misnamed_items_message(path, items))
    problems = LinedProblems(table.issues)
    answers: list[ExpertAnswer] = []
    seen: dict[tuple[str, ...], int] = {}
    commas: list[int] = []
    for record in table.records:
        where, problems.line = f"{path}:{record.line}", record.line
        raw = {k: "" if v is None else str(v).strip() for k, v in record.values.items()}
        for column in SCORE_COLUMNS & raw.keys():  # `3,5` of a `;`-separated file: 3.5
            raw[column] = score_text(raw[column], table, record.line, warnings, commas)
        expert = raw.get(rater_column, "")
        if not expert:
            problems.append(f"{where}: empty {rater_column} id")
            continue
        generation_id = resolver.resolve(raw, where, problems)
        if generation_id is None:
            continue
        key: tuple[str, ...]
        if exported:
            if len(surveys) > 1:
                expert = f"{raw.get('survey_id', '')}:{expert}"
            problems_before = len(problems)
            rows = exported_row(raw, record.line, expert, generation_id, where, problems)
            if not rows and len(problems) == problems_before and skipped is not None:
                empty = "comment" if raw.get("question") in COMMENT_KEYS else "score"
                skipped[f"an empty {empty}"] += 1
            key = (expert, generation_id, raw.get("question", ""))
            duplicate = f"rater {expert!r} answered {key[2]!r} of poem {generation_id}"
        elif long_format:
            rows = long_row(raw, record.line, expert, generation_id, where, problems)
            # The item by its key: `form` and its question number `1` are the same item.
            item_text = raw.get("item", "")
            key = (expert, generation_id, item_key(item_text) or item_text)
            duplicate = f"{rater_column} {expert!r} rated item {key[2]!r} of poem {generation_id}"
        else:
            rows = wide_row(raw, record.line, expert, generation_id, where, problems)
            key = (expert, generation_id)
            duplicate = f"expert {expert!r} rated poem {generation_id}"
        if key in seen:
            problems.append(f"{where}: {duplicate} already on line {seen[key]}")
            continue
        seen[key] = record.line
        answers += rows
    if problems:
        raise ExpertRatingsError(problem_report("invalid expert ratings", problems.in_line_order()))
    return answers


def _refuse_unreadable(path: Path, table: RawTable) -> None:
    """A file of which nothing could be read (not UTF-8, empty, no JSON object) is refused with
    the reason, not with the columns an unread header "lacks"."""
    if table.header_read or table.records:
        return
    if not table.issues:
        raise ExpertRatingsError(f"{path}: cannot read expert ratings: the file is empty")
    first = table.issues[0]
    where = f"line {first.line}: " if first.line else ""
    more = len(table.issues) - 1
    raise ExpertRatingsError(
        f"{path}: cannot read expert ratings: {where}{first.reason}"
        + (f" (and {more} more {plural(more, 'problem')})" if more else "")
    )


def _keys(records: Iterable[RawRecord]) -> set[str]:
    return {key for record in records for key in record.values}


def ratings_frame(answers: Iterable[ExpertAnswer], store: RunStore) -> pd.DataFrame:
    """One row per expert x poem with the 10 dimension scores (NaN = not rated), joined with
    author, poem_id and form: the frame `load_expert_ratings` returns."""
    scores = [
        {"expert": a.expert, "generation_id": a.generation_id, "item": a.question, "score": a.score}
        for a in answers
        if a.question in DIMENSIONS_BY_KEY and a.score is not None
    ]
    if not scores:
        return pd.DataFrame(columns=FRAME_COLUMNS)
    wide = (
        pd.DataFrame(scores)
        .pivot_table(index=["expert", "generation_id"], columns="item", values="score")
        .reindex(columns=[d.key for d in DIMENSIONS])
        .reset_index()
    )
    wide.columns.name = None
    info = ok_generations(store).drop(columns="sample_index")
    frame = wide.merge(info, on="generation_id", how="left")
    return frame[FRAME_COLUMNS].astype({d.key: float for d in DIMENSIONS})


def load_expert_ratings(
    path: str | Path, store: RunStore, warnings: list[str] | None = None
) -> pd.DataFrame:
    """Validated expert ratings (long or wide file) joined with the run's generations.

    Returns columns expert, generation_id, author, poem_id, poem_form and the 10 dimension keys
    (float; NaN = not rated; 0 = N/A). A file without a score (a header, an unfilled template)
    is an error: the expert tables asked for would be missing.
    """
    answers = read_expert_answers(path, store, warnings)
    if apart := spelled_apart(first_lines(answers), survey_raters(store)):
        raise ExpertRatingsError(spelled_apart_message(path, apart, "run again; nothing read"))
    ratings = ratings_frame(answers, store)
    if ratings.empty:
        raise ExpertRatingsError(
            f"{path}: no expert scores: no row has a score (an unfilled template?)"
        )
    return ratings


def survey_raters(store: RunStore) -> set[str]:
    """The raters of the run's surveys, each also as `survey:rater` (an exported file of several
    surveys names them so): a survey may have `Cy` and `cy` as two raters."""
    rows = store.query("SELECT survey_id, rater_id FROM survey_raters")
    return {str(r["rater_id"]) for r in rows} | {f"{r['survey_id']}:{r['rater_id']}" for r in rows}


def stored_expert_ratings(store: RunStore, survey: str | None = None) -> pd.DataFrame:
    """The expert ratings stored in the run (survey answers from `poemetric survey serve` or
    `survey import`), in the frame of `load_expert_ratings`. Rater ids are prefixed with the
    survey id when the run holds several surveys."""
    query = "SELECT survey_id, rater_id, generation_id, question, score FROM survey_answers"
    rows = store.query(
        query + (" WHERE survey_id = ?" if survey else ""), [survey] if survey else []
    )
    surveys = {row["survey_id"] for row in rows}
    answers = [
        ExpertAnswer(
            0,
            f"{row['survey_id']}:{row['rater_id']}" if len(surveys) > 1 else row["rater_id"],
            row["generation_id"],
            row["question"],
            score=row["score"],
        )
        for row in rows
    ]
    return ratings_frame(answers, store)


def experts_as_judgments(experts: pd.DataFrame) -> pd.DataFrame:
    """Expert ratings shaped like the judgments frame (judge = 'experts', one sample per expert),
    so the per-author score tables and figures can show the expert panel beside the LLM judge."""
    frame = experts.copy()
    frame["judge"] = EXPERTS_JUDGE
    frame["sample_index"] = frame.groupby("generation_id").cumcount()
    return frame.drop(columns=["expert"])


def no_answers_note(store: RunStore, survey: str | None) -> str | None:
    """Why the expert tables are missing when the run holds an expert survey (`survey`, else
    any) with no answers yet, and the commands that collect them; None without such a survey
    (a run that was never meant to be validated)."""
    rows = store.query("SELECT survey_id FROM surveys WHERE task = 'poemetric' ORDER BY created_at")
    waiting = [row["survey_id"] for row in rows if survey is None or row["survey_id"] == survey]
    if not waiting:
        return (
            None if survey is None else f"expert tables skipped: survey {survey!r} has no answers"
        )
    name = waiting[0]
    run = shlex.quote(str(store.run_dir))
    option = "" if name == "experts" else f" --survey {shlex.quote(name)}"
    which = ", ".join(repr(s) for s in waiting)
    return (
        f"expert tables skipped: {plural(len(waiting), 'survey')} {which} "
        f"{plural(len(waiting), 'has', 'have')} no answers yet; collect them on the web with "
        f"`poemetric survey serve --run {run}{option}`, or on paper with `poemetric survey "
        f"sheets --run {run}{option}` and then `poemetric survey import FILE --run {run}{option}`"
    )
