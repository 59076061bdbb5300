"""Which pairs each chat scorer of a merged run lacks (`poemetric merge`): answers of
`probe run --scorer chat:MODEL` are the only probe results a run store holds (the other scorers
write scores files only).

Per scorer with answers in the run (ok or failed: a failed one is retried by its command):

* the pairs it was asked to score (`poemetric.store.probe_pairs`: its pairs files, `--tasks`
  and `--limit`, united over the merged stores) without an answer of it: it stopped before them,
  or ran in a store not merged; a gap of what it was asked, as a judge's (`recorded`);
* the pairs of the run (those any scorer was asked for or answered) that it was not asked to
  score, and did not: another pairs file, `--tasks` or `--limit`, or, in a store older than the
  record, unknown; `probe report` would compare it with the others over different pairs. Its
  command is that of the scorers that were asked for them, with this scorer's `--seed`.

A command names a scores file of the scorer only where that file's pairs are among the
command's (`probe run` rewrites its `--output` with the pairs it scores); else a new one. Two
commands of the scorer name one file only where the later one's pairs hold the earlier one's
(its incomplete pairs', then its other pairs' of the same pairs file, `--tasks` of all the tasks):
run in the order printed, the file ends with them all, and no pair is in two of its files.
"""

from __future__ import annotations

import itertools
import shlex
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from poemetric.probes.scorers.chat import TABLE
from poemetric.store import RunStore
from poemetric.store.merge_coverage import PROBE, StageGap
from poemetric.store.probe_pairs import PairRequest, probe_requests

__all__ = ["probe_gaps"]

#: How many of a scorer's lacking pairs are named.
EXAMPLES = 3


def probe_gaps(store: RunStore) -> list[StageGap]:
    """The gaps of every chat scorer with answers in `store`, by scorer."""
    done: dict[str, set[str]] = {}
    task_of: dict[str, str] = {}
    for row in store.query(f"SELECT DISTINCT pair_id, scorer, task FROM {TABLE}"):
        done.setdefault(str(row["scorer"]), set()).add(str(row["pair_id"]))
        task_of.setdefault(str(row["pair_id"]), str(row["task"] or "?"))
    if not done:
        return []
    requests = probe_requests(store)
    run_pairs: dict[str, None] = {}  # the run's pairs, in the order of the files asked
    for scorer in sorted(requests):
        for request in requests[scorer]:
            run_pairs.update(dict.fromkeys(request.pairs))
            for pair, task in request.pairs.items():
                task_of.setdefault(pair, task)
    for scored in done.values():
        run_pairs.update(dict.fromkeys(sorted(scored - run_pairs.keys())))
    taken = {r.output for held in requests.values() for r in held if r.output}
    gaps: list[StageGap] = []
    for scorer in sorted(done):
        own = requests.get(scorer, [])
        used: dict[str, list[PairRequest]] = {}  # its scores files named: by which commands
        asked = dict.fromkeys(pair for request in own for pair in request.pairs)
        lacking = [pair for pair in asked if pair not in done[scorer]]
        if lacking:
            runs = [r for r in own if not set(r.pairs) <= done[scorer]]
            runs = _with_outputs(scorer, own, runs, taken, used)
            gaps.append(_gap(scorer, lacking, len(asked), task_of, runs, recorded=True))
        other = [pair for pair in run_pairs if pair not in asked and pair not in done[scorer]]
        if other:
            wanted = set(other)
            theirs = [
                request
                for name in sorted(requests)
                if name != scorer
                for request in requests[name]
                if wanted & request.pairs.keys()
            ]
            runs = _with_outputs(scorer, own, _as_scorer(theirs, own), taken, used)
            gaps.append(_gap(scorer, other, len(run_pairs), task_of, runs, recorded=False))
    return gaps


def _gap(
    scorer: str,
    lacking: Sequence[str],
    total: int,
    task_of: dict[str, str],
    runs: Iterable[PairRequest],
    *,
    recorded: bool,
) -> StageGap:
    tasks = Counter(task_of.get(pair, "?") for pair in lacking)
    unique = {run.key: run for run in runs}  # one command per pairs file and options
    return StageGap(
        PROBE,
        scorer,
        len(lacking),
        total,
        tuple(sorted(tasks.items())),
        recorded=recorded,
        examples=tuple(lacking[:EXAMPLES]),
        probe_runs=tuple(unique.values()),
    )


