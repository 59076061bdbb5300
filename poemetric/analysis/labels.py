"""Display names of authors and judges for figures, tables and the report.

A model's name (`gpt-4o`) is its key everywhere in the run store and in CSV files; people read
its `display_name` (`GPT-4o`). The name shown is, in order: the display name recorded in the run
when the model generated or judged (`poemetric.store.models`), the display name in the current
model file (runs made before names were recorded), or the name itself (a model file that is
gone). So a run always renders, and renders as it was run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.experts import EXPERTS_JUDGE
from poemetric.store import RunStore
from poemetric.store.models import recorded_models
from poemetric.suggest import name_hint

HUMAN_LABEL = "Human"
EXPERTS_LABEL = "Human experts"


@dataclass(frozen=True)
class Labels:
    """name -> display name, for authors (generators) and judges."""

    authors: dict[str, str] = field(default_factory=dict)
    judges: dict[str, str] = field(default_factory=dict)

    def author(self, name: str) -> str:
        if name == HUMAN_AUTHOR:
            return self.authors.get(name, HUMAN_LABEL)
        return self.authors.get(name, name)

    def judge(self, name: str) -> str:
        if name == EXPERTS_JUDGE:
            return self.judges.get(name, EXPERTS_LABEL)
        return self.judges.get(name, name)

    def author_list(self, names: Iterable[str]) -> list[str]:
        return [self.author(n) for n in names]

    def shortened(self, limit: int) -> Labels:
        """The authors' names cut in the middle to at most `limit` characters, two different
        names never to the same one (`shortened_names`; judges are named in legends and titles,
        which have room)."""
        cut = shortened_names(self.authors.values(), limit)
        return Labels({k: cut[v] for k, v in self.authors.items()}, self.judges)


def _head(limit: int) -> int:
    return math.ceil((limit - 1) * 0.55)


def shorten(name: str, limit: int, head: int | None = None) -> str:
    """`name` cut in the middle to `limit` characters, keeping its start (the family) and its
    end (size, version): `Mistral-Small-3…-Instruct-2503`; `head` characters before the cut
    (default 55% of those kept)."""
    if len(name) <= limit:
        return name
    head = _head(limit) if head is None else head
    return name[:head] + "…" + name[len(name) - (limit - 1 - head) :]


def shortened_names(names: Iterable[str], limit: int) -> dict[str, str]:
    """name -> the name cut to at most `limit` characters (`shorten`), the cut names distinct:
    names that the usual cut makes alike (`…-Instruct-2503` of two long Mistral names) are cut
    elsewhere, at the split nearest the usual one that tells them apart; names alike at every
    split get a number, `… (2)`."""
    distinct = sorted(set(names))
    cut = {name: shorten(name, limit) for name in distinct}
    groups: dict[str, list[str]] = {}
    for name in distinct:
        groups.setdefault(cut[name], []).append(name)
    for shown, group in sorted(groups.items()):
        clashing = [n for n in group if n != shown]  # a name that fits keeps its form
        if len(group) < 2 or not clashing:
            continue
        others = {cut[n] for n in distinct if n not in clashing}
        cut |= _apart(clashing, limit, others)
    return cut


def _apart(names: list[str], limit: int, others: set[str]) -> dict[str, str]:
    """`names` (all longer than `limit`) cut to distinct names that none of `others` is."""
    splits = sorted(range(1, limit - 1), key=lambda head: (abs(head - _head(limit)), -head))
    for head in splits:
        cut = {name: shorten(name, limit, head) for name in names}
        if len(set(cut.values())) == len(names) and not others & set(cut.values()):
            return cut
    numbered = {}
    for index, name in enumerate(names, start=1):
        tag = f" ({index})"
        numbered[name] = shorten(name, limit - len(tag)) + tag
    return numbered


def _roster_labels(kind: str) -> dict[str, str]:
    # The roster is optional here: a broken or missing model folder must not stop a report.
    # Only display names are read: the provider checks would import every provider's SDK
    # (anthropic, google-genai, openai: about 2 s of `analyze`'s start).
    from poemetric.roster import RosterError, load_catalog

    try:
        roster = load_catalog(kind, check_providers=False).specs()  # type: ignore[arg-type]
    except (RosterError, OSError):
        return {}
    return {name: spec.label for name, spec in roster.items()}


def run_labels(store: RunStore) -> Labels:
    """Display names for every author and judge of the run (see module docstring)."""
    recorded = recorded_models(store)
    authors = [r[0] for r in store.query("SELECT DISTINCT author FROM generations")]
    # A judge that only ran `judge recognise` is named in the recognition table and its notes.
    judges = [
        r[0]
        for r in store.query(
            "SELECT judge FROM judgments UNION SELECT judge FROM recognitions ORDER BY judge"
        )
    ]
    result = Labels()
    for names, stage, kind, target in (
        (authors, "generate", "generators", result.authors),
        (judges, "judge", "judges", result.judges),
    ):
        stored = {n: str(r.get("display_name") or n) for n, r in recorded.get(stage, {}).items()}
        missing = [n for n in names if n not in stored and n != HUMAN_AUTHOR]
        fallback = _roster_labels(kind) if missing else {}
        for name in names:
            target[name] = stored.get(name) or fallback.get(name) or name
    result.authors[HUMAN_AUTHOR] = HUMAN_LABEL
    result.judges.setdefault(EXPERTS_JUDGE, EXPERTS_LABEL)
    return result


def author_hint(store: RunStore, name: str, authors: Iterable[str]) -> str:
    """For `--authors NAME`, no author of the store's run: ` ('Markov baseline' is the display
    name of 'markov')` when NAME is an author's label (tables, figures and the report show it),
    else a close author name (`did_you_mean`), else ''."""
    return name_hint(name, authors, run_labels(store).authors)
