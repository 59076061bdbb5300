"""`--survey NAME` of `analyze`, `figures` and `report`: which survey's stored answers are the
expert ratings. One option, default and error for the three, so that their expert numbers agree
(a run with two surveys, e.g. one restored under a new name, counts each rater twice by default).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from poemetric.cli.options import error_exit

if TYPE_CHECKING:
    from poemetric.store import RunStore

SURVEY_HELP = "Only this survey's stored answers (default: every survey)."


def survey_select_option() -> Any:
    """`--survey`: one survey's stored answers, default every survey (as `analyze_run`)."""
    return typer.Option(None, "--survey", help=SURVEY_HELP)


def one_expert_source(experts: Path | None, survey: str | None) -> None:
    """`--experts FILE` with `--survey NAME` is unusable input (`analysis.experts.
    one_expert_source`, which the library functions check too): an error before any work."""
    from poemetric.analysis.experts import ExpertRatingsError
    from poemetric.analysis.experts import one_expert_source as check

    try:
        check(experts, survey)
    except ExpertRatingsError as exc:
        raise error_exit(str(exc)) from None


def known_survey(store: RunStore, survey: str | None) -> None:
    """A `--survey` the run does not have is unusable input, as in `survey status`, with the
    survey it looks like a typo of and the run's surveys."""
    if survey is None:
        return
    from poemetric.survey.db import survey_ids, unknown_survey

    if survey not in survey_ids(store):
        raise error_exit(unknown_survey(store, survey))
