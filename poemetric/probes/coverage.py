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
  command is that of the scorers that were asked for them, with this scorer's `--seed` and scores
  file.
"""

from __future__ import annotations

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
    gaps: list[StageGap] = []
    for scorer in sorted(done):
        own = requests.get(scorer, [])
        asked = dict.fromkeys(pair for request in own for pair in request.pairs)
        lacking = [pair for pair in asked if pair not in done[scorer]]
        if lacking:
            runs = [r for r in own if not set(r.pairs) <= done[scorer]]
            gaps.append(_gap(scorer, lacking, len(asked), task_of, runs, recorded=True))
        other = [pair for pair in run_pairs if pair not in asked and pair not in done[scorer]]
        if other:
            wanted = set(other)
            theirs = [
                _as_scorer(request, own)
                for name in sorted(requests)
                if name != scorer
                for request in requests[name]
                if wanted & request.pairs.keys()
            ]
            gaps.append(_gap(scorer, other, len(run_pairs), task_of, theirs, recorded=False))
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


def _as_scorer(request: PairRequest, own: Sequence[PairRequest]) -> PairRequest:
    """Another scorer's run of the pairs this one lacks, as this one would run it: with its own
    `--seed` (the order its pairs are shown in) and its scores file of that pairs file; of
    another pairs file, a new one named after its own and the pairs file (none is replaced)."""
    seeds = [o for r in own for o in r.options if o.startswith("--seed ")]
    options = tuple(o for o in request.options if not o.startswith("--seed ")) + tuple(seeds[:1])
    output = next((r.output for r in own if r.file == request.file and r.output), None)
    if output is None:
        mine = next((Path(r.output) for r in own if r.output), None)
        stem = f"{mine.stem}-" if mine else ""
        folder = mine.parent if mine else Path()
        output = str(folder / f"{stem}{Path(request.file).stem}-scores.jsonl")
    return replace(request, options=options, output=output, pairs={})
