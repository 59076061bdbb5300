"""Reading the form checker's precomputed tables: keys one by one against the whole table at once.

A `DiskTable` (poemetric/form/table_store.py) answers lookups one key at a time from SQLite and,
after `BULK_AFTER` distinct keys, reads the whole table from its marshal copy. This script
measures both ways for the two big tables (CMUdict pronunciations, per-word metre entries): in
fresh processes pinned to one core (`taskset -c 0` when available), the CPU time (user + system)
to look up N distinct keys drawn at random from the table (a new seed per run) one by one, and to
read the whole table and then look the same keys up in memory. The tables are built beforehand
and their files are in the OS page cache (as after a first check on a machine); nothing else is
cached between processes. Best of --runs, with the spread.

    .venv/bin/python bench/bench_table_reads.py [--keys 2000 8000 15000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_form_speed import PIN

TABLES = ("lexicon", "word-entries")


def _child(table_name: str, mode: str, n: int, seed: int) -> None:
    from poemetric.form import lexicon, meter_words, table_store

    table = lexicon.store() if table_name == "lexicon" else meter_words.word_entry_table()
    keys = [key for key, _value in table.items()]
    random.Random(seed).shuffle(keys)
    keys = keys[:n]
    table._memo.clear()
    table_store.BULK_AFTER = 0 if mode == "whole" else 1 << 62
    usage = resource.getrusage(resource.RUSAGE_SELF)
    before = usage.ru_utime + usage.ru_stime
    for key in keys:
        table.get(key)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"cpu": usage.ru_utime + usage.ru_stime - before, "keys": len(keys)}))


def _measure(table_name: str, mode: str, n: int, seed: int) -> float:
    command = [*PIN, sys.executable, __file__, "--child", table_name, mode, str(n), str(seed)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.splitlines()[-1])["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, nargs="+", default=[2000, 8000, 15000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        table_name, mode, n, seed = args.child
        _child(table_name, mode, int(n), int(seed))
        return
    from poemetric.form import lexicon, meter_words

    lexicon.store().get("the")  # build the tables first if this machine has none
    meter_words.word_entry_table().get("the")
    print(f"CPU time, best of {args.runs} fresh processes (min-max); keys distinct and random")
    print(f"{'table':<14}{'keys':>8}{'one by one':>22}{'whole table':>22}")
    for table_name in TABLES:
        for n in args.keys:
            spans: dict[str, list[float]] = {"keys": [], "whole": []}
            for run in range(args.runs):
                for mode in spans:  # alternate, so load changes hit both
                    spans[mode].append(_measure(table_name, mode, n, seed=run))
            cells = [
                f"{1000 * min(v):.0f} ms ({1000 * min(v):.0f}-{1000 * max(v):.0f})"
                for v in spans.values()
            ]
            print(f"{table_name:<14}{n:>8}{cells[0]:>22}{cells[1]:>22}")
    one = min(spans["keys"]) / args.keys[-1] * 1e6
    print(f"(last row: {one:.1f} us a key one by one)")


if __name__ == "__main__":
    main()
