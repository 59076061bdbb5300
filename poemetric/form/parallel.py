"""Form checks of many poems across worker processes, results in input order.

The checker is pure Python and CPU-bound, so a batch scales with processes, not threads. Workers
are started with ``spawn``: the parent's open SQLite tables must not be shared through ``fork``.
Each worker imports the checker and opens the per-machine tables itself (about 0.5 s), so a worker
pays off only over a thousand poems or so: `auto_jobs` asks for one worker per `POEMS_PER_WORKER`
poems, up to the CPUs this process may use. With one job everything runs in this process, as
before. Results are the same whatever the number of jobs (`tests/test_form_parallel.py`).
A script that asks for workers must do so under ``if __name__ == "__main__":`` (``spawn`` imports
the main module again in each worker). The user lexicon in use (`poemetric.form.user_lexicon`)
is handed to each worker as it starts, so workers check with the same pronunciations.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from poemetric.form.blas import ask_one_blas_thread

if TYPE_CHECKING:
    from poemetric.form.user_lexicon import UserLexicon

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Poems per worker when the count is automatic. A worker costs about 0.5 s to start plus its own
#: cold caches (the words and rhyme pairs it meets first); measured in docs/benchmarks.md.
POEMS_PER_WORKER = 1000
#: Poems sent to a worker at a time (amortises pickling; small enough to keep workers busy).
CHUNK_SIZE = 16


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def auto_jobs(poems: int) -> int:
    """Worker processes for `poems` poems: one per POEMS_PER_WORKER, at most one per CPU."""
    return max(1, min(available_cpus(), poems // POEMS_PER_WORKER))


def resolve_jobs(jobs: int, poems: int) -> int:
    """`jobs` as asked (0 = automatic), never more than there are poems."""
    if jobs < 0:
        raise ValueError(f"jobs must be 0 (automatic) or a positive number, got {jobs}")
    wanted = auto_jobs(poems) if jobs == 0 else jobs
    return max(1, min(wanted, poems))


def _start_worker(lexicon: UserLexicon | None = None) -> None:
    # Ctrl-C reaches the whole process group, and a scheduler's SIGTERM every process of the
    # job: the parent stops the batch (see map_in_order) and shuts the workers down; workers
    # that also stopped would print one traceback each, or break the pool under the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ask_one_blas_thread()  # first: the checker's import loads numpy (this module does not)
    from poemetric.form.checker import relax_collector, single_blas_thread

    relax_collector()  # a worker lives for one batch
    single_blas_thread()  # for a numpy that the program's main module had loaded already
    if lexicon is not None:
        from poemetric.form.user_lexicon import use_lexicon

        use_lexicon(lexicon)  # the parent's: spawn starts a fresh interpreter without it


def map_in_order(
    work: Callable[[Item], Result], items: Iterable[Item], *, jobs: int = 1
) -> Iterator[Result]:
    """`work(item)` for every item, yielded in input order; in `jobs` worker processes when
    `jobs` > 1 (`work` and the items must then pickle: a module-level function and plain data)."""
    if jobs <= 1:
        from poemetric.form.checker import batch_checks

        with batch_checks():
            yield from map(work, items)
        return
    import multiprocessing  # here: `form check` of a few poems starts without it
    from concurrent.futures import ProcessPoolExecutor

    from poemetric.form.user_lexicon import active

    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_start_worker, initargs=(active(),)
    )
    try:
        yield from pool.map(work, items, chunksize=CHUNK_SIZE)
    finally:
        # Stopped early (an error, Ctrl-C): drop the chunks not started rather than finish them.
        pool.shutdown(wait=True, cancel_futures=True)
