"""`merge_runs` with the rules `poemetric merge` merges by: the stages' own rule of what they
cover (`poemetric.stage_coverage.stage_gaps`), the survey's rule of a complete page
(`poemetric.survey.db.complete_merged`) and the form checker's version as `form run` would make
its checks now (`poemetric.form.user_lexicon.default_version`, with the lexicon
$POEMETRIC_LEXICON names). The store's `merge_runs` cannot default to them: the store is below
the stages (`tests/test_layering.py`), and without them it looks for no gap a stage leaves in
the merged run. From Python, call `merge_stores` to merge as the command does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from poemetric.form.user_lexicon import default_version
from poemetric.stage_coverage import stage_gaps
from poemetric.store.merge import MergeReport, merge_runs
from poemetric.survey.db import complete_merged

__all__ = ["merge_stores"]


def merge_stores(sources: Sequence[Path], destination: Path) -> MergeReport:
    """Merge the run stores in `sources` into `destination` as `poemetric merge` does."""
    return merge_runs(
        list(sources),
        destination,
        complete_pages=complete_merged,
        coverage=stage_gaps,
        checker_version=default_version,
    )
