"""Run store: one SQLite database per run directory."""

from poemetric.store.connect import ReadOnlyStoreError
from poemetric.store.db import RunStore, StoreError, stable_id, utc_now

#: The author id of a run's human poems (the dataset's own, stored by run preparation).
HUMAN_AUTHOR = "human"

__all__ = ["HUMAN_AUTHOR", "ReadOnlyStoreError", "RunStore", "StoreError", "stable_id", "utc_now"]
