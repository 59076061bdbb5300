"""Figure recipes (YAML lists of figures) and `make_figures`.

A recipe is `analysis/NAME.yaml` (bundled) or a path to a YAML file:

    description: what the set is for
    figures:
      - name: fig06-basic        # output file stem
        kind: dimension_bars     # a key of FIGURE_KINDS
        authors: paper7          # optional: authors shown (names or a generator group)
        forms: sonnet            # optional: only the poems of these forms
        group: basic             # any other key is a parameter of the figure function
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, create_model, field_validator

from poemetric.analysis.context import (
    FigureContext,
    FigureSkipped,
    RunFrames,
    screened_expert_ratings,
)
from poemetric.analysis.data import load_run_data
from poemetric.analysis.experts import one_expert_source
from poemetric.analysis.figure_checks import crowding_warning
from poemetric.analysis.figure_kinds import FIGURE_KINDS as FIGURE_KINDS
from poemetric.analysis.form_selection import (
    FormSelectionError,
    form_list,
    forms_caption,
    frames_of_forms,
)
from poemetric.analysis.labels import Labels, run_labels, shorten
from poemetric.analysis.plotting import (
    COLUMN_WIDTHS,
    FIGURE_FORMATS,
    LABEL_LIMIT,
    figure_style,
    save_figure,
)
from poemetric.analysis.selection import AuthorSelectionError, select_authors
from poemetric.data.text_files import TextFileError
from poemetric.data.yaml_fields import (
    FieldProblem,
    YamlFieldError,
    field_problems,
    line_of,
    read_yaml_document,
    validate_yaml_file,
)
from poemetric.paths import bundled_recipes, home_lacks, resource_path
from poemetric.store import RunStore
from poemetric.store.measure_cache import MeasureCache
from poemetric.suggest import did_you_mean


class RecipeError(ValueError):
    pass


class FigureSpec(BaseModel):
    """One figure of a recipe; extra keys are keyword parameters of the figure function."""

    model_config = ConfigDict(extra="allow")

    name: str
    kind: str
    #: Authors shown: model names or generator groups, comma-separated or a list, as `forms:`;
    #: `--authors` overrides it.
    authors: str | None = None
    #: Only the poems of these forms (the prompts' form): `sonnet`, `sonnet, villanelle` or a list.
    forms: str | list[str] | None = None

    @field_validator("authors", mode="before")
    @classmethod
    def _author_list(cls, authors: object) -> object:
        """`[gpt-4o, o1]` as `--authors` writes it: a list was refused as "is not text"."""
        if isinstance(authors, list) and all(isinstance(a, str) for a in authors):
            return ",".join(authors)
        return authors

    @field_validator("name")
    @classmethod
    def _file_stem(cls, name: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise ValueError(
                f"{name!r} cannot name the figure's files: use letters, digits, '_', '.' and '-'"
            )
        return name

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in FIGURE_KINDS:
            raise ValueError(
                f"unknown figure kind {kind!r}{did_you_mean(kind, FIGURE_KINDS)}; kinds: "
                + ", ".join(FIGURE_KINDS)
            )
        return kind

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class Recipe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str = ""
    figures: list[FigureSpec]


#: Used when no recipe is named: every figure kind once.
DEFAULT_RECIPE = Recipe(
    description="every figure POEMetric can draw",
    figures=[
        FigureSpec(name="rule-based", kind="rule_based"),
        FigureSpec(name="form-accuracy", kind="form_accuracy"),
        FigureSpec(name="form-by-poem-form", kind="form_heatmap"),
        FigureSpec(name="lexical-diversity", kind="lexical"),
        FigureSpec(name="top-words", kind="top_words"),
        FigureSpec(name="opening-words", kind="opening_words"),
        FigureSpec(name="ghostwriting", kind="ghostwriting"),
        FigureSpec(name="imagery", kind="imagery"),
        FigureSpec(name="scores-basic", kind="dimension_bars", group="basic"),
        FigureSpec(name="scores-advanced", kind="dimension_bars", group="advanced"),
        FigureSpec(name="scores-appraisal", kind="dimension_bars", group="appraisal"),
        FigureSpec(name="ranking", kind="ranking"),
        FigureSpec(name="scores-all-authors", kind="all_models", group="all"),
        FigureSpec(name="heatmap", kind="heatmap"),
        FigureSpec(name="radar", kind="radar"),
        FigureSpec(name="case-study", kind="case_study"),
    ],
)


def load_recipe(name_or_path: str | Path) -> Recipe:
    """A bundled recipe by name (`analysis/NAME.yaml`) or a YAML file path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = resource_path("analysis", f"{name_or_path}.yaml")
    if not path.is_file():
        raise RecipeError(
            f"no recipe {str(name_or_path)!r} (looked for {path}); bundled recipes: "
            + (
                ", ".join(bundled_recipes())
                or f"none ({home_lacks('analysis') or resource_path('analysis')})"
            )
        )
    try:  # not UTF-8, invalid YAML, an empty file, a wrong field: `FILE:LINE: ...`
        document = read_yaml_document(path)
        recipe = validate_yaml_file(path, Recipe, document)
        problems = _duplicate_names(recipe, document[1]) + [
            problem
            for index, spec in enumerate(recipe.figures)
            for problem in _parameter_problems(spec, document[1], ("figures", index))
        ]
        if problems:
            raise YamlFieldError(path, problems)
    except TextFileError as exc:
        raise RecipeError(str(exc)) from None
    return recipe


