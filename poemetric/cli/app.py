"""The `poemetric` command line: one subcommand per pipeline stage."""

from __future__ import annotations

import gc

import typer

from poemetric import __version__

app = typer.Typer(
    name="poemetric",
    help=(
        "Measure how well LLMs write fixed-form poetry, and how far they are from human poets.\n\n"
        "Pipeline: dataset -> prompts -> generate -> form / judge -> analyze -> figures / report.\n"
        "Each stage reads the previous stage's results from the run store (RUN/poemetric.sqlite)"
        " and can be re-run alone.\n\n"
        "Start with `poemetric demo` (offline, no keys, no GPU)."
    ),
    no_args_is_help=True,
    rich_markup_mode="markdown",
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"poemetric {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """POEMetric command line."""


def _register() -> None:
    # Each module adds its own commands to `app`; imported here so `app` is complete.
    from poemetric.cli import (  # noqa: F401
        agree_cmd,
        analyze_cmd,
        dataset_cmd,
        demo_cmd,
        export_cmd,
        form_cmd,
        generate_cmd,
        ghostwriting_cmd,
        ghostwriting_protocols_cmd,
        judge_cmd,
        merge_cmd,
        models_cmd,
        probe_cmd,
        prompts_cmd,
        report_cmd,
        survey_cmd,
    )


_register()


def main() -> None:
    try:
        app()
    finally:
        # The process is about to end: spare the garbage collector's final passes over what the
        # command built (the form checker's caches took 1.5 s to tear down after 1,630 poems).
        gc.freeze()
