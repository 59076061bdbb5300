"""How the request-rate benchmarks end: wrong results fail; a slow machine is reported, not failed.

Their rate targets are wall-clock shares of a server's limit, so other work on the machine lowers
them; lost, duplicated or wrong results are failures whatever the load.
"""

from __future__ import annotations

import os


def report(correct: bool, rate_met: bool) -> int:
    """Print the verdict with the machine's load; the exit status is 1 only for wrong results."""
    load = os.getloadavg()[0]
    machine = f"load average {load:.1f} on {os.cpu_count()} cores"
    if not correct:
        print(f"RESULTS WRONG (lost, duplicated or wrong rows; {machine})")
        return 1
    if rate_met:
        print(f"targets met ({machine})")
    else:
        print(f"rate target missed: a wall-clock share, measured at {machine}; results correct")
    return 0
