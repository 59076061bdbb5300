"""Run store: one SQLite database per run directory."""

from poemetric.store.connect import ReadOnlyStoreError, StoreWriteError
from poemetric.store.db import RunStore, StoreError, stable_id, utc_now

#: The author id of a run's human poems (the dataset's own, stored by run preparation).
HUMAN_AUTHOR = "human"


def generation_id_for(prompt_id: str, author: str, sample_index: int) -> str:
    """The id of one generation: run preparation stores the human poems' under it, the
    generation stage the models' answers."""
    return stable_id("generation", prompt_id, author, sample_index)


__all__ = [
    "HUMAN_AUTHOR",
    "ReadOnlyStoreError",
    "RunStore",
    "StoreError",
    "StoreWriteError",
    "generation_id_for",
    "stable_id",
    "utc_now",
]