def _as_scorer(theirs: Sequence[PairRequest], own: Sequence[PairRequest]) -> list[PairRequest]:
    """Other scorers' runs of the pairs this one lacks, as this one would run them, with its own
    `--seed` (the order its pairs are shown in), their outputs left to `_with_outputs`.

    Per pairs file, where no run of it (this scorer's or theirs) has a `--limit`, one run covers
    them all with this scorer's: `--tasks` of all their tasks (none where one had none). Its
    pairs hold this scorer's of that file, so it may rewrite its scores file, which `probe
    report` then reads alone. A `--limit` picks the first N pairs of its tasks, which no one
    run's options unite: one run per request, each to a scores file of its own."""
    seed = next((o for r in own for o in r.options if o.startswith("--seed ")), None)
    runs: dict[tuple[str, tuple[str, ...]], PairRequest] = {}
    for file in dict.fromkeys(r.file for r in theirs):
        of_file = [r for r in theirs if r.file == file]
        mine = [r for r in own if r.file == file]
        tasks = _tasks_united([*mine, *of_file])
        picks = [tasks] if tasks is not None else [_picking(r) for r in of_file]
        for options in picks:
            key = (file, options + ((seed,) if seed else ()))
            pairs = {
                pair: task
                for r in (mine if tasks is not None else [])
                + [r for r in of_file if tasks is not None or _picking(r) == options]
                for pair, task in r.pairs.items()
            }
            held = runs.get(key)
            runs[key] = PairRequest(file, key[1], None, {**(held.pairs if held else {}), **pairs})
    listed = list(runs.values())
    return [  # a run whose pairs another run of its file holds too (a smaller --limit) is left
        run
        for k, run in enumerate(listed)
        if not any(
            j != k
            and other.file == run.file
            and run.pairs.keys() <= other.pairs.keys()
            and (run.pairs.keys() < other.pairs.keys() or j < k)
            for j, other in enumerate(listed)
        )
    ]


def _picking(request: PairRequest) -> tuple[str, ...]:
    """A request's options that pick its pairs (not its `--seed`)."""
    return tuple(o for o in request.options if not o.startswith("--seed "))


def _tasks_united(requests: Sequence[PairRequest]) -> tuple[str, ...] | None:
    """The `--tasks` option that picks every pair of `requests` (of one pairs file), or None
    where one has a `--limit`."""
    tasks: dict[str, None] = {}
    for request in requests:
        options = dict(shlex.split(o) for o in _picking(request) if len(shlex.split(o)) == 2)
        if "--limit" in options:
            return None
        if "--tasks" not in options:
            return ()
        tasks.update(dict.fromkeys(t.strip() for t in options["--tasks"].split(",") if t.strip()))
    return (f"--tasks {shlex.quote(','.join(tasks))}",) if tasks else ()


def _with_outputs(
    scorer: str,
    own: Sequence[PairRequest],
    runs: Sequence[PairRequest],
    names: set[str],
    used: dict[str, list[PairRequest]],
) -> list[PairRequest]:
    """`runs` with their scores files. `probe run` rewrites its `--output` with its own pairs
    only: a run may name a scores file of this scorer only where its pairs hold those of every
    request that wrote that file and of every command of the scorer named before with it
    (`used`: file -> those commands, updated; a later command that holds an earlier one's pairs
    rewrites the file with them all, so the two never leave a pair in two files); else a new
    file, named after the scorer's own and the pairs file, that no request and no other command
    names (`names`: the outputs named so far, updated)."""
    written: dict[str, list[PairRequest]] = {}
    for request in own:
        if request.output:
            written.setdefault(request.output, []).append(request)
    mine = next((Path(r.output) for r in own if r.output), None)
    stem = mine.stem if mine else scorer.split(":", 1)[-1].replace("/", "-")
    folder = mine.parent if mine else Path()
    named: list[PairRequest] = []
    for run in runs:
        output = next(
            (
                file
                for file, wrote in written.items()
                if all(
                    w.file == run.file and w.pairs.keys() <= run.pairs.keys()
                    for w in [*wrote, *used.get(file, [])]
                )
            ),
            None,
        )
        if output is None:
            base = folder / f"{stem}-{Path(run.file).stem}-scores"
            output = next(
                name
                for n in itertools.count(1)
                if (name := f"{base}{'' if n == 1 else f'-{n}'}.jsonl") not in names
            )
        names.add(output)
        used.setdefault(output, []).append(run)
        named.append(replace(run, output=output, pairs={}))
    return named
