"""Command-line interface (`poemetric --help`)."""

from poemetric.cli.app import app, main

__all__ = ["app", "main"]
