"""Figures that need no judge: Fig. 5 (form accuracy, TTR, repetition of the original with
its chance baseline), the form-check details and lexical diversity."""

from __future__ import annotations

import math

import pandas as pd

from poemetric.analysis.author_kinds import generated_poem
from poemetric.analysis.bars import Panel, Series, draw_grid, summary_frame
from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.errata import errata_caption
from poemetric.analysis.form_threshold import checked_thresholds, pass_rule, threshold_words
from poemetric.analysis.heatmaps import (
    analysis_table_where,
    heatmap_figure,
    heatmap_spec,
    unprinted_values_note,
)
from poemetric.analysis.lexical import MATTR_WINDOW
from poemetric.analysis.plotting import Drawing, counted_poems, poem_count
from poemetric.analysis.scores import form_check_scores
from poemetric.hints import stage_command

SHARE = (0.0, 1.0)
T_NOTE = "95% CI of the mean over poems (Student t)"
WILSON_NOTE = "95% Wilson interval"


def _lexical_series(ctx: FigureContext, metric: str) -> Series:
    return Series(summary_frame(ctx.lexical, f"{metric}_mean", f"{metric}_ci_low",
                                f"{metric}_ci_high"))  # fmt: skip


def rule_based(ctx: FigureContext) -> Drawing:
    """Paper Fig. 5: form-check pass rate, TTR and repetition of the human original per
    author; the repetition panel marks the chance overlap with other prompts' originals."""
    lexical = ctx.lexical
    panels: list[Panel] = []
    notes: list[str] = []
    left_out: list[str] = []  # said in the terminal too, not only in the caption file
    over = f"over {counted_poems(lexical['n'])} each"
    checks: pd.DataFrame | None = None
    try:
        checks = ctx.form_checks
    except FigureSkipped as skipped:
        notes.append(f"form accuracy not shown: {skipped}")
        left_out.append(f"the form accuracy panel is left out: {skipped}")
    # The form-accuracy panel's authors too: one whose every answer is not a poem has no TTR
    # (`ctx.lexical` is over poems) but a pass rate of 0; it vanished from every panel.
    authors = ctx.ordered([*lexical["author"], *([] if checks is None else checks["author"])])
    if checks is not None:
        if poem_count(checks["n"]) != poem_count(lexical["n"]):
            # Poems without a form check (or with one that could not assess them) are not in
            # the form-accuracy panel: its bars can stand for fewer poems than the others'.
            over += f" (form accuracy: over {counted_poems(checks['n'], 'checked poem')} each)"
        pass_rate = summary_frame(checks, "pass_rate", "pass_ci_low", "pass_ci_high")
        panels.append(Panel("Form accuracy (pass rate)", (Series(pass_rate),), SHARE,
                            authors=tuple(authors)))  # fmt: skip
        notes.append(
            "form accuracy: share of poems passing the rule-based form check at "
            f"{threshold_words(checked_thresholds(ctx.data.form_checks))}, {WILSON_NOTE}"
        )
    panels.append(Panel("TTR", (_lexical_series(ctx, "ttr"),), SHARE, authors=tuple(authors)))
    notes.append(f"TTR: type-token ratio per poem, {T_NOTE}")
    llms = [a for a in authors if a != HUMAN_AUTHOR]
    if llms:
        chance = lexical.set_index("author")["repetition_all_chance_mean"]
        panels.append(Panel("Repetition of original", (_lexical_series(ctx, "repetition_all"),),
                            SHARE, authors=tuple(authors),
                            marks=(("chance: other originals of the form", chance, "D"),)))  # fmt: skip
        notes.append(
            f"repetition: share of {generated_poem(ctx.data.generations, llms)}'s tokens that "
            f"occur in the human poem of its prompt, {T_NOTE}; white diamond: the same share "
            "against the other prompts' originals of the same form (chance overlap); the human "
            "poets have none"
        )
    # TTR (always shown) is a ratio of types to tokens; pass rate and repetition are shares.
    value = "share or ratio" if len(panels) > 1 else "ratio"
    figure = draw_grid(ctx, panels, value_label=f"{value} (0-1); whiskers: 95% CI",
                       legend=bool(llms), max_columns=3)  # fmt: skip
    said = "; ".join(notes)  # the second sentence: "Form accuracy: …; TTR: …"
    # TTR and repetition are over the poems; the pass rate counts a non-poem as a failure.
    not_poems = ctx.not_poems_sentence(
        " of TTR and repetition (form accuracy counts them as failures)"
    )
    errata = "" if checks is None else errata_caption(_shown_checks(ctx))
    caption = (
        f"Rule-based evaluation per author, {over}. {said[:1].upper()}{said[1:]}.{not_poems}"
        f"{errata}"
    )
    return Drawing(figure, caption, tuple(left_out))


def _shown_checks(ctx: FigureContext) -> pd.DataFrame:
    """The stored form checks (one row per poem) of the authors shown."""
    checks = ctx.data.form_checks
    return checks[checks["author"].isin(ctx.authors)]


