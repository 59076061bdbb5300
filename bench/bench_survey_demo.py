"""The human-validation workflow on the demo run, as whole `poemetric` processes: demo ->
an LLM judge (a local OpenAI-compatible test server whose seeded answers rate human poems above
Markov ones) -> survey build (3 raters, 2 per poem) -> sheets -> three simulated raters fill
their CSV templates -> survey import -> analyze. Prints each step's wall time and the
judge-vs-expert and expert-vs-expert agreement (pooled over items, 95% bootstrap CIs).

Usage: python bench/bench_survey_demo.py [--keep DIR]
The judge and raters are simulated (seeded): the numbers show the machinery, not real experts.
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

import numpy as np
import pandas as pd

from poemetric.store import RunStore
from poemetric.store.poem_codes import sheet_codes
from poemetric.testing.servers import ChatCall, OpenAIServer

QUESTIONS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12)


def quality(text: str) -> float:
    """Latent quality the simulated judge and raters share: human poems (long, varied) high."""
    words = text.split()
    return 1.5 + 3 * len(set(words)) / max(len(words), 1) if words else 1.0


def judge_responder(call: ChatCall) -> str:
    poem = call.prompt.split("## The poem", 1)[-1].split("## Questions", 1)[0].strip()
    rng = np.random.default_rng(int(hashlib.sha256(poem.encode()).hexdigest()[:8], 16))
    scores = {str(q): int(np.clip(np.rint(quality(poem) + rng.normal(0, 0.7)), 1, 5))
              for q in QUESTIONS}  # fmt: skip
    return json.dumps({**scores, "9": "metaphor", "11": "ok", "13": "regular"})


def poemetric(*args: str, env: dict[str, str] | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "poemetric", *args],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise SystemExit(f"poemetric {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return time.perf_counter() - started, result.stdout


def sheet_poems(run: Path) -> dict[str, str]:
    """The text of each poem by the code the survey's sheets and templates name it by (an HMAC
    under the run's survey secret, not its generation id: docs/survey.md, Anonymised)."""
    with RunStore(run, create=False) as store:
        texts = {r[0]: r[1] for r in store.query("SELECT generation_id, poem FROM generations")}
        return {code: texts[generation_id] for code, generation_id in sheet_codes(store).items()}


def fill(template: Path, poems: dict[str, str], noise: float, seed: int) -> None:
    """A simulated rater scores every row of their template; `poems`: `sheet_poems`."""
    rng = np.random.default_rng(seed)
    rows = list(csv.DictReader(template.open(encoding="utf-8")))
    for row in rows:
        score = quality(poems[row["poem"]]) + rng.normal(0, noise)
        row["score"] = str(int(np.clip(np.rint(score), 1, 5)))
    with template.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, help="Run directory to keep (default: a temp dir).")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="poemetric-survey-demo-"))
    run = base / "run"
    steps: list[tuple[str, float]] = []
    steps.append(("demo", poemetric("demo", "--run", str(run), "--no-progress")[0]))
    with OpenAIServer(judge_responder, api_key="local") as server:
        env = {"POEMETRIC_LOCAL_BASE_URL": server.base_url, "POEMETRIC_LOCAL_API_KEY": "local",
               "POEMETRIC_LOCAL_MODEL": "simulated-judge"}  # fmt: skip
        steps.append(("judge", poemetric("judge", "--run", str(run), "--judge", "local-openai",
                                         "--no-progress", env=env)[0]))  # fmt: skip
    build = ["survey", "build", "--run", str(run), "--raters", "3", "--per-rater", "8",
             "--per-poem", "2", "--seed", "1"]  # fmt: skip
    seconds, output = poemetric(*build)
    steps.append(("survey build", seconds))
    print(output.strip())
    steps.append(("survey sheets", poemetric("survey", "sheets", "--run", str(run))[0]))
    poems = sheet_poems(run)
    for index, rater in enumerate(["R1", "R2", "R3"]):
        template = run / "survey-experts" / f"{rater}.csv"
        fill(template, poems, noise=0.6 + 0.2 * index, seed=index)
        seconds, _ = poemetric("survey", "import", str(template), "--run", str(run))
        steps.append((f"survey import {rater}", seconds))
    seconds, output = poemetric("analyze", "--run", str(run), "--bootstrap", "1000")
    steps.append(("analyze (1000 bootstrap resamples)", seconds))
    print("\nstep wall times (s): " + ", ".join(f"{name} {s:.1f}" for name, s in steps))
    columns = ["item", "n_poems", "n_pairs", "pao", "adjacent", "alpha_interval", "gwet_ac1",
               "gwet_ac2_quadratic", "qwk", "spearman"]  # fmt: skip
    for table in ("agreement", "agreement_experts"):
        frame = pd.read_csv(run / "analysis" / f"{table}.csv")
        print(f"\n{table}.csv (estimates; CIs in the file)")
        print(frame[columns].round(3).to_string(index=False))
    print(f"\nrun kept at {run}" if args.keep else "")


if __name__ == "__main__":
    main()
