"""Accuracy tables of scored pairs, shaped like the papers' tables, with their published numbers.

`probe_tables(records)` is the entry point (also for the run report): it returns

- ``accuracy``: one row per (scorer, task): n, accuracy by log-probability sum and by per-token
  mean, ties of each, unanswered pairs (forced choice), and Wilson 95% intervals;
- ``bpomp``: BPoMP's Table 2 (RANLP 2021) — rhyme_word_swap, rhyme_line_swap, synonym — with the
  published rows (BERT, GPT-2, Transformer-XL, XLNet, human) under ours;
- ``deletion``: the limerick paper's Table 2 (JCLS 2022) — 1/2/3 words, rhyming (-r) or not (-nr);
- ``last_line``: its Tables 3 and 4 (beam search and delayed beam search completions).

Published accuracies compare sums (BPoMP) or length-normalised means (the deletion and
completion tasks of the limerick paper); our rows give both, named by the comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from poemetric.analysis.stats import wilson_interval
from poemetric.analysis.tables import to_markdown, write_table
from poemetric.probes.scorers.base import ScoreRecord

BPOMP_TASKS = ("rhyme_word_swap", "rhyme_line_swap", "synonym")
DELETION_TASKS = {
    "1-r": "delete_1_rhyming",
    "1-nr": "delete_1_nonrhyming",
    "2-r": "delete_2_rhyming",
    "2-nr": "delete_2_nonrhyming",
    "3-r": "delete_3_rhyming",
    "3-nr": "delete_3_nonrhyming",
}
#: BPoMP (Abdibayev, Riddell and Rockmore, RANLP 2021), Table 2.
PUBLISHED_BPOMP: dict[str, tuple[float, float, float]] = {
    "BERT (cased)": (0.9414, 0.8321, 0.7034),
    "GPT-2": (0.9423, 0.8336, 0.6557),
    "Transformer-XL": (0.8724, 0.6623, 0.6188),
    "XLNet": (0.9310, 0.8227, 0.6741),
    "Human": (1.0, 0.95, 1.0),
}
#: The limerick paper (Abdibayev et al., JCLS 2022), Table 2 (1-r, 1-nr, 2-r, 2-nr, 3-r, 3-nr).
PUBLISHED_DELETION: dict[str, tuple[float, ...]] = {
    "GPT-2": (0.9133, 0.8991, 0.9146, 0.9556, 0.9163, 0.9819),
    "BERT": (0.8754, 0.8888, 0.8727, 0.9505, 0.8817, 0.9801),
    "TransformerXL": (0.7464, 0.7769, 0.7488, 0.841, 0.751, 0.8818),
    "XLNet": (0.2897, 0.4978, 0.2909, 0.4931, 0.2843, 0.4712),
}
#: Its Tables 3 (beam search) and 4 (delayed beam search): fifth line replaced.
PUBLISHED_LAST_LINE: dict[str, tuple[float, float]] = {
    "GPT-2 medium": (0.0736, 0.17),
    "BERT": (0.1478, 0.42),
    "TransformerXL": (0.0253, 0.07),
    "XLNet (causal)": (0.415, 0.12),
    "Human": (1.0, 1.0),
}


def _rate(records: Sequence[ScoreRecord], field: str) -> dict[str, float | int]:
    """Accuracy over all `records`: a tie or an unanswered pair counts in n, never as correct
    (over the answered pairs only, 2 correct and 2 unanswered of n = 4 read 1.000)."""
    verdicts = [getattr(r, field) for r in records]
    correct = sum(v == "correct" for v in verdicts)
    low, high = wilson_interval(correct, len(verdicts))
    return {
        "accuracy": correct / len(verdicts) if verdicts else float("nan"),
        "ties": sum(v == "tie" for v in verdicts),
        "ci_low": low,
        "ci_high": high,
    }


def accuracy_table(records: Iterable[ScoreRecord]) -> pd.DataFrame:
    groups: dict[tuple[str, str], list[ScoreRecord]] = {}
    for record in records:
        groups.setdefault((record.scorer, record.task), []).append(record)
    rows = []
    for (scorer, task), members in sorted(groups.items()):
        by_sum, by_mean = _rate(members, "verdict_sum"), _rate(members, "verdict_mean")
        rows.append(
            {
                "scorer": scorer,
                "task": task,
                "n": len(members),
                "unanswered": sum(r.verdict_sum == "unanswered" for r in members),
                "acc_sum": by_sum["accuracy"],
                "ci_sum_low": by_sum["ci_low"],
                "ci_sum_high": by_sum["ci_high"],
                "ties_sum": by_sum["ties"],
                "acc_mean": by_mean["accuracy"],
                "ci_mean_low": by_mean["ci_low"],
                "ci_mean_high": by_mean["ci_high"],
                "ties_mean": by_mean["ties"],
            }
        )
    return pd.DataFrame(rows)


def _paper_table(
    accuracy: pd.DataFrame,
    columns: dict[str, str],
    published: Mapping[str, Sequence[float]],
    source: str,
) -> pd.DataFrame:
    rows = []
    for scorer in sorted(set(accuracy["scorer"])) if len(accuracy) else []:
        mine = accuracy[accuracy["scorer"] == scorer].set_index("task")
        if not set(columns.values()) & set(mine.index):
            continue
        for basis in ("sum", "mean"):
            row: dict[str, object] = {"model": f"{scorer} (by {basis})", "source": "ours"}
            for label, task in columns.items():
                row[label] = mine[f"acc_{basis}"].get(task, float("nan"))
            row["n"] = int(mine.loc[mine.index.isin(list(columns.values())), "n"].sum())
            rows.append(row)
    for model, values in published.items():
        rows.append(
            {"model": model, "source": source, **dict(zip(columns, values, strict=True)), "n": None}
        )
    frame = pd.DataFrame(rows, columns=["model", "source", *columns, "n"])
    frame["n"] = pd.Series([None if pd.isna(n) else int(n) for n in frame["n"]], dtype=object)
    return frame


def probe_tables(records: Iterable[ScoreRecord]) -> dict[str, pd.DataFrame]:
    """The tables described in the module docstring, by name."""
    accuracy = accuracy_table(records)
    return {
        "accuracy": accuracy,
        "bpomp": _paper_table(
            accuracy, {t: t for t in BPOMP_TASKS}, PUBLISHED_BPOMP, "BPoMP 2021, Table 2"
        ),
        "deletion": _paper_table(
            accuracy, DELETION_TASKS, PUBLISHED_DELETION, "Limericks 2022, Table 2"
        ),
        "last_line": _paper_table(
            accuracy,
            {"last_line (beam)": "last_line", "last_line (delayed beam)": "last_line_dbs"},
            PUBLISHED_LAST_LINE,
            "Limericks 2022, Tables 3-4",
        ),
    }


CAPTIONS = {
    "accuracy": "Minimal-pair accuracy per scorer and task (Wilson 95% intervals)",
    "bpomp": "BPoMP tasks: accuracy (original more probable), ours beside the published numbers",
    "deletion": "Word deletion (limerick paper): accuracy, ours beside the published numbers",
    "last_line": "Generated last line (limerick paper): accuracy, ours beside the published numbers",
}


def write_probe_tables(tables: dict[str, pd.DataFrame], out_dir: str | Path) -> list[Path]:
    written: list[Path] = []
    for name, frame in tables.items():
        written += write_table(frame, out_dir, f"probe_{name}", caption=CAPTIONS[name], digits=3)
    return written


def markdown_summary(tables: dict[str, pd.DataFrame]) -> str:
    parts = []
    for name in ("bpomp", "deletion", "last_line"):
        frame = tables[name]
        if (frame["source"] == "ours").any():
            parts.append(f"**{CAPTIONS[name]}**\n\n{to_markdown(frame, digits=3)}")
    return "\n".join(parts)
