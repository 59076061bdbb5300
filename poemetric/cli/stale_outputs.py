"""What `form run` says when it changed stored verdicts of a run whose tables, figures or
report were already written: those files keep the earlier pass rates until they are made again.

A run re-checked at `--threshold 0.4` kept `RUN/analysis/form_checks.tex` at the old pass rates
while a fresh report showed the new ones, and nothing said which files were now out of date.
Only outputs made from form checks count (`ghostwriting` writes `RUN/analysis` too, without
them), and only when a verdict changed (`--force` at the same threshold changes none)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from poemetric.hints import stage_command
from poemetric.text.listing import joined_with_and

if TYPE_CHECKING:
    from poemetric.store import RunStore

#: The stages whose output folder (in the run directory) a new form check makes out of date.
FORM_OUTPUTS = ("analyze", "figures", "report")
_FOLDERS = {"analyze": "analysis", "figures": "figures", "report": "report"}
#: Words in the caption of every figure drawn from the form checks (`figures_rules`).
_FORM_FIGURE_WORDS = "rule-based form check"

Verdicts = frozenset[tuple[object, ...]]


def stored_verdicts(store: RunStore) -> Verdicts:
    """What the tables, figures and report show of each stored form check."""
    rows = store.query(
        "SELECT generation_id, passed, meter_score, rhyme_score, form_score, explanation, error "
        "FROM form_checks"
    )
    return frozenset(tuple(row) for row in rows)


def _made_from_form_checks(stage: str, folder: Path) -> bool:
    if stage == "analyze":
        return any(folder.glob("form_checks*.*"))
    if stage == "report":
        return (folder / "index.html").is_file()
    for caption in folder.glob("*.caption.txt"):
        text = caption.read_text(encoding="utf-8", errors="replace")
        if _FORM_FIGURE_WORDS in text.lower():
            return True
    return False


def form_outputs(run_dir: Path) -> list[str]:
    """The stages (`FORM_OUTPUTS`) whose folder in `run_dir` holds outputs made from form
    checks: found first, so that a run without any reads no verdicts to compare."""
    return [
        stage
        for stage in FORM_OUTPUTS
        if (run_dir / _FOLDERS[stage]).is_dir()
        and _made_from_form_checks(stage, run_dir / _FOLDERS[stage])
    ]


def stale_outputs_note(run_dir: Path, stale: list[str]) -> str | None:
    """`note: runs/x/analysis and runs/x/report were made from the earlier form checks: run
    `poemetric analyze --run runs/x` and `poemetric report --run runs/x` again`, naming the
    folders of `stale` (`form_outputs`); None when there are none."""
    if not stale:
        return None
    folders = joined_with_and([str(run_dir / _FOLDERS[stage]) for stage in stale])
    commands = joined_with_and([f"`{stage_command(stage, run_dir)}`" for stage in stale])
    were = "were" if len(stale) > 1 else "was"
    return f"note: {folders} {were} made from the earlier form checks: run {commands} again"
