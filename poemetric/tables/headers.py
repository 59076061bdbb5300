"""Readable headers for the columns of the analysis tables (LaTeX and Markdown)."""

from __future__ import annotations

from poemetric.questionnaire import DIMENSIONS, DIMENSIONS_BY_KEY

#: The agreement tables' pooled row (`item` = `all` in the CSV), as the .tex, .md and the report
#: print it beside the dimension labels: a lower-case "all" under "Human authorship" read as a typo.
POOLED_ITEMS_LABEL = "All items"


def dimension_label(key: str) -> str:
    """A dimension as tables name it (`Dimension.label`): `overall_quality` -> `Quality`,
    `human_authorship` -> `Human authorship`, the agreement tables' pooled `all` -> `All items`;
    other values unchanged."""
    if key == "all":
        return POOLED_ITEMS_LABEL
    return DIMENSIONS_BY_KEY[key].label if key in DIMENSIONS_BY_KEY else key


#: The parts of `group_scores` (and groups of `dimension_scores`) as tables and figures name
#: them: Fig. 9's legend and the tables say `Basic`, `Quality`, `POEMetric score`.
PART_LABELS: dict[str, str] = {
    "basic": "Basic",
    "advanced": "Advanced",
    "appraisal": "Appraisal",
    "quality": "Quality",
    "poemetric": "POEMetric score",
}


def part_label(key: str) -> str:
    """A score part or dimension group as tables and figures name it (`poemetric` ->
    `POEMetric score`); other values unchanged."""
    return PART_LABELS.get(key, key)


#: Shares the tables print as percentages, as the word figures (Figs. 10-11) print their cells:
#: at two decimals a word's share of an author's content tokens (0.0302) read 0.03, like every
#: other top word's. Column -> its name as a percentage.
PERCENT_COLUMNS = {"share": "share_pct", "poem_share": "poem_share_pct"}

#: Columns printed with more decimals than the table's: costs in USD at 4, as the run summaries
#: print them (a cheap judge's $0.0012 read 0.00 at 2 decimals).
COLUMN_DIGITS = {"cost_usd": 4}


def column_digits(column: str, digits: int) -> int:
    """The decimals of `column` in a table printed at `digits`."""
    return max(digits, COLUMN_DIGITS.get(column, digits))


#: Readable headers for the columns the analysis writes (others: snake_case -> words).
HEADERS: dict[str, str] = {
    "n": "n",
    "n_na": "n N/A",
    "na_share": "N/A share",
    "sd": "SD",
    "ci_low": "95% CI low",
    "ci_high": "95% CI high",
    "n_unchecked": "n unchecked",
    "pass_rate": "Pass rate",
    "pass_ci_low": "Pass CI low",
    "pass_ci_high": "Pass CI high",
    "poem_form": "Form",
    "mattr_short": "Too short for MATTR",
    "cosine_to_human": "Cosine to human",
    "n_poems": "Poems with 2+ ratings",  # the agreement tables: the poems compared
    "n_poems_rated": "Poems rated",
    "n_pairs": "Pairs",
    # `discrimination` (Table 2): the experts over the poems a judge's row covers
    "expert_n": "Expert n (same poems)",
    "expert_mean": "Expert mean (same poems)",
    "expert_sd": "Expert SD (same poems)",
    "n_corrected": "n corrected",
    "n_excluded": "n left out",
    "n_not_matching": "n not matching",
    "pao": "PAo",
    "alpha_nominal": "α nominal",
    "alpha_ordinal": "α ordinal",
    "alpha_interval": "α interval",
    "alpha_experts_interval": "α experts (interval)",
    "kappa_quadratic": "κ quadratic",
    "gwet_ac1": "AC1",
    "gwet_ac2_linear": "AC2 linear",
    "gwet_ac2_quadratic": "AC2 quadratic",
    "rhyme_density_raplyzer": "Rhyme density (Raplyzer)",
    "poem_share": "Share of poems",
    "share_pct": "Share (%)",  # the word tables print their shares as percentages
    "poem_share_pct": "Share of poems (%)",
    "per_1k_tokens": "Per 1k tokens",
    "repetition_all": "Repetition of original",
    "repetition_all_chance": "Repetition by chance",
    "repetition_all_excess": "Repetition above chance",
    "repetition_content": "Repetition of original (content words)",
    "repetition_content_chance": "Repetition by chance (content words)",
    "repetition_content_excess": "Repetition above chance (content words)",
    "mtld": "MTLD",
    # the `judges` table: refusals counted on the first turn, on any turn, and after re-asks
    "first_turn_refusals": "Refusals, first turn",
    "refusals_any_turn": "Refusals, any turn",
    "final_refusals": "Refusals, final",
    "first_turn_refusal_rate": "Refusal rate, first turn",
    "final_refusal_rate": "Refusal rate, final",
    "reasked": "Re-asked",
    "reasked_ok": "Re-asked, ok after",
    "reask_rate": "Re-ask rate",
    "pending_reasks": "Pending re-asks",
    "mattr": "MATTR",
    "ttr": "TTR",
    # judge dimensions as columns (the wide author x dimension table)
    **{d.key: dimension_label(d.key) for d in DIMENSIONS},
}
_WORDS = {"ci": "CI", "sd": "SD", "ttr": "TTR", "mattr": "MATTR", "mtld": "MTLD", "na": "N/A",
          "pao": "PAo", "qwk": "QWK", "usd": "USD"}  # fmt: skip


def readable(column: str) -> str:
    """A header people read: `pass_ci_low` -> `Pass CI low`, `ttr_mean` -> `TTR mean`."""
    if column.endswith("__ci"):
        stem = column.removesuffix("__ci")
        return readable(stem if stem in HEADERS else stem.removesuffix("_mean")) + " [95% CI]"
    if column in HEADERS:
        return HEADERS[column]
    words = [_WORDS.get(word, word) for word in column.split("_")]
    text = " ".join(words)
    return text if words[0] == "n" else text[:1].upper() + text[1:]  # "n raters", as "n"
