"""CLI commands: merge (being written)."""

from __future__ import annotations

from poemetric.cli.app import app  # noqa: F401
