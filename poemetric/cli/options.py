"""Options shared by several subcommands, so every command spells them the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

DEFAULT_RUN = Path("runs/default")

RunOption = typer.Option(
    DEFAULT_RUN, "--run", "-r", help="Run directory (holds poemetric.sqlite and outputs)."
)
DatasetOption = typer.Option(
    "demo",
    "--dataset",
    "-d",
    help="Dataset: 'demo' (bundled), 'poemetric' (after `poemetric dataset fetch poemetric`), "
    "or a path to a CSV/JSONL/Parquet file.",
)
ModelsOption = typer.Option(
    "markov",
    "--models",
    "-m",
    help="Comma-separated model names or groups from generators/ (e.g. 'gpt-4o,qwen2.5-7b-instruct'"
    " or 'paper30'). The human author is always included.",
)
JudgeOption = typer.Option(
    None, "--judge", "-j", help="Judge name from judges/ (e.g. 'gemini-2.5-pro')."
)
LimitOption = typer.Option(
    None, "--limit", "-n", min=1, help="Only the first N poems of the dataset (quick trials)."
)


def experts_option(purpose: str) -> Any:
    """`--experts FILE`: human expert ratings (long or wide format, docs/survey.md); `purpose`
    says what the command does with them."""
    return typer.Option(
        None,
        "--experts",
        "-e",
        exists=True,
        dir_okay=False,
        help=f"Expert ratings file, long or wide format (docs/survey.md); {purpose}",
    )
