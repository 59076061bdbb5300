"""Run store: one SQLite database per run directory."""

from poemetric.store.db import RunStore, StoreError, stable_id, utc_now

__all__ = ["RunStore", "StoreError", "stable_id", "utc_now"]
