"""`--survey NAME` of `analyze`, `figures` and `report`: which survey's stored answers are the
expert ratings. One option, default and error for the three, so that their expert numbers agree
(a run with two surveys, e.g. one restored under a new name, counts each rater twice by default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from poemetric.cli.options import error_exit
from poemetric.suggest import did_you_mean

if TYPE_CHECKING:
    from poemetric.store import RunStore

SURVEY_HELP = "Only this survey's stored answers (default: every survey)."


def survey_select_option() -> Any:
    """`--survey`: one survey's stored answers, default every survey (as `analyze_run`)."""
    return typer.Option(None, "--survey", help=SURVEY_HELP)


def known_survey(store: RunStore, survey: str | None) -> None:
    """A `--survey` the run does not have is unusable input, as in `survey status`, with the
    survey it looks like a typo of and the run's surveys."""
    if survey is None:
        return
    from poemetric.survey.db import survey_ids

    known = survey_ids(store)
    if survey not in known:
        surveys = ", ".join(known) or "none yet (`poemetric survey build`)"
        raise error_exit(
            f"no survey {survey!r}{did_you_mean(survey, known)} in {store.path}; surveys: {surveys}"
        )
