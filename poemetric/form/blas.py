"""One BLAS thread for processes that check form; this module must not import numpy.

The metre search's matrix products are small (the realisations of one line length by a dozen
columns), so a BLAS pool of one thread per core costs CPU for no measurable wall time: OpenBLAS
starts its threads when numpy is imported, and each spins for a while before it sleeps, after
start-up and after every product. On a 16-core machine, `poemetric form check` of 10,000 distinct
poems with 16 worker processes used 59.3 s of CPU (4.34 s wall) with the default pool and 43.3 s
(3.33 s wall) with `OPENBLAS_NUM_THREADS=1` set by hand; with one process, 29.2 s of CPU in
24.95 s against 24.9 s in 24.89 s (docs/benchmarks.md).

The thread count is read once, when the BLAS library loads, so `ask_one_blas_thread` must run
before numpy is imported: the `form` commands call it first, and so does every worker process
(`poemetric.form.parallel`). A value the user has set for one of these variables is kept;
OpenBLAS reads `OPENBLAS_NUM_THREADS` before `GOTO_NUM_THREADS` and `OMP_NUM_THREADS`, so a
thread count set only through those two is overridden. Where numpy is already loaded
(a library caller's process), `poemetric.form.checker.batch_checks` limits the running pool
instead, through threadpoolctl, and gives it back afterwards.
"""

from __future__ import annotations

import os

#: The variables the common BLAS builds read for their thread count (OpenBLAS, MKL, BLIS, and
#: Apple's Accelerate).
BLAS_THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


def ask_one_blas_thread() -> None:
    """Ask the BLAS library that numpy will load, in this process and the processes it starts,
    for one thread; variables already set are left as they are."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
