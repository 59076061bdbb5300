"""Table captions of `analyze_run`: what each table shows and which intervals it prints."""

from __future__ import annotations

from pathlib import Path

from poemetric.analysis.errata import CAPTIONS as ERRATA_CAPTIONS
from poemetric.analysis.lexical import MATTR_WINDOW
from poemetric.ghostwriting.captions import GHOSTWRITING_CAPTIONS
from poemetric.hints import stage_command
from poemetric.stats import SCORE_BOOTSTRAP, CIMethod

#: What the agreement tables' two poem counts are.
POEMS_NOTE = (
    "; poems with 2+ ratings: those rated at least twice on an item, the only poems the "
    "statistics compare; poems rated: by anyone"
)

#: How the score tables treat N/A, said as the figures of the same numbers say it.
NA_NOTE = "; imagery and literary devices leave N/A answers out of the mean"

#: What the form-check tables' meter and rhyme means are over.
SCORED_NOTE = (
    "; meter and rhyme means over the poems that have such a score (n meter, n rhyme: a poem "
    "whose form and annotation ask for no meter or no rhyme has none)"
)

#: Table name -> caption. Tables absent from a result (no judgments, no experts) are skipped.
TABLE_CAPTIONS: dict[str, str] = {
    "dimension_scores": "Judge scores per author and dimension (mean, SD, 95% CI over poems)"
    + NA_NOTE,
    "dimension_scores_by_form": "Judge scores per author, form and dimension" + NA_NOTE,
    "group_scores": "Basic / advanced / appraisal averages and the POEMetric ranking score "
    "(per poem, the mean of its scores in the group, N/A answers left out)",
    "form_checks": "Rule-based form check per author (pass rate with Wilson CI, mean scores)"
    + SCORED_NOTE,
    "form_checks_by_form": "Rule-based form check per author and form" + SCORED_NOTE,
    **ERRATA_CAPTIONS,
    "form_checks_errata": ERRATA_CAPTIONS["form_checks_errata"] + SCORED_NOTE,
    "lexical": (
        f"Lexical features per author: TTR, MATTR (window {MATTR_WINDOW}), MTLD, and repetition "
        "of the human original beside its chance baseline (other originals of the form) and "
        "the difference (means with 95% CIs over poems)"
    ),
    "dimension_matrix": "Mean judge score per author and dimension (1-5)" + NA_NOTE,
    "imagery": "Top images per author (imagery lexicon; share: % of the author's poems using each)",
    "top_words": "Top content words per author (share: % of the author's content tokens)",
    "opening_words": "Top opening words per author (share: % of the author's poems)",
    "profile_similarity": "Cosine similarity of top-word profiles to the human poems",
    "expert_scores": "Expert panel scores per author and dimension" + NA_NOTE,
    "judge_on_expert_poems": "Judge scores per author and dimension over the poems the experts "
    "rated (an item over those an expert scored): the judge's bars beside the experts' in "
    "Figs. 6-8" + NA_NOTE,
    "experts_on_judged_poems": "Expert panel scores per author and dimension over the poems the "
    "judge (column judge) scored too (an item over those both scored): the experts' bars beside "
    "the judge's in Figs. 6-8; n_left_out: poems the experts rated on the item that the judge "
    "has no score for" + NA_NOTE,
    "agreement": "Agreement of the LLM judge with human experts per item" + POEMS_NOTE,
    "agreement_experts": "Agreement of the human experts with each other per item" + POEMS_NOTE,
    "agreement_by_expert": "PAo of the LLM judge with each expert",
    "discrimination": "Overall quality by the experts and each judge on the expert-rated poems "
    "(poems: those a row covers, a judge's the ones of them it scored; n: ratings, every expert "
    "rating and every judge sample); expert n, mean and SD: the experts over the same poems as "
    "the row, to compare a judge that scored only some of them like with like",
    "judges": "Per judge: parse failures, refusals, re-asks, non-poems not judged, mean and SD of "
    "overall quality (over poems, a poem's samples averaged first), cost (USD, every turn). Refusals: judgments whose first answer was a refusal "
    "(first turn), with a refusal on any turn, and still refused after the re-asks (final: "
    "stored as parse failures); a refusal answered when re-asked counts in the first two only. "
    "Re-asked: judgments asked again after an unusable answer (ok after: then answered). Rates "
    "are shares of the answers received (ok + parse failures + re-asks whose call failed)",
    "recognition": "Human poems each judge recognised (title and author), and its human-authorship"
    " score of recognised vs not recognised poems",
    **GHOSTWRITING_CAPTIONS,
}


def pending_caption(run: Path, judge: str | None = None) -> str:
    """Added to the `judges` caption when a judgment waits for its re-ask: the command that
    sends the re-asks names the run and `judge` (comma-separated, as `--judge` takes several),
    as make runs it under make."""
    return (
        ". Pending re-asks: judgments whose unparsable answer awaits its re-ask (judging was "
        f"stopped; running `{stage_command('judge', run, judge)}` again finishes them), in no "
        "other count or rate but the judgments and the cost"
    )


#: Tables whose mean CIs follow `--ci`; their captions say which interval they print.
MEAN_TABLES = (
    "dimension_scores",
    "dimension_scores_by_form",
    "group_scores",
    "expert_scores",
    "judge_on_expert_poems",
    "experts_on_judged_poems",
)
_CHECK_INTERVALS = (
    "intervals: Wilson for the pass rate, Student t for the mean scores, clipped to 0-1"
)
#: The intervals of the other tables, which are always these.
FIXED_INTERVALS = {
    "form_checks": _CHECK_INTERVALS,
    "form_checks_by_form": _CHECK_INTERVALS,
    "form_checks_errata": _CHECK_INTERVALS,
    "lexical": "intervals: Student t, clipped to each measure's range (shares 0-1, their "
    "differences -1 to 1, tokens and MTLD at 0)",
    "ghostwriting": "intervals: Student t, clipped to 0-1",
}


#: Tables whose CIs are the agreement bootstrap (`--bootstrap N`, none with 0).
AGREEMENT_TABLES = ("agreement", "agreement_experts")


def agreement_interval_note(n_boot: int, seed: int) -> str:
    """What the agreement tables' intervals are, for a caption: with no resamples they have
    none (the caption said "bootstrap 95% CIs" above cells without an interval). The seed is
    named so that a reader can draw the same intervals again (`analyze --seed`)."""
    if n_boot <= 0:
        return "no CIs (0 bootstrap resamples)"
    return (
        f"intervals: percentile bootstrap over poems, {n_boot:,} resamples, seed {seed}, "
        f"{AGREEMENT_CLIPPED}"
    )


#: How the agreement intervals are made to hold their estimate (`docs/agreement.md`, "CIs"): the
#: captions of the tables and of the report's section say it, as the score tables' say theirs
#: are clipped to the scale.
AGREEMENT_CLIPPED = (
    "widened where needed to contain the estimate (a bound equal to it: the percentile bound "
    "fell on its other side)"
)


def interval_note(method: CIMethod, seed: int) -> str:
    """What the 95% CIs of the mean scores are, for a caption. A Student t interval is clipped
    to the 1-5 scale (`scores.LIKERT_DOMAIN`): two poems scored 1 and 5 have the t interval
    [-22.4, 28.4], printed [1.00, 5.00] under a caption that said only "Student t"."""
    if method == "t":
        return "intervals: Student t, clipped to the 1-5 scale"
    return f"intervals: percentile bootstrap over poems, {SCORE_BOOTSTRAP:,} resamples, seed {seed}"