def _duplicate_names(recipe: Recipe, node: yaml.Node) -> list[FieldProblem]:
    """A figure named as an earlier one: its files replaced the earlier figure's, unsaid."""
    first: dict[str, int] = {}
    problems = []
    for index, spec in enumerate(recipe.figures):
        loc = ("figures", index, "name")
        if spec.name in first:
            earlier = line_of(node, ("figures", first[spec.name], "name"))
            problems.append(
                FieldProblem(
                    loc,
                    line_of(node, loc),
                    f"{spec.name!r} is already used on line {earlier}; each figure needs its "
                    "own name (it names the output files)",
                )
            )
        else:
            first[spec.name] = index
    return problems


@cache
def _parameters(kind: str) -> type[BaseModel]:
    """The parameters a figure kind's function takes, as a model of its signature's types
    (strict: `k: '12'` is not 12)."""
    signature = inspect.signature(FIGURE_KINDS[kind][0], eval_str=True)
    fields: dict[str, Any] = {
        name: (Any if p.annotation is p.empty else p.annotation, p.default)
        for name, p in signature.parameters.items()
        if name != "ctx"
    }
    return create_model(f"{kind} parameters", __config__=ConfigDict(strict=True), **fields)


def _parameter_problems(
    spec: FigureSpec, node: yaml.Node, loc: tuple[int | str, ...]
) -> list[FieldProblem]:
    """A figure's parameters its function does not take (the closest one it takes), or of a
    type or value it does not take, at their lines."""
    parameters = _parameters(spec.kind)
    accepted = sorted(parameters.model_fields)
    problems = []
    for key in spec.params:
        if key not in accepted:
            close = did_you_mean(key, [*accepted, *FigureSpec.model_fields])
            message = f"unknown parameter {key!r} of a {spec.kind} figure{close}; accepted: " + (
                ", ".join(accepted) or "none"
            )
            problems.append(FieldProblem((*loc, key), line_of(node, (*loc, key)), message))
    try:
        parameters.model_validate({k: v for k, v in spec.params.items() if k in accepted})
    except ValidationError as error:
        for problem in field_problems(error, node, parameters):
            full = (*loc, *problem.loc)
            problems.append(replace(problem, loc=full, line=line_of(node, full)))
    return problems


#: Where the expert ratings show in the figures (the notes on raters who failed a check).
EXPERT_PANELS = "the expert panels (Figs. 6-8)"


@dataclass
class FigureReport:
    paths: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Figures drawn under one column (`CHECKED_BELOW_IN`) whose labels overlap or are cut.
    warnings: list[str] = field(default_factory=list)


def _cut_name_notes(labels: Labels, present: Sequence[str]) -> list[str]:
    """What each cut name is shown as: the names the figures print (`FigureContext`)."""
    shown = labels.shortened(LABEL_LIMIT)
    notes = []
    for name, short in sorted({(labels.author(a), shown.author(a)) for a in present}):
        if short == name:
            continue
        apart = (
            f"; the usual cut, {shorten(name, LABEL_LIMIT)!r}, is another name's too"
            if short != shorten(name, LABEL_LIMIT)
            else ""
        )
        notes.append(
            f"{name!r} is shown as {short!r} (names over {LABEL_LIMIT} characters are cut in "
            f"the middle{apart}; a shorter display_name in the model file avoids it)"
        )
    return notes


