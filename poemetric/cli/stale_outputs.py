"""What `form run` says when it changed stored verdicts of a run whose tables, figures or
report were already written: those files keep the earlier pass rates until they are made again.

A run re-checked at `--threshold 0.4` kept `RUN/analysis/form_checks.tex` at the old pass rates
while a fresh report showed the new ones, and nothing said which files were now out of date."""

from __future__ import annotations

from pathlib import Path

from poemetric.hints import stage_command
from poemetric.text.listing import joined_with_and

#: The stages whose output folder (in the run directory) a new form check makes out of date.
FORM_OUTPUTS = ("analyze", "figures", "report")
_FOLDERS = {"analyze": "analysis", "figures": "figures", "report": "report"}


def stale_outputs_note(run_dir: Path) -> str | None:
    """`note: runs/x/analysis and runs/x/report were made from the earlier form checks: run
    `poemetric analyze --run runs/x` and `poemetric report --run runs/x` again`, naming only the
    folders that exist; None when none does."""
    stale = [stage for stage in FORM_OUTPUTS if (run_dir / _FOLDERS[stage]).is_dir()]
    if not stale:
        return None
    folders = joined_with_and([str(run_dir / _FOLDERS[stage]) for stage in stale])
    commands = joined_with_and([f"`{stage_command(stage, run_dir)}`" for stage in stale])
    were = "were" if len(stale) > 1 else "was"
    return f"note: {folders} {were} made from the earlier form checks: run {commands} again"
