"""What a `poemetric probe` command works on, from its options: `probe build`'s tasks
(`--tasks`) and poems (`--forms`, `--limit`), and `probe run`'s pairs (`--tasks`); a name it
does not know is an error naming what there is."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from poemetric.cli.options import error_exit, unknown_choice
from poemetric.text.plural import plural

if TYPE_CHECKING:
    from poemetric.probes.builders import SourcePoem
    from poemetric.probes.pairs import Pair


def build_tasks(tasks: str) -> list[str]:
    """`probe build --tasks`: 'offline', 'all' or comma-separated tasks, each once
    (`--tasks synonym,synonym` wrote every synonym pair twice, with the same id)."""
    from poemetric.probes.pairs import OFFLINE_TASKS, TASKS

    chosen = {"offline": list(OFFLINE_TASKS), "all": list(TASKS)}.get(
        tasks, list(dict.fromkeys(t.strip() for t in tasks.split(",") if t.strip()))
    )
    unknown = [t for t in chosen if t not in TASKS]
    if unknown:
        raise unknown_choice("--tasks", unknown, [*TASKS, "offline", "all"], "task")
    if not chosen:
        raise error_exit(f"--tasks names no task; tasks: {', '.join(TASKS)} (or offline, all)")
    return chosen


def poems_of_forms(
    name: str, every: list[SourcePoem], forms: str | None, limit: int | None
) -> list[SourcePoem]:
    """The first `limit` poems of `every` (those of `forms`, comma-separated, when given); a
    form none of them has is an error naming the forms of `name` (a typo built 0 pairs from 0
    poems, exit status 0)."""
    wanted = {f.strip().lower() for f in forms.split(",") if f.strip()} if forms else None
    present = sorted({p.form for p in every if p.form})
    absent = sorted((wanted or set()) - set(present))
    if absent:
        raise error_exit(
            f"--forms: no poems of {plural(len(absent), 'form')} {', '.join(absent)} in "
            f"{name}; its forms: {', '.join(present) or 'none (no form column)'}"
        )
    return [p for p in every if wanted is None or p.form in wanted][:limit]


def pairs_of_tasks(pairs_file: Path, pairs: list[Pair], tasks: str | None) -> list[Pair]:
    """`probe run --tasks`: the pairs of those tasks (all without it); a task neither known nor
    in the file is an error, and so is a file left with no pair."""
    from poemetric.probes.pairs import TASKS

    present = sorted({p.task for p in pairs})
    keep = {t.strip() for t in (tasks or "").split(",") if t.strip()}
    unknown = sorted(keep - set(TASKS) - set(present))  # a pairs file may hold its own tasks
    if unknown:
        raise unknown_choice("--tasks", unknown, list(dict.fromkeys([*TASKS, *present])), "task")
    if keep:
        pairs = [p for p in pairs if p.task in keep]
    if not pairs:
        what = (
            f"no pairs of {plural(len(keep), 'task')} {', '.join(sorted(keep))}; its tasks: "
            f"{', '.join(present)}"
            if present
            else "no pairs; build them with `poemetric probe build`"
        )
        raise error_exit(f"{pairs_file}: {what}")
    return pairs
