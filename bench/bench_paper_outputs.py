"""Whole-process time and peak memory of the output commands at the paper's scale: analyze,
report, figures (every figure kind, and each bundled recipe) and export.

The run is synthetic (`build_synthetic_run`): the human poets and the 30 models of `paper30`
over --prompts prompts spread over the seven forms as the paper's 203 are (163: 5,053 poems),
one sample each, form-checked, judged by two judges, and an expert-ratings file of four experts
who each rated the same 60 poems (scores near the first judge's). Each command runs as a child
process (`bench_stages.timed`: CPU = user + system, wall, peak resident, load average before
it); its outputs go to OUT/NAME, so that two trees' outputs can be compared with `diff -r`.
The first `analyze` of a new run also computes and keeps the ghostwriting measures: it runs
once untimed first ("warm-up"), and the timed commands find them kept.

Before and after a change: run it twice with one --keep DIR (the run is reused), once with
`--code DIR`, a `git archive` copy of the older tree, whose POEMetric the commands then run.

Usage: .venv/bin/python bench/bench_paper_outputs.py [--prompts 163] [--keep DIR] [--out DIR]
       [--only analyze,report,...] [--code DIR]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from bench_analyze import scaled_forms
from bench_stages import timed

from poemetric.analysis.synthetic import build_synthetic_run, paper_authors
from poemetric.questionnaire import DIMENSIONS
from poemetric.store.db import DB_NAME

JUDGES = ("gemini-2.5-pro", "gpt-4o")
STEPS = ("analyze", "report", "figures", "paper", "rule-based", "judge-overview", "csv", "jsonl",
         "parquet")  # fmt: skip


def build_run(run: Path, prompts: int, experts: int = 4, rated: int = 60) -> None:
    """The run and RUN/experts.csv: `experts` experts who each rated the same `rated` poems."""
    store = build_synthetic_run(run, authors=paper_authors(), poems_per_form=scaled_forms(prompts),
                                judges=JUDGES, lines=14, seed=0)  # fmt: skip
    judged = store.query(
        "SELECT * FROM judgments WHERE judge = ? ORDER BY generation_id", (JUDGES[0],)
    )
    store.close()
    rng = np.random.default_rng(1)
    picked = sorted(rng.choice(len(judged), size=rated, replace=False))
    with (run / "experts.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["expert", "generation_id", *(d.key for d in DIMENSIONS)])
        for expert in range(1, experts + 1):
            for index in picked:
                row = judged[int(index)]
                scores = [
                    0
                    if d.allows_na and row[d.key] == 0
                    else int(np.clip((row[d.key] or 3) + rng.integers(-1, 2), 1, 5))
                    for d in DIMENSIONS
                ]
                writer.writerow([f"E{expert}", row["generation_id"], *scores])


def commands(run: str, out: Path) -> dict[str, list[str]]:
    experts = ["-e", f"{run}/experts.csv"]
    recipe = ["figures", "-r", run, "--recipe"]
    return {
        "analyze": ["analyze", "-r", run, *experts, "--no-progress", "-o", f"{out}/analysis/"],
        "report": ["report", "-r", run, *experts, "--out", f"{out}/report/index.html"],
        "figures": ["figures", "-r", run, *experts, "-o", f"{out}/figures/"],
        "paper": [*recipe, "paper", *experts, "-o", f"{out}/paper/"],
        "rule-based": [*recipe, "rule-based", "-o", f"{out}/rule-based/"],
        "judge-overview": [*recipe, "judge-overview", "-o", f"{out}/judge-overview/"],
        **{
            fmt: ["export", "-r", run, "--format", fmt, "--to", f"{out}/export-{fmt}/"]
            for fmt in ("csv", "jsonl", "parquet")
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=163)
    parser.add_argument("--keep", type=Path, help="build the run here and keep it (or reuse it)")
    parser.add_argument("--out", type=Path, help="write the commands' outputs here")
    parser.add_argument("--only", help=f"comma-separated steps of: {', '.join(STEPS)}")
    parser.add_argument("--code", type=Path, help="run the commands with the POEMetric here")
    args = parser.parse_args()
    steps = args.only.split(",") if args.only else list(STEPS)
    if unknown := [step for step in steps if step not in STEPS]:
        sys.exit(f"no step {', '.join(unknown)}; steps: {', '.join(STEPS)}")
    with tempfile.TemporaryDirectory() as scratch:
        run = args.keep or Path(scratch) / "run"
        out = args.out or Path(scratch) / "out"
        if not (run / DB_NAME).exists():
            build_run(run, args.prompts)
        env = dict(os.environ)
        if args.code:
            env["PYTHONPATH"] = str(args.code.resolve())
        todo = commands(str(run), out)
        warm = [*todo["analyze"][:-1], f"{scratch}/warm-up/"]
        timed("analyze (warm-up)", warm, env)
        for step in steps:
            timed(step, todo[step], env)


if __name__ == "__main__":
    main()
