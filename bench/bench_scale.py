"""Whole-process time and peak memory of what users run on a study-sized run: analyze, figures,
report (and its size), export (csv, jsonl, parquet), merge of two runs, and the judge and form
stages on a finished run and on one 99% done.

The run is grown (`scale_run.py`) from a finished offline run, --base (made by
`bench_stages.py --keep DIR`), or without it one this script makes as `bench_stages.py` does
(generate, form run, judge: 30 Markov models x 163 poems, one judge, some minutes): --samples samples per model and prompt, --judges
judges, each new judgment moved a point from the first judge's here and there, refusals and
parse failures among them, a call-log row per judgment. The judges are the local
OpenAI-compatible test server of `bench_stages.py` (scores from a hash of each prompt), under
the names benchj, benchj2, ...; no network, no key. Each command runs as a child process
(`bench_stages.timed`: CPU = user + system, wall, peak resident, load average before it).

Before and after a change: run it twice on one grown run (--keep), once with `--code DIR`, a
`git archive` copy of the older tree, whose POEMetric the commands then run.

Usage: .venv/bin/python bench/bench_scale.py [--base DIR] [--samples 3] [--judges 3] [--keep DIR]
       [--only analyze,report,...] [--code DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_stages import JUDGE_FILE, answer, timed, write_dataset, write_models
from scale_run import judge_names

from poemetric.store.db import DB_NAME
from poemetric.testing.servers import OpenAIServer

STEPS = (
    "analyze", "figures", "report", "export", "merge", "judge-again", "form-again", "judge-99",
    "form-99",
)  # fmt: skip


def folder_size(path: Path) -> tuple[int, int]:
    files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    return len(files), sum(p.stat().st_size for p in files)


def drop_share(run: Path, table: str, every: int) -> int:
    """Delete every `every`-th row of `table` (by rowid): a stage stopped 1 - 1/every done."""
    with sqlite3.connect(run / DB_NAME) as conn:
        cursor = conn.execute(f"DELETE FROM {table} WHERE rowid % ? = 0", (every,))
        return cursor.rowcount


def build_base(run: Path, work: Path, judge_url: str) -> None:
    """A finished run as `bench_stages.py` makes it: 30 Markov models x the 163 gold poems,
    form-checked and judged by the test server as `benchj`."""
    (work / "base-models").mkdir()
    (work / "base-judges").mkdir()
    models = write_models(work / "base-models", 30)
    (work / "base-judges" / "benchj.yaml").write_text(JUDGE_FILE.format(url=judge_url))
    dataset = work / "poems.csv"
    write_dataset(dataset, 163)
    env = {**os.environ, "POEMETRIC_GENERATORS_DIR": str(work / "base-models"),
           "POEMETRIC_JUDGES_DIR": str(work / "base-judges")}  # fmt: skip
    r = str(run)
    timed("base: generate", ["generate", "-r", r, "-d", str(dataset), "-m", models,
                             "--no-progress"], env)  # fmt: skip
    timed("base: form run", ["form", "run", "-r", r, "--no-progress"], env)
    timed("base: judge", ["judge", "-r", r, "-j", "benchj", "--no-progress"], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="a run of bench_stages --keep (default: made)")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--judges", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="grow the run here and keep it")
    parser.add_argument("--only", help=f"comma-separated steps of: {', '.join(STEPS)}")
    parser.add_argument("--code", type=Path, help="run the commands with the POEMetric here")
    args = parser.parse_args()
    steps = args.only.split(",") if args.only else list(STEPS)
    with tempfile.TemporaryDirectory() as scratch, OpenAIServer(answer) as server:
        work = Path(scratch)
        run = args.keep or work / "run"
        if not (run / DB_NAME).exists():
            if args.base is None:
                args.base = work / "base"
                build_base(args.base, work, server.base_url)
            grow = [sys.executable, str(Path(__file__).with_name("scale_run.py")), str(args.base),
                    str(run), str(args.samples), str(args.judges)]  # fmt: skip
            subprocess.run(grow, check=True)  # its own process: see scale_run.py's end
        print(f"store {os.path.getsize(run / DB_NAME) / 1e6:.0f} MB; run {run}")
        judges = judge_names(args.judges)
        (work / "judges").mkdir()
        for name in judges:
            text = JUDGE_FILE.format(url=server.base_url).replace("name: benchj", f"name: {name}")
            (work / "judges" / f"{name}.yaml").write_text(text, encoding="utf-8")
        env = {**os.environ, "POEMETRIC_JUDGES_DIR": str(work / "judges")}
        if args.code:
            env["PYTHONPATH"] = str(args.code.resolve())
        r = str(run)
        judge_cmd = ["judge", "-r", r, "-j", ",".join(judges), "--no-progress"]
        if "analyze" in steps:
            timed("analyze", ["analyze", "-r", r, "--no-progress"], env)
        if "figures" in steps:
            timed("figures", ["figures", "-r", r], env)
        if "report" in steps:
            page = work / "report" / "index.html"
            timed("report", ["report", "-r", r, "--out", str(page)], env)
            files, size = folder_size(page.parent)
            print(f"  report: index.html {page.stat().st_size / 1e6:.2f} MB; folder {files} files "
                  f"{size / 1e6:.1f} MB")  # fmt: skip
        if "export" in steps:
            for fmt in ("csv", "jsonl", "parquet"):
                out = work / f"export-{fmt}"
                timed(f"export {fmt}", ["export", "-r", r, "--format", fmt, "--to", f"{out}/"], env)
                files, size = folder_size(out)
                print(f"  {files} files, {size / 1e6:.1f} MB")
        if "merge" in steps:
            merged = work / "merged"
            timed("merge into new", ["merge", r, "--into", str(merged)], env)
            timed("merge again", ["merge", r, "--into", str(merged)], env)
            shutil.rmtree(merged)
        if "judge-again" in steps:
            timed("judge (done)", judge_cmd, env)
        if "form-again" in steps:
            timed("form run (done)", ["form", "run", "-r", r, "--no-progress"], env)
        if "judge-99" in steps:
            dropped = drop_share(run, "judgments", 100)
            timed(f"judge ({dropped:,} left)", judge_cmd, env)
        if "form-99" in steps:
            dropped = drop_share(run, "form_checks", 100)
            timed(f"form run ({dropped:,} left)", ["form", "run", "-r", r, "--no-progress"], env)


if __name__ == "__main__":
    main()
