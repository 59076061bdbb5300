"""Whole-process time of every stage on a large offline run: generate, form run, judge, analyze,
figures, report, export, each run twice (the second run of a resumable stage has nothing to do).

The models are the offline Markov baseline under N names (mk01, mk02, ... in a temporary
generators folder, each with its own seed); the judge is the local OpenAI-compatible test server
answering each prompt with scores drawn from a hash of it. Poems: the 163 gold poems of
../shared/data, extended to --poems with distinct poems (`distinct_poems.py`: Markov poems for
the gold poems' requests, kept in the user cache) written to a CSV in the temporary folder.
Prints, per command, CPU seconds (user + system of the child process), wall seconds, its peak
memory (resident) and the load average before it. No network, no key.

Usage: .venv/bin/python bench/bench_stages.py [--models 30] [--poems 163] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from distinct_poems import distinct_poems
from mutations import load_gold
from shared_data import SHARED_DATA, require

from poemetric.paths import resource_path
from poemetric.testing.servers import ChatCall, OpenAIServer

JUDGE_FILE = """name: benchj
provider: openai-compatible
model: bench-judge
open_weights: true
base_url: {url}
api_key_env: false
pricing: {{input_per_mtok: 0, output_per_mtok: 0, batch_discount: 1.0}}
limits: {{max_concurrency: 32}}
"""


def answer(call: ChatCall) -> str:
    digest = hashlib.sha256(call.prompt.encode("utf-8")).digest()
    scores: dict[str, object] = {}
    for index, question in enumerate((1, 2, 3, 4, 5, 6, 7, 8, 10, 12)):
        low = 0 if question in (7, 8) else 1
        scores[str(question)] = low + digest[index] % (6 - low)
    scores.update({"9": "devices", "11": "quality", "13": "authorship"})
    return "```json\n" + json.dumps(scores) + "\n```"


def write_dataset(path: Path, poems: int) -> None:
    source = require(SHARED_DATA / "poemetric_human_poems_annotated.csv")
    with source.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    texts = distinct_poems(load_gold(source), poems, seed=7)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for k, poem in enumerate(texts):
            row = dict(rows[k % len(rows)])
            if k >= len(rows):
                row.update(content=poem.text, title=f"Synthetic {k}")
                row["poem_link-href"] = f"https://example.org/{k}"
            writer.writerow(row)


def write_models(folder: Path, models: int) -> str:
    markov = resource_path("generators", "markov.yaml").read_text(encoding="utf-8")
    names = [f"mk{i:02d}" for i in range(1, models + 1)]
    for i, name in enumerate(names, start=1):
        text = markov.replace("name: markov", f"name: {name}").replace("seed: 0", f"seed: {i}")
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return ",".join(names)


def timed(label: str, args: list[str], env: dict[str, str]) -> None:
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as output:
        child = subprocess.Popen([sys.executable, "-m", "poemetric", *args], env=env,
                                 stdout=output, stderr=subprocess.STDOUT)  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak memory
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        if child.returncode:
            output.seek(0)
            raise SystemExit(f"{label} failed ({child.returncode}):\n{output.read()}")
    cpu = usage.ru_utime + usage.ru_stime
    print(f"{label:<18} {cpu:8.2f} s CPU {wall:8.2f} s wall {usage.ru_maxrss / 1024:6.0f} MB peak  "
          f"load {load:.2f}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--poems", type=int, default=163)
    parser.add_argument("--keep", type=Path, help="build the run here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, OpenAIServer(answer) as server:
        work = Path(scratch)
        (work / "generators").mkdir()
        (work / "judges").mkdir()
        models = write_models(work / "generators", args.models)
        (work / "judges" / "benchj.yaml").write_text(JUDGE_FILE.format(url=server.base_url))
        dataset = work / "poems.csv"
        write_dataset(dataset, args.poems)
        run = str(args.keep or work / "run")
        env = {**os.environ, "POEMETRIC_GENERATORS_DIR": str(work / "generators"),
               "POEMETRIC_JUDGES_DIR": str(work / "judges")}  # fmt: skip
        print(f"{args.models} Markov models x {args.poems} poems; run {run}")
        stages = [
            ("generate", ["generate", "-r", run, "-d", str(dataset), "-m", models, "--no-progress"]),
            ("form run", ["form", "run", "-r", run, "--no-progress"]),
            ("judge", ["judge", "-r", run, "-j", "benchj", "--no-progress"]),
        ]  # fmt: skip
        for label, command in stages:
            timed(label, command, env)
            timed(f"{label} (again)", command, env)
        for label, command in (
            ("analyze", ["analyze", "-r", run, "--no-progress"]),
            ("figures", ["figures", "-r", run]),
            ("report", ["report", "-r", run]),
            ("export parquet", ["export", "-r", run, "--format", "parquet"]),
        ):
            timed(label, command, env)


if __name__ == "__main__":
    main()
