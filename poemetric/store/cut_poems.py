"""The generated poems a run holds that the provider stopped at the token limit (finish reason
`length`, Anthropic's `max_tokens`, Gemini's `MAX_TOKENS`), per model.

Such a poem is stored as written and scored as it is: the form check and the judges see an
unfinished poem, a confound in its model's pass rate and scores, and the summary of `generate`
said "ok" of it.
`generate` (under its summary) and the analysis (its run-data notes) count them with this.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from poemetric.providers.finish_reasons import stopped_at_token_limit
from poemetric.store import HUMAN_AUTHOR
from poemetric.store.db import RunStore
from poemetric.text.plural import plural


@dataclass(frozen=True)
class CutPoems:
    """A model's stored poems (`held`: ok rows with a poem) and how many of them were `cut`,
    with the `max_tokens` their settings asked for (None: not set, the adapter's or the provider's default: Anthropic's adapter sends 4096)."""

    author: str
    cut: int
    held: int
    max_tokens: tuple[int | None, ...]
    #: Every cut poem was capped by `demo --local` (`record_demo_cap`), not by the model file,
    #: whose own max_tokens (None: not set) applies outside the demo.
    demo_capped: bool = False
    file_max_tokens: int | None = None

    def counted(self, where: str = "") -> str:
        """`6 of 6 poems{where} were cut at the token limit (max_tokens 256)`."""
        return (
            f"{self.cut:,} of {self.held:,} {plural(self.held, 'poem', 'poems')}{where} "
            f"{plural(self.cut, 'was', 'were')} cut at the token limit ({self.limits()})"
        )

    def listed(self, name: str | None = None) -> str:
        """`SmolLM2-135M-Instruct: 6 of 6, max_tokens 256`, for a list of models (`; `
        between); `name`: the model as shown (its display name), default its key."""
        return f"{name or self.author}: {self.cut:,} of {self.held:,}, {self.limits()}"

    def limits(self) -> str:
        """`max_tokens 256`, `max_tokens 256, 512`, or `max_tokens not set: ...`."""
        shown = [f"{limit:,}" for limit in self.max_tokens if limit is not None]
        if None in self.max_tokens:
            shown.append("not set: the adapter's or the provider's default")
        return f"max_tokens {', '.join(shown)}"


def cut_poems(store: RunStore, authors: Sequence[str] | None = None) -> list[CutPoems]:
    """The models (of `authors`; None: every model) with a poem cut at the token limit, by
    name."""
    rows = store.query(
        "SELECT author, finish_reason, settings FROM generations "
        "WHERE status = 'ok' AND poem IS NOT NULL AND author != ?",
        (HUMAN_AUTHOR,),
    )
    held: dict[str, int] = {}
    cut: dict[str, int] = {}
    limits: dict[str, set[int | None]] = {}
    for row in rows:
        author = str(row["author"])
        if authors is not None and author not in authors:
            continue
        held[author] = held.get(author, 0) + 1
        if stopped_at_token_limit(row["finish_reason"]):
            cut[author] = cut.get(author, 0) + 1
            limits.setdefault(author, set()).add(_max_tokens(row["settings"]))
    caps = store.get_meta(DEMO_CAPS_META_KEY, {}) or {}
    found = []
    for author in sorted(cut):
        cap = caps.get(author)
        capped = isinstance(cap, dict) and limits[author] == {cap.get("max_tokens")}
        own = cap.get("file_max_tokens") if isinstance(cap, dict) and capped else None
        own = own if isinstance(own, int) else None
        entry = CutPoems(author, cut[author], held[author], _ordered(limits[author]))
        found.append(replace(entry, demo_capped=capped, file_max_tokens=own))
    return found


#: Meta key: model -> the max_tokens `demo --local` capped its answers at, and its model
#: file's own (`record_demo_cap`).
DEMO_CAPS_META_KEY = "demo_token_caps"


def record_demo_cap(store: RunStore, model: str, cap: int, file_max_tokens: int | None) -> None:
    """Keep that `demo --local` asks `model` with max_tokens `cap` instead of its file's
    `file_max_tokens`: the run's note on cut poems then names the demo's cap, not the file's
    (raising the file's does nothing to a demo)."""
    record = {"max_tokens": cap, "file_max_tokens": file_max_tokens}
    store.update_meta(DEMO_CAPS_META_KEY, lambda held: {**(held or {}), model: record})


def _max_tokens(settings: str | None) -> int | None:
    """The `max_tokens` of a row's stored settings (None: not set, or not readable)."""
    try:
        value = json.loads(settings or "{}").get("max_tokens")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ordered(limits: set[int | None]) -> tuple[int | None, ...]:
    """The set limits in ascending order, an unset one (None) last."""
    return (*sorted(limit for limit in limits if limit is not None), *([None] * (None in limits)))
