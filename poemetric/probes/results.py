"""Accuracy tables of scored pairs, shaped like the papers' tables, with their published numbers.

`probe_tables(records)` is the entry point (also for the run report): it returns

- ``accuracy``: one row per (scorer, task): n, accuracy by log-probability sum and by per-token
  mean, ties of each, unanswered pairs (forced choice), and Wilson 95% intervals;
- ``bpomp``: BPoMP's Table 2 (RANLP 2021) — rhyme_word_swap, rhyme_line_swap, synonym — with the
  published rows (BERT, GPT-2, Transformer-XL, XLNet, human) under ours;
- ``deletion``: the limerick paper's Table 2 (JCLS 2022) — 1/2/3 words, rhyming (-r) or not (-nr);
- ``last_line``: its Tables 3 and 4 (beam search and delayed beam search completions).

The tables are built from plain rows (`probe_table_rows`): `probe run` prints them without
importing pandas (a rerun whose scores are all cached took longer to import it than to run);
`probe_tables` gives them as data frames, for the table files and the run report.

Published accuracies compare sums (BPoMP) or length-normalised means (the deletion and
completion tasks of the limerick paper); our rows give both, named by the comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poemetric.probes.scorers.base import ScoreRecord
from poemetric.stats import wilson_interval
from poemetric.tables.markdown import markdown_table

if TYPE_CHECKING:
    import pandas as pd

BPOMP_TASKS = ("rhyme_word_swap", "rhyme_line_swap", "synonym")
DELETION_TASKS = {
    "1-r": "delete_1_rhyming",
    "1-nr": "delete_1_nonrhyming",
    "2-r": "delete_2_rhyming",
    "2-nr": "delete_2_nonrhyming",
    "3-r": "delete_3_rhyming",
    "3-nr": "delete_3_nonrhyming",
}
LAST_LINE_TASKS = {"last_line (beam)": "last_line", "last_line (delayed beam)": "last_line_dbs"}
#: The tasks of each paper-shaped table.
PAPER_TASKS: dict[str, tuple[str, ...]] = {
    "bpomp": BPOMP_TASKS,
    "deletion": tuple(DELETION_TASKS.values()),
    "last_line": tuple(LAST_LINE_TASKS.values()),
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

#: The accuracy table's columns (`accuracy_table`).
ACCURACY_COLUMNS = ["scorer", "task", "n", "unanswered", "acc_sum", "ci_sum_low", "ci_sum_high",
                    "ties_sum", "acc_mean", "ci_mean_low", "ci_mean_high", "ties_mean"]  # fmt: skip
Row = dict[str, Any]


@dataclass(frozen=True)
class ProbeTable:
    """One table as plain rows (values by column name, in `columns` order); `text` names the
    columns that print as text, as pandas infers them from the values (`n` beside published
    rows without one is integers and None: object)."""

    columns: list[str]
    rows: list[Row]
    text: frozenset[str]

    def markdown(self, digits: int = 3) -> str:
        """`tables.to_markdown(self.frame(), digits=digits)`, without pandas."""
        cells = ([row[c] for c in self.columns] for row in self.rows)
        numeric = [c not in self.text for c in self.columns]
        return markdown_table(self.columns, cells, numeric, digits=digits)

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=self.columns)
        if "n" in self.text:
            frame["n"] = pd.Series([row["n"] for row in self.rows], dtype=object)
        return frame


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


def accuracy_table(records: Iterable[ScoreRecord]) -> ProbeTable:
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
    return ProbeTable(ACCURACY_COLUMNS, rows, frozenset({"scorer", "task"}))


def _paper_table(
    accuracy: ProbeTable,
    columns: dict[str, str],
    published: Mapping[str, Sequence[float]],
    source: str,
) -> ProbeTable:
    rows: list[Row] = []
    for scorer in sorted({row["scorer"] for row in accuracy.rows}):
        mine = {row["task"]: row for row in accuracy.rows if row["scorer"] == scorer}
        tasks = [task for task in columns.values() if task in mine]
        if not tasks:
            continue
        for basis in ("sum", "mean"):
            row: Row = {"model": f"{scorer} (by {basis})", "source": "ours"}
            for label, task in columns.items():
                row[label] = mine[task][f"acc_{basis}"] if task in mine else float("nan")
            row["n"] = sum(mine[task]["n"] for task in set(tasks))
            rows.append(row)
    for model, values in published.items():
        rows.append(
            {"model": model, "source": source, **dict(zip(columns, values, strict=True)), "n": None}
        )
    return ProbeTable(["model", "source", *columns, "n"], rows, frozenset({"model", "source", "n"}))


def probe_table_rows(records: Iterable[ScoreRecord]) -> dict[str, ProbeTable]:
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
            accuracy, LAST_LINE_TASKS, PUBLISHED_LAST_LINE, "Limericks 2022, Tables 3-4"
        ),
    }


def tables_without_ours(tables: Mapping[str, ProbeTable]) -> dict[str, str]:
    """The paper-shaped tables that hold no row of ours (no pair of their tasks was scored),
    by name, with one line that says so: `no pairs of task last_line or last_line_dbs`. Their
    files held the published rows alone, which read as if the tasks had been run."""
    left: dict[str, str] = {}
    for name, tasks in PAPER_TASKS.items():
        if not any(row["source"] == "ours" for row in tables[name].rows):
            many = len(tasks) > 1
            listed = ", ".join(tasks[:-1]) + f" or {tasks[-1]}" if many else tasks[0]
            left[name] = f"no pairs of task{'s' if many else ''} {listed}"
    return left


def probe_tables(records: Iterable[ScoreRecord]) -> dict[str, pd.DataFrame]:
    """`probe_table_rows` as data frames (the table files, the run report)."""
    return {name: table.frame() for name, table in probe_table_rows(records).items()}


CAPTIONS = {
    "accuracy": "Minimal-pair accuracy per scorer and task (Wilson 95% intervals)",
    "bpomp": "BPoMP tasks: accuracy (original more probable), ours beside the published numbers",
    "deletion": "Word deletion (limerick paper): accuracy, ours beside the published numbers",
    "last_line": "Generated last line (limerick paper): accuracy, ours beside the published numbers",
}


def write_probe_tables(tables: dict[str, pd.DataFrame], out_dir: str | Path) -> list[Path]:
    from poemetric.tables.write import write_table

    written: list[Path] = []
    for name, frame in tables.items():
        written += write_table(frame, out_dir, f"probe_{name}", caption=CAPTIONS[name], digits=3)
    return written


def markdown_summary(tables: Mapping[str, ProbeTable] | Mapping[str, pd.DataFrame]) -> str:
    """The paper-shaped tables that hold rows of ours, as Markdown (of `probe_table_rows`, or of
    `probe_tables`: the same text)."""
    parts = []
    for name in ("bpomp", "deletion", "last_line"):
        table = tables[name]
        if isinstance(table, ProbeTable):
            ours, text = any(row["source"] == "ours" for row in table.rows), table.markdown()
        else:
            from poemetric.tables.write import to_markdown

            ours, text = bool((table["source"] == "ours").any()), to_markdown(table, digits=3)
        if ours:
            parts.append(f"**{CAPTIONS[name]}**\n\n{text}")
    return "\n".join(parts)
