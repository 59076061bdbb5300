"""Which scores a form's rule gives for a request, known before any text is read."""

from __future__ import annotations

#: Forms whose rule scans a metre of its own when none is requested (the others score metre only
#: on request), and forms whose rule scores rhyme only on request or never (end-word forms).
METERED_FORMS = frozenset({"sonnet", "limerick"})
RHYMED_ON_REQUEST = frozenset({"pantoum"})
UNRHYMED_FORMS = frozenset({"sestina", "double sestina"})


def applicable_scores(
    form: str, *, meter: bool, rhyme: bool, meter_unscored: bool = False
) -> tuple[bool, bool]:
    """Whether the rule of `form` scores (metre, rhyme) for a request with or without a metre
    and a rhyme pattern; the form score always applies. A text that is not a poem scores 0.0
    on these and None on the others, as a poem would (tests/test_form_not_a_poem_scores.py
    checks this table against every rule). `meter_unscored`: the requested metre names nothing
    the checker scans (`poemetric.form.meter_reading`), so no rule scores metre."""
    scans = not meter_unscored and (meter or form in METERED_FORMS)
    rhymes = form not in UNRHYMED_FORMS and (rhyme or form not in RHYMED_ON_REQUEST)
    return scans, rhymes
