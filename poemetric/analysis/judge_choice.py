"""The judges whose scores `--judge` keeps in `analyze`, `figures` and `report` (`JUDGE=` under
make): a judge, several comma-separated, or a judge group of judges/ (`pilot`), as `poemetric
judge --judge` takes them. `make judge JUDGE=pilot` then `make analyze JUDGE=pilot` stopped
with "no judgments by judge 'pilot'": the group was looked up as one judge's name."""

from __future__ import annotations

from poemetric.analysis.selection import members_in_run, roster_groups
from poemetric.store import RunStore


def chosen_judges(store: RunStore, value: str) -> tuple[list[str], list[str]]:
    """The judge names `value` stands for, and notes on the members of a group that have no
    judgment in the run (left out: a group's judge that could not run, such as one without its
    API key). A name that is neither a judge of the run nor a group is kept as it is, for the
    caller's "no judgments by judge" error (`poemetric.analysis.data.no_judgments_message`).
    A ValueError when a group has no judge with judgments in the run."""
    in_run = [r[0] for r in store.query("SELECT DISTINCT judge FROM judgments ORDER BY judge")]
    groups: dict[str, list[str]] | None = None
    chosen: list[str] = []
    notes: list[str] = []
    for token in (t.strip() for t in value.split(",")):
        if not token or token in in_run:
            chosen += [token] if token else []
            continue
        groups = roster_groups("judges") if groups is None else groups
        if token not in groups:
            chosen.append(token)
            continue
        members = groups[token]
        found, note = members_in_run(token, members, in_run, "judge group")
        if not found and in_run:
            raise ValueError(
                f"no judgments by judge group {token!r} ({', '.join(members)}) in the run; "
                f"judges: {', '.join(in_run)}"
            )
        if not found:  # a run not judged yet: the error names the command that judges it
            chosen.append(token)
            continue
        notes += [note] if note else []
        chosen += found
    return list(dict.fromkeys(chosen)), notes
