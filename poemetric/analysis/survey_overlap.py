"""Raters counted twice: the stored answers of every survey, read together (`analyze` without
`--survey`), name each rater by survey and rater id (`experts:R1`, `restored:R1`), so a rater id
that rated the same poem in two surveys is two raters there. That is right for two panels that
happen to share ids, and wrong for one rater's answers stored twice (a survey exported and
imported again under a new name, a pilot whose raters rated the same poems again): their
agreement with themselves then enters the expert-vs-expert table. The note names them."""

from __future__ import annotations

from poemetric.store import RunStore
from poemetric.text.listing import first_few
from poemetric.text.plural import counted


def same_rater_notes(store: RunStore, survey: str | None) -> list[str]:
    """A note naming the rater ids that scored the same poem in several of the surveys read
    together (none with `survey`: one survey is read)."""
    if survey is not None:
        return []
    rows = store.query(
        """
        SELECT rater_id, COUNT(DISTINCT generation_id) AS poems,
               GROUP_CONCAT(DISTINCT survey_id) AS surveys
        FROM (
          SELECT rater_id, generation_id, survey_id FROM survey_answers
          WHERE score IS NOT NULL AND question != 'attention_check' AND (rater_id, generation_id)
            IN (SELECT rater_id, generation_id FROM survey_answers
                WHERE score IS NOT NULL AND question != 'attention_check'
                GROUP BY rater_id, generation_id HAVING COUNT(DISTINCT survey_id) > 1)
        )
        GROUP BY rater_id ORDER BY rater_id
        """
    )
    if not rows:
        return []
    named = [
        f"{row['rater_id']} ({counted(row['poems'], 'poem')} in "
        f"{', '.join(sorted(str(row['surveys']).split(',')))})"
        for row in rows
    ]
    return [
        f"{counted(len(rows), 'rater id')} scored the same poems in several surveys, and the "
        "expert tables count each survey's as another rater (survey:rater): "
        f"{first_few(named)}. If these are the same people (a survey imported again under "
        "another name), their agreement with themselves is in agreement_experts: give "
        "--survey NAME to read one survey"
    ]
