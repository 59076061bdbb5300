"""`analyze_run`: every table of a run in one call."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from poemetric.analysis.attention import (
    failed_checks,
    refuse_file_screening,
    screen_raters,
    unjudged_checks,
)
from poemetric.analysis.data import RunData, load_run_data
from poemetric.analysis.errata import DEFAULT_NOTE, errata_tables
from poemetric.analysis.experts import (
    experts_as_judgments,
    load_expert_ratings,
    no_answers_note,
    one_expert_source,
    stored_expert_ratings,
)
from poemetric.analysis.features import lexical_summary, poem_features
from poemetric.analysis.form_threshold import pass_rule
from poemetric.analysis.imagery import imagery_counts
from poemetric.analysis.judges import judge_report, recognition_notes, recognition_table
from poemetric.analysis.labels import Labels, run_labels
from poemetric.analysis.lexical import opening_words, profile_similarity, top_words
from poemetric.analysis.matched import experts_on_judged_poems, judged_as_rated, left_out_notes
from poemetric.analysis.poems_only import (
    not_poems_by_author,
    not_poems_note,
    poems_only,
    poems_only_caption,
)
from poemetric.analysis.scores import (
    dimension_matrix,
    dimension_scores,
    form_check_scores,
    group_scores,
)
from poemetric.analysis.survey_overlap import same_rater_notes
from poemetric.analysis.table_captions import (
    AGREEMENT_TABLES,
    FIXED_INTERVALS,
    MEAN_TABLES,
    TABLE_CAPTIONS,
    agreement_interval_note,
    interval_note,
    pending_caption,
)
from poemetric.analysis.validation import (
    AGREEMENT_BOOTSTRAP,
    BOOTSTRAP_SEED,
    discrimination,
    discrimination_notes,
    expert_agreement,
    expert_pao,
    judge_agreement,
)
from poemetric.data.errata import errata_for_run
from poemetric.hints import stage_command
from poemetric.judge.pending import judge_option, judges_of, judgment_errors
from poemetric.paths import replaced_when_done
from poemetric.stats import CIMethod
from poemetric.store import RunStore
from poemetric.tables.latex import latex_preview
from poemetric.tables.write import presentable, remove_table_files, write_table
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.progress_lines import Advance, StepProgress

#: Tables with one row per poem: written as CSV only (thousands of rows at the paper's scale).
PER_POEM_TABLES = frozenset({"ghostwriting_poems"})


@dataclass
class AnalysisResult:
    """The analysis tables of a run; `notes` says what was skipped and why."""

    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    labels: Labels = field(default_factory=Labels)
    #: Captions that differ from TABLE_CAPTIONS in this run (e.g. saying which annotation the
    #: human row used when the dataset has errata).
    captions: dict[str, str] = field(default_factory=dict)

    def caption(self, name: str) -> str:
        return self.captions.get(name) or TABLE_CAPTIONS.get(name, name)

    def table(self, name: str) -> pd.DataFrame:
        if name not in self.tables:
            raise KeyError(f"no table {name!r} in this analysis; tables: {sorted(self.tables)}")
        return self.tables[name]

    def write(self, out_dir: str | Path, latex_width: str = "two") -> list[Path]:
        """Write every table as CSV (machine names), LaTeX (set for `latex_width`, 'one' column
        or 'two') and Markdown (display names, readable headers; per-poem tables as CSV only),
        `tables.tex` to preview every LaTeX table, and NOTES.txt."""
        written: list[Path] = []
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        stale = self._remove_stale_tables(Path(out_dir))
        if stale:
            self.notes.append(f"removed the tables of an earlier analysis: {', '.join(stale)}")
        for name, frame in self.tables.items():
            if name in PER_POEM_TABLES:  # data for further analysis, not a table for a paper
                written += write_table(frame, out_dir, name, formats=("csv",))
                continue
            shown = presentable(frame, author_name=self.labels.author, rater_name=self.labels.judge)
            written += write_table(frame, out_dir, name, caption=self.caption(name), shown=shown,
                                   latex_width=latex_width)  # fmt: skip
        tex = [p for p in written if p.suffix == ".tex"]
        if tex:
            written.append(latex_preview(tex, Path(out_dir) / "tables.tex", latex_width))
        notes = Path(out_dir) / "NOTES.txt"
        with replaced_when_done(notes) as temp:
            temp.write_text("\n".join(self.notes) + ("\n" if self.notes else ""), encoding="utf-8")
        return [*written, notes]

    def _remove_stale_tables(self, out_dir: Path) -> list[str]:
        """Delete the files of tables an earlier analysis wrote to `out_dir` that this one has
        not (agreement tables after a run without `--experts`): left there, they read as
        current. Other files are kept."""
        left = sorted({*TABLE_CAPTIONS, *PER_POEM_TABLES} - set(self.tables))
        return [name for name in left if remove_table_files(out_dir, name)]


def analyze_run(
    store: RunStore,
    *,
    judge: str | None = None,
    experts: str | Path | None = None,
    survey: str | None = None,
    ci_method: CIMethod = "t",
    n_boot: int = AGREEMENT_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
    top_k: int = 20,
    progress: StepProgress | None = None,
    exclude_failed_checks: bool = False,
    data: RunData | None = None,
) -> AnalysisResult:
    """Compute the per-author tables of a run (paper Sec. 6, App. D, F, H).

    Expert ratings come from the file `experts` when given, else from the run's stored survey
    answers (`poemetric survey serve` / `survey import`; `survey` picks one survey), without the
    raters who failed an attention check when `exclude_failed_checks` (stored answers only: a
    file is refused, as it holds no instructed answers to check against). `progress`
    is told how far the slow steps are: the ghostwriting measures and, with `ci_method`
    "bootstrap", the score intervals (about a second of CPU at the paper's scale). `experts`
    with `survey` is an ExpertRatingsError (the file would win silently). `data`: the run's
    data as `load_run_data(store, judge=judge)` reads it, when the caller has it already (the
    report: read once, not twice)."""
    one_expert_source(experts, survey)
    data = load_run_data(store, judge=judge) if data is None else data
    result = AnalysisResult(
        notes=list(data.notes), judges=data.judges, labels=data.labels or run_labels(store)
    )
    if data.generations.empty:
        result.notes.append("no successful generations: nothing to analyze")
        return result

    if data.form_checks.empty:
        result.notes.append(
            f"form-check tables skipped: no form checks (run `{stage_command('form', store.run_dir)}`)"
        )
    else:
        result.tables["form_checks"] = form_check_scores(data.form_checks)
        result.tables["form_checks_by_form"] = form_check_scores(data.form_checks, by_form=True)
        errata = errata_for_run(store)
        tables, notes = errata_tables(data.form_checks, data.generations, errata, run=store.run_dir)
        result.tables.update(tables)
        result.notes += notes
        errata_note = DEFAULT_NOTE if tables else ""
        rule = pass_rule(data.form_checks)
        for name in ("form_checks", "form_checks_by_form"):
            result.captions[name] = f"{TABLE_CAPTIONS[name]}; {rule}{errata_note}"

    # The answers that are not poems, per author: the captions of ~10 tables name them.
    left_out = not_poems_by_author(data.generations, result.labels.author)
    _lexical_tables(result, data.generations, top_k, left_out)
    # it imports this package
    from poemetric.ghostwriting.tables import ghostwriting_caption, ghostwriting_tables

    ghostwriting = ghostwriting_tables(
        store, data.generations, progress=progress, label=result.labels.author
    )
    result.tables.update(ghostwriting.tables)
    result.notes += ghostwriting.notes
    for name in ghostwriting.tables:  # as `ghostwriting metrics` captions them, intervals too
        result.captions[name] = ghostwriting_caption(name, left_out)

    def steps(table: str) -> Advance | None:
        """A step per group with bootstrap CIs (t intervals are instant: no step)."""
        if progress is None or ci_method != "bootstrap":
            return None
        return partial(progress, f"{table}, bootstrap CIs")

    if data.judgments.empty:
        result.notes.append(_no_judge_tables_note(store))
    else:
        result.tables["dimension_scores"] = dimension_scores(
            data.judgments, method=ci_method, seed=seed, advance=steps("judge scores")
        )
        result.tables["dimension_scores_by_form"] = dimension_scores(
            data.judgments,
            by_form=True,
            method=ci_method,
            seed=seed,
            advance=steps("judge scores by form"),
        )
        result.tables["group_scores"] = group_scores(
            data.judgments, method=ci_method, seed=seed, advance=steps("group scores")
        )
        result.tables["dimension_matrix"] = dimension_matrix(result.tables["dimension_scores"])
        _say_poems_only(result, left_out, SCORE_TABLES)  # the judge scored no other

    for name, table in (("judges", judge_report(store)), ("recognition", recognition_table(store))):
        if not table.empty:
            result.tables[name] = table
    result.notes += recognition_notes(store, result.labels.judge)
    behaviour = result.tables.get("judges", pd.DataFrame())
    if "pending_reasks" in behaviour:
        pending = behaviour.loc[behaviour["pending_reasks"] > 0, "judge"].astype(str).tolist()
        result.captions["judges"] = TABLE_CAPTIONS["judges"] + pending_caption(
            store.run_dir, judge_option(pending)
        )

    _expert_tables(
        result,
        store,
        data,
        (experts, survey, exclude_failed_checks),
        ci_method,
        n_boot,
        seed,
        steps("expert scores"),
    )
    for name in result.tables:  # a reader of the table alone learns which interval it prints
        if name in ghostwriting.tables:  # `ghostwriting_caption` says it
            continue
        if name in MEAN_TABLES:
            note: str | None = interval_note(ci_method, seed)
        elif name in AGREEMENT_TABLES:
            note = agreement_interval_note(n_boot, seed)
        else:
            note = FIXED_INTERVALS.get(name)
        if note:
            result.captions[name] = f"{result.caption(name)}; {note}"
    return result


#: The tables over the generations that are poems only (`poems_only`).
LEXICAL_TABLES = ("lexical", "top_words", "imagery", "opening_words", "profile_similarity")
SCORE_TABLES = ("dimension_scores", "dimension_scores_by_form", "group_scores", "dimension_matrix")


def _lexical_tables(
    result: AnalysisResult, generations: pd.DataFrame, top_k: int, left_out: str
) -> None:
    """The lexical tables, over the generations that are poems (`poems_only`, the judge
    stage's rule): a refusal or a one-line answer is no poem to measure. The notes and the
    captions count the ones left out per author (`left_out`: `not_poems_by_author`)."""
    poems = poems_only(generations)
    result.tables["lexical"] = lexical_summary(poem_features(poems))
    result.tables["top_words"] = top_words(poems, k=top_k)
    result.tables["imagery"] = imagery_counts(poems, k=top_k)
    result.tables["opening_words"] = opening_words(poems)
    similarity = profile_similarity(poems, k=top_k)
    if similarity.empty:
        result.notes.append("profile similarity skipped: the run has no human poems")
    else:
        result.tables["profile_similarity"] = similarity
    # without human poems there is no profile_similarity to name
    made = [name for name in LEXICAL_TABLES if name in result.tables]
    tables = "the lexical tables (" + ", ".join(made) + ")"
    if note := not_poems_note(generations, tables, result.labels.author):
        result.notes.append(note)
        _say_poems_only(result, left_out, made)


def _say_poems_only(result: AnalysisResult, left_out: str, tables: Iterable[str]) -> None:
    """Add to the captions of `tables` the answers they leave out as not poems (`left_out`,
    per author by display name, as the tables' rows and the figures' captions name them)."""
    for name in tables:
        result.captions[name] = poems_only_caption(result.caption(name), left_out)


def _no_judge_tables_note(store: RunStore) -> str:
    """Why the judge tables are missing: no judge ran, every judgment it made failed, or the
    ones that did not fail are pending a re-ask (a stopped `poemetric judge`)."""
    errors = judgment_errors(store)
    judge = stage_command("judge", store.run_dir, judges_of(errors.failed + errors.pending))
    failed, pending = len(errors.failed), len(errors.pending)
    if not failed:
        if pending:
            return (
                "judge tables skipped: no successful judgments yet, only judgments pending a "
                f"re-ask (run `{judge}` again to finish them)"
            )
        return f"judge tables skipped: no successful judgments (run `{judge}`)"
    which = (
        f"{counted(failed, 'judgment')} failed and {pending} "
        f"{plural(pending, 'is', 'are')} pending a re-ask"
        if pending
        else f"{plural(failed, 'the 1 judgment', f'all {failed} judgments')} failed"
    )
    return (
        f"judge tables skipped: {which} (the `judges` table counts parse failures and call "
        f"errors); the next `{judge}` retries call errors and re-parses stored answers, "
        "`--refresh-failed-parses` pays for new ones"
    )


#: What the notes say is missing when no judge scored a poem the experts rated.
JUDGE_VS_EXPERTS = (
    "so no judge-vs-expert table either (agreement, agreement_by_expert, discrimination "
    "(Table 2), judge_on_expert_poems, experts_on_judged_poems)"
)


def _expert_tables(
    result: AnalysisResult,
    store: RunStore,
    data: RunData,
    source_of: tuple[str | Path | None, str | None, bool],
    ci_method: CIMethod,
    n_boot: int,
    seed: int,
    advance: Advance | None = None,
) -> None:
    """Expert panel scores, judge-vs-expert and expert-vs-expert agreement (with CIs), from
    `source_of`: the ratings file (else the stored answers), the survey, and whether the raters
    who failed an attention check are left out."""
    experts, survey, exclude = source_of
    if experts is not None:  # a file without scores is an ExpertRatingsError
        refuse_file_screening(experts, exclude)
        read_as: list[str] = []  # a Windows-1252 or `;`-separated file: said in the notes
        ratings, source = load_expert_ratings(experts, store, read_as), str(experts)
        screened = list(read_as)  # each names the file: `FILE:LINE: ...` or `FILE: ...`
    else:
        ratings, source = stored_expert_ratings(store, survey), "the run's survey answers"
        if ratings.empty:
            if (note := no_answers_note(store, survey)) is not None:
                result.notes.append(note)
            return
        failed, unjudged = failed_checks(store, survey), unjudged_checks(store, survey)
        ratings, screened = screen_raters(ratings, failed, exclude=exclude, unjudged=unjudged)
        screened += same_rater_notes(store, survey)
    result.notes += screened
    if ratings.empty:
        result.notes.append("expert tables skipped: every rater failed an attention check")
        return
    result.notes.append(
        f"expert ratings from {source}: {counted(ratings['expert'].nunique(), 'rater')}, "
        f"{counted(ratings['generation_id'].nunique(), 'poem')}"
    )
    result.tables["expert_scores"] = dimension_scores(
        experts_as_judgments(ratings), method=ci_method, seed=seed, advance=advance
    )
    panel = expert_agreement(ratings, n_boot=n_boot, seed=seed)
    if panel.empty:
        result.notes.append("expert-vs-expert agreement skipped: fewer than two raters")
    else:
        result.tables["agreement_experts"] = panel
    if data.judgments.empty:
        judge = stage_command("judge", store.run_dir)
        result.notes.append(
            f"judge agreement skipped: the run has no judgments (run `{judge}`); {JUDGE_VS_EXPERTS}"
        )
        return
    agreement = judge_agreement(ratings, data.judgments, n_boot=n_boot, seed=seed)
    if agreement.empty:
        result.notes.append(
            f"judge agreement skipped: no poem was rated by a judge and an expert; {JUDGE_VS_EXPERTS}"
        )
        return
    result.tables["agreement"] = agreement
    result.tables["judge_on_expert_poems"] = dimension_scores(
        judged_as_rated(data.judgments, ratings), method=ci_method, seed=seed
    )
    beside = experts_on_judged_poems(ratings, data.judgments, method=ci_method, seed=seed)
    result.tables["experts_on_judged_poems"] = beside
    result.notes += left_out_notes(beside, result.labels)
    result.tables["agreement_by_expert"] = expert_pao(ratings, data.judgments)
    result.tables["discrimination"] = discrimination(ratings, data.judgments)
    result.notes += discrimination_notes(result.tables["discrimination"], result.labels.judge)
