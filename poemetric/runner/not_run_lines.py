"""The "cannot run" lines under a stage's summary, one per cause.

`generate --models paper30 --dry-run` on a machine without vLLM or keys printed 30 lines, one
per model, most of them the same cause: 20 "uses provider 'vllm', but vLLM is not installed"
and 7 "needs an API key: set OPENAI_API_KEY"-like lines. Models whose reasons differ only by
their own name now share one line that names them all; a model alone with its cause keeps its
own line, worded as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from poemetric.text.plural import counted


@dataclass(frozen=True)
class NotRunLine:
    """One line: the models, the jobs they left pending, and the cause."""

    models: tuple[str, ...]
    pending: int
    reason: str

    def head(self) -> str:
        """`gpt-4o cannot run (2 jobs left pending)`, or for several models `3 models cannot
        run (6 jobs left pending: gpt-4, gpt-4o, o1)`."""
        jobs = counted(self.pending, "job")
        if len(self.models) == 1:
            return f"{self.models[0]} cannot run ({jobs} left pending)"
        names = ", ".join(self.models)
        return f"{len(self.models)} models cannot run ({jobs} left pending: {names})"


def _shared(model: str, reason: str) -> str:
    """`reason` with the model's own name taken out (`model 'gpt-4o' (provider ...)` reads
    `each model (provider ...)`), and its own file's place (`, generators/gpt-4o.yaml:3)`, of a
    missing key), so that models with the same cause compare equal."""
    own_file = re.compile(r", [^,()]*\b" + re.escape(model) + r"\.ya?ml:\d+\)")
    reason = own_file.sub(")", reason)
    return reason.replace(f"model '{model}'", "each model").replace(f"'{model}'", "each model")


def not_run_lines(entries: Iterable[tuple[str, int, str]]) -> list[NotRunLine]:
    """`(model, jobs left pending, reason)` grouped by cause, in the order of each cause's first
    model."""
    groups: dict[str, list[tuple[str, int, str]]] = {}
    for model, pending, reason in entries:
        groups.setdefault(_shared(model, reason), []).append((model, pending, reason))
    lines = []
    for shared, members in groups.items():
        reason = members[0][2] if len(members) == 1 else shared
        total = sum(pending for _, pending, _ in members)
        lines.append(NotRunLine(tuple(model for model, _, _ in members), total, reason))
    return lines
