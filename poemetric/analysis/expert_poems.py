"""Which generation of the run an expert-ratings row names: a generation_id (`poem` or
`generation_id`), the code a survey's printed sheets give it (`poemetric.store.poem_codes`), or
`poem_id` + `author` + optional `sample_index`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from poemetric.store import RunStore
from poemetric.store.poem_codes import sheet_codes


class PoemResolver:
    """Maps a row's poem columns to a successful generation of the run."""

    def __init__(self, store: RunStore, path: Path, header: set[str]) -> None:
        self.header = header
        self.id_column = next((c for c in ("poem", "generation_id") if c in header), None)
        generations = ok_generations(store)
        self.known = set(generations["generation_id"])
        self.codes = sheet_codes(store)
        self.by_key = {
            (str(p), str(a), int(s)): str(g)
            for g, p, a, s in zip(
                generations["generation_id"],
                generations["poem_id"],
                generations["author"],
                generations["sample_index"],
                strict=True,
            )
        }

    def missing_columns(self) -> list[str]:
        if self.id_column or {"poem_id", "author"} <= self.header:
            return []
        return ["poem or generation_id (or poem_id and author)"]

    def resolve(self, raw: dict[str, str], where: str, problems: list[str]) -> str | None:
        if self.id_column and raw.get(self.id_column):
            named = raw[self.id_column]
            generation_id = named if named in self.known else self.codes.get(named, named)
            if generation_id not in self.known:
                problems.append(
                    f"{where}: {self.id_column} {named!r} is not a successful "
                    "generation of this run"
                    + (" nor the code of one on its survey sheets" if self.codes else "")
                )
                return None
            return generation_id
        if self.id_column and not {"poem_id", "author"} <= self.header:
            # not "no successful generation for poem_id='', author=''" (columns it lacks)
            problems.append(f"{where}: empty {self.id_column}")
            return None
        try:
            sample = int(raw.get("sample_index") or 0)
        except ValueError:
            problems.append(f"{where}: sample_index {raw.get('sample_index')!r} is not an integer")
            return None
        key = (raw.get("poem_id", ""), raw.get("author", ""), sample)
        if key not in self.by_key:
            problems.append(
                f"{where}: no successful generation for poem_id={key[0]!r}, "
                f"author={key[1]!r}, sample_index={sample}"
            )
            return None
        return self.by_key[key]


def ok_generations(store: RunStore) -> pd.DataFrame:
    """The run's successful generations: generation_id, poem_id, author, sample_index and the
    poem's form (poem_form)."""
    return pd.read_sql_query(
        "SELECT g.generation_id, g.poem_id, g.author, g.sample_index, p.form AS poem_form "
        "FROM generations g JOIN poems p ON p.poem_id = g.poem_id WHERE g.status = 'ok'",
        store.conn,
    )