def form_accuracy(ctx: FigureContext) -> Drawing:
    """Rule-based form check per author: pass rate (Wilson CI) and mean form, meter and rhyme
    scores (t CI)."""
    checks = ctx.form_checks
    authors = tuple(ctx.ordered(checks["author"]))
    panels = [Panel("Passed (share)", (Series(summary_frame(checks, "pass_rate", "pass_ci_low",
                                                            "pass_ci_high")),), SHARE, authors=authors)]  # fmt: skip
    for score, title in (("form_score", "Form score"), ("meter_score", "Meter score"),
                         ("rhyme_score", "Rhyme score")):  # fmt: skip
        frame = summary_frame(checks, f"{score}_mean", f"{score}_ci_low", f"{score}_ci_high")
        panels.append(Panel(title, (Series(frame),), SHARE, authors=authors))
    figure = draw_grid(ctx, panels, value_label="share or score (0-1); whiskers: 95% CI")
    caption = (
        f"Rule-based form check per author, over {counted_poems(checks['n'], 'checked poem')} "
        f"each: share of poems passing ({pass_rule(ctx.data.form_checks)}), with a "
        f"{WILSON_NOTE}; mean form, meter and rhyme scores (0-1), with the {T_NOTE}, "
        f"clipped to 0-1{_unscored_note(checks)}.{errata_caption(_shown_checks(ctx))}"
    )
    return Drawing(figure, caption)


def _unscored_note(checks: pd.DataFrame) -> str:
    """`; the meter mean is over 83 poems each and the rhyme mean over 160 (...)` where some
    checked poems have no meter or rhyme score (a ballad whose meter is not annotated, a
    sestina's rhyme), or "" where every checked poem has both."""
    means = [
        f"the {what} mean over {counted_poems(checks[column])}"
        for what, column in (("meter", "n_meter"), ("rhyme", "n_rhyme"))
        if (checks[column] != checks["n"]).any()
    ]
    if not means:
        return ""
    return (
        f"; {' and '.join(means)} each: a poem whose form and annotation ask for no meter "
        "or no rhyme has no such score"
    )


def form_heatmap(ctx: FigureContext) -> Drawing:
    """Rule-based pass rate per author and poem form."""
    checks = ctx.data.form_checks
    checks = checks[checks["author"].isin(ctx.authors)]
    if checks.empty:
        raise FigureSkipped(f"no form checks (run `{stage_command('form', ctx.data.run_dir)}`)")
    by_form = form_check_scores(checks, by_form=True)
    matrix = by_form.pivot_table(index="author", columns="poem_form", values="pass_rate")
    matrix = matrix.loc[ctx.ordered(matrix.index.tolist())]
    spec = heatmap_spec(matrix, [str(c) for c in matrix.columns],
                        ctx.labels.author_list(matrix.index), colour_label="pass rate",
                        value_range=SHARE, column_title="poem form")  # fmt: skip
    figure = heatmap_figure(ctx, spec)
    unprinted = unprinted_values_note(spec, ctx.width, analysis_table_where("form_checks_by_form"))
    # A form an author has no checked poem of is a blank cell: the caption's "2 checked poems
    # per cell" held for every other cell, and the blank was not said.
    blank = " A blank cell: no checked poem of that form." if matrix.isna().to_numpy().any() else ""
    caption = (
        "Share of poems passing the rule-based form check, per author and poem form "
        f"({counted_poems(by_form['n'], 'checked poem')} per cell; "
        f"{pass_rule(checks)}).{blank}{unprinted}{errata_caption(checks)}"
    )
    return Drawing(figure, caption)


def lexical(ctx: FigureContext) -> Drawing:
    """TTR, MATTR and MTLD per author."""
    summary = ctx.lexical
    authors = tuple(ctx.ordered(summary["author"]))
    mtld_high = summary["mtld_ci_high"].max()
    mtld_top = 10 * math.ceil((mtld_high if pd.notna(mtld_high) else 100) / 10 * 1.05)
    panels = [
        Panel("TTR", (_lexical_series(ctx, "ttr"),), SHARE, authors=authors),
        Panel(f"MATTR ({MATTR_WINDOW})", (_lexical_series(ctx, "mattr"),), SHARE, authors=authors),
        Panel(
            "MTLD (tokens)",
            (_lexical_series(ctx, "mtld"),),
            (0.0, float(mtld_top)),
            authors=authors,
        ),
    ]
    figure = draw_grid(ctx, panels, value_label="mean per poem; whiskers: 95% CI", max_columns=3)
    short = int(summary["mattr_short"].sum())
    caption = (
        f"Lexical diversity per author, over {counted_poems(summary['n'])} each: TTR, "
        f"MATTR (moving-average TTR, window of {MATTR_WINDOW} tokens), both 0-1, and MTLD "
        "(the mean length in tokens of a run of words keeping the TTR above 0.72), mean over "
        f"poems with the {T_NOTE}."
        + (
            f" {counted_poems(short)} shorter than {MATTR_WINDOW} tokens "
            f"{'has' if short == 1 else 'have'} no MATTR."
            if short
            else ""
        )
        + ctx.not_poems_sentence()
    )
    return Drawing(figure, caption)