def render_figures(
    store: RunStore,
    out_dir: str | Path,
    *,
    judge: str | None = None,
    formats: Sequence[str] = FIGURE_FORMATS,
    recipe: str | Path | Recipe | None = None,
    width: float = COLUMN_WIDTHS["two"],
    authors: str | None = None,
    experts: str | Path | None = None,
    survey: str | None = None,
    exclude_failed_checks: bool = False,
) -> FigureReport:
    """Draw a recipe's figures into `out_dir` at `width` inches (3.3 = one column, 6.8 = two),
    each with a caption file; figures the data cannot support are skipped with a reason. Judge
    figures are drawn per judge (file suffix `-JUDGE` when several). `authors` (names or a
    generator group) overrides every figure's own selection; under one column
    (`CHECKED_BELOW_IN`) each figure's labels are checked, and `warnings` names those that
    overlap or leave the figure; expert ratings (the file
    `experts`, else the run's stored survey answers: those of `survey`, else of every survey, as
    `analyze_run` reads them) add the human-expert panel to Figs. 6-8,
    without the raters who failed an attention check when `exclude_failed_checks` (as
    `analyze_run`: stored answers only, a file is refused; the notes name who failed). `experts`
    with `survey` is an ExpertRatingsError, as in `analyze_run`."""
    one_expert_source(experts, survey)
    chosen = (
        recipe if isinstance(recipe, Recipe) else load_recipe(recipe) if recipe else DEFAULT_RECIPE
    )
    data = load_run_data(store, judge=judge)
    report = FigureReport()
    if data.generations.empty:
        report.skipped.append("all figures: the run has no successful generations")
        return report
    labels = data.labels or run_labels(store)
    ratings, report.notes = screened_expert_ratings(
        store,
        experts,
        survey=survey,
        exclude_failed_checks=exclude_failed_checks,
        where=EXPERT_PANELS,
    )
    present = data.generations["author"].unique().tolist()
    report.notes += _cut_name_notes(labels, present)
    if authors is not None:
        # a bad --authors is an error before any drawing
        select_authors(authors, present, labels=labels.authors)
    judges: list[str | None] = list(data.judges) or [None]
    drew_judge_figure = False
    out = Path(out_dir)
    # Each table once, not once per figure that shows it; per-poem measures kept in the run.
    shared = RunFrames(data, ratings, MeasureCache(store))
    by_forms: dict[tuple[str, ...], RunFrames] = {(): shared}
    with figure_style():
        for spec in chosen.figures:
            function, needs_judge = FIGURE_KINDS[spec.kind]
            forms = tuple(form_list(spec.forms))
            try:
                frames = frames_of_forms(by_forms, forms)
            except FormSelectionError as error:
                report.skipped.append(f"{spec.name}: {error}")
                continue
            present = frames.data.generations["author"].unique().tolist()
            selection = authors if authors is not None else spec.authors
            source = "--authors" if authors is not None else "the recipe's authors:"
            selected_by = f"{source} {selection!r}" if selection else None
            try:
                shown, notes = select_authors(selection, present, source=source,
                                              labels=labels.authors,
                                              leave_out_unknown=authors is None)  # fmt: skip
            except AuthorSelectionError as error:
                shown, notes = select_authors(None, present)
                notes = [f"{error}; showing every author"]
                selected_by = None
            drawn = False
            for current in judges if needs_judge else [None]:
                name = spec.name + (
                    f"-{current}" if needs_judge and current and len(judges) > 1 else ""
                )
                context = FigureContext(frames.data, judge=current, authors=shown, width=width,
                                        labels=labels, experts=frames.experts,
                                        selected_by=selected_by, shared=frames)  # fmt: skip
                try:
                    drawing = function(context, **spec.params)
                except FigureSkipped as skipped:
                    report.skipped.append(f"{name}: {skipped}")
                    continue
                if needs_judge and spec.kind != "case_study":  # an author may be missing
                    unjudged = context.not_poems_sentence(
                        ", as the judge stage leaves them unjudged"
                    )
                    drawing = replace(drawing, caption=drawing.caption + unjudged)
                if forms:
                    drawing = replace(drawing, caption=forms_caption(drawing.caption, forms))
                report.paths += save_figure(drawing, out, name, formats)
                if warning := crowding_warning(drawing.figure, width):
                    report.warnings.append(f"{name}: {warning}")
                report.notes += [f"{name}: {note}" for note in drawing.notes]
                drawn = True
                drew_judge_figure = drew_judge_figure or needs_judge
            if drawn:  # not "showing every author" of a figure then skipped
                report.notes += [f"{spec.name}: {note}" for note in notes]
    if report.paths:  # what the run's data lacks or mixes, as `analyze` and `report` say it
        # (of the judgments only when a judge's figure was drawn: `--recipe rule-based` is not)
        unsaid = [] if drew_judge_figure else data.judge_notes
        report.notes += [note for note in data.notes if note not in unsaid]
    return report


def make_figures(
    store: RunStore,
    out_dir: str | Path,
    *,
    judge: str | None = None,
    formats: Sequence[str] = FIGURE_FORMATS,
    recipe: str | Path | Recipe | None = None,
    width: float = COLUMN_WIDTHS["two"],
    authors: str | None = None,
) -> list[Path]:
    """Write figures and return their paths (see `render_figures` for what was skipped)."""
    report = render_figures(store, out_dir, judge=judge, formats=formats, recipe=recipe,
                            width=width, authors=authors)  # fmt: skip
    return report.paths
