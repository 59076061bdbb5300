"""The CLI starts without the heavy libraries: each command imports what it uses (issue 11)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer.main

import poemetric.cli
from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import form_cmd
from poemetric.cli.app import COMMANDS, app
from poemetric.form.checker import DEFAULT_THRESHOLD

#: What the remote providers import: none of it is needed to analyze a run.
PROVIDER_SDKS = ("anthropic", "google.genai", "openai")
HEAVY = ("pandas", "scipy", "matplotlib", "pyarrow", "httpx", "numpy", "pronouncing")


def test_cli_import_loads_no_heavy_library() -> None:
    code = (
        f"import sys, poemetric.cli.app\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "", f"`import poemetric.cli.app` loads {loaded}"


def _command_modules_loaded_by(*args: str) -> list[str]:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from poemetric.cli import app\n"
        f"assert CliRunner().invoke(app, {list(args)!r}).exit_code == 0\n"
        "print(' '.join(sorted(m for m in sys.modules if m.endswith('_cmd'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_commands_are_imported_only_when_used() -> None:
    assert _command_modules_loaded_by("--help") == []
    assert _command_modules_loaded_by("form", "check", "--help") == ["poemetric.cli.form_cmd"]


def test_a_group_split_over_modules_is_complete_when_one_was_imported_first() -> None:
    code = (
        "import poemetric.cli.ghostwriting_cmd\n"
        "from typer.testing import CliRunner\n"
        "from poemetric.cli import app\n"
        "result = CliRunner().invoke(app, ['ghostwriting', 'style-match', '--help'])\n"
        "print(result.exit_code)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"


def test_the_lazy_command_table_names_every_command() -> None:
    for module in pkgutil.iter_modules(poemetric.cli.__path__):
        if module.name.endswith("_cmd"):
            importlib.import_module(f"poemetric.cli.{module.name}")
    registered = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    unlisted = {name for name, command in registered.items() if name not in COMMANDS}
    assert not unlisted, f"add {unlisted} to poemetric.cli.app.COMMANDS"
    for name, lazy in COMMANDS.items():
        assert _modules_defining(registered[name]) == set(lazy.modules), name


def _modules_defining(command: Any) -> set[str]:
    if getattr(command, "commands", None):
        return set().union(*(_modules_defining(c) for c in command.commands.values()))
    return {command.callback.__module__}


def test_form_check_imports_no_analysis_library() -> None:
    code = (
        "import sys\n"
        "from poemetric.form.io import check_file\n"
        "print(','.join(m for m in ('pandas', 'scipy', 'matplotlib', 'pyarrow', 'httpx') "
        "if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "", f"the form check loads {loaded}"


def test_cli_threshold_default_matches_the_checker() -> None:
    assert form_cmd.DEFAULT_THRESHOLD == DEFAULT_THRESHOLD


def test_analyze_names_models_without_importing_the_provider_sdks(tmp_path: Path) -> None:
    """`analyze` on a run that recorded no display names reads them from the model files; the
    roster's provider checks imported anthropic, google-genai and openai for that (2 s of CPU
    at every start). The names still come from the files."""
    authors = (HUMAN_AUTHOR, "claude-3.7-sonnet", "gemini-2.5-pro")
    with build_synthetic_run(tmp_path, authors=authors, judges=("gpt-4o",), poems_per_form=1):
        pass
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from poemetric.cli import app\n"
        f"result = CliRunner().invoke(app, ['analyze', '--run', {str(tmp_path)!r}, '--no-progress'])\n"
        "assert result.exit_code == 0, result.output\n"
        f"print(','.join(m for m in {PROVIDER_SDKS!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "", f"`analyze` imports {done.stdout.strip()}"
    table = (tmp_path / "analysis" / "group_scores.md").read_text(encoding="utf-8")
    assert all(name in table for name in ("Claude-3.7-Sonnet", "Gemini-2.5-Pro", "GPT-4o"))


def test_listing_showing_and_a_dry_run_import_no_provider_sdk(tmp_path: Path) -> None:
    """`poemetric models`, `models show` and `generate --dry-run` load the whole roster, which
    loads each model's provider class; the adapters imported their SDK with their module (2 s of
    CPU at every start). The class attributes the roster reads need none, and the dry run still
    checks the keys of the models it would call."""
    run = str(tmp_path / "run")
    dry_run = ["generate", "--dry-run", "--models", "paper30", "--dataset", "demo"]
    commands = [
        ["models"],
        ["models", "--judges"],
        ["models", "show", "claude-3.7-sonnet"],
        [*dry_run, "--run", run, "--no-progress"],
    ]
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from poemetric.cli import app\n"
        f"for args in {commands!r}:\n"
        "    result = CliRunner().invoke(app, args)\n"
        "    assert result.exit_code == 0, result.output\n"
        "print(result.output)\n"
        f"print('loaded:', ','.join(m for m in {PROVIDER_SDKS!r} if m in sys.modules))"
    )
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment["COLUMNS"] = "250"  # the key hint on one line
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=environment
    )
    assert done.stdout.strip().splitlines()[-1] == "loaded:", done.stdout[-300:]
    assert "set the environment variable ANTHROPIC_API_KEY" in done.stdout
