"""Every command that writes files accepts each spelling of its output option.

Commands named their output three ways: `--out` (analyze, figures, report, sheets), `--to`
(export) and `--output`/`-o` (form check, judge parse, probe), so `poemetric export --run demo
--out x` said "No such option: --out". Each keeps its own name first (its messages use it)
and accepts the others, `-o` included; `--help` lists them together.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
import typer.main
from test_export_wording import one_poem_run_at
from typer.testing import CliRunner

from poemetric.cli import app

NAMES = {"--out", "--output", "--to", "-o"}
#: Each command's own name for its output, as before the aliases (the first of its names).
PRIMARY = {
    "analyze": "--out",
    "figures": "--out",
    "report": "--out",
    "export": "--to",
    "form check": "--output",
    "judge parse": "--output",
    "probe build": "--output",
    "probe run": "--output",
    "probe report": "--output",
    "ghostwriting metrics": "--out",
    "ghostwriting sheets": "--out",
    "survey sheets": "--out",
    "merge": "--into",
}
runner = CliRunner()


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    if hasattr(group, "commands"):
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):
            yield from _commands(group.get_command(ctx, name), (*path, name))
    else:
        yield " ".join(path), group


def test_every_output_option_has_every_name_and_keeps_its_own_first() -> None:
    found = {}
    for path, command in _commands(typer.main.get_command(app)):
        for param in command.params:
            opts = [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]
            if NAMES & set(opts):
                assert set(opts) >= NAMES, f"{path}: {opts}"
                found[path] = opts[0]
    assert found == PRIMARY


def test_help_lists_the_aliases() -> None:
    shown = runner.invoke(app, ["export", "--help"], env={"COLUMNS": "120"}).output
    # `-o` on its own: `"-o" in shown` held for any help that shows `--out`
    assert re.search(r"--to,--out,--output\s+-o\s", shown), shown


def test_export_takes_out_and_form_check_takes_to(tmp_path: Path) -> None:
    run = one_poem_run_at(tmp_path / "run")
    for name in ("--out", "--output", "-o"):
        folder = tmp_path / f"export{name}"
        result = runner.invoke(app, ["export", "poems", "--run", str(run), name, str(folder)])
        assert result.exit_code == 0, result.output  # was 2: No such option: --out
        assert (folder / "poems.csv").is_file()
    poems = tmp_path / "poems.jsonl"
    poems.write_text(json.dumps({"id": "a", "form": "limerick", "content": "a\nb\nc\nd\ne"}) + "\n")
    checks = tmp_path / "checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(poems), "--to", str(checks)])
    assert result.exit_code == 0, result.output
    assert json.loads(checks.read_text().splitlines()[0])["id"] == "a"


def test_merge_takes_the_output_names_beside_into(tmp_path: Path) -> None:
    """`merge --into` names the run folder it writes: `merge a b -o runs/x` said "No such option:
    -o" while every other command that writes files takes these names."""
    run = one_poem_run_at(tmp_path / "run")
    for name in ("--into", "--out", "--output", "--to", "-o"):
        folder = tmp_path / f"merged{name}"
        result = runner.invoke(app, ["merge", str(run), name, str(folder)])
        assert result.exit_code == 0, result.output  # was 2: No such option
        assert (folder / "poemetric.sqlite").is_file()
    missing = runner.invoke(app, ["merge", str(run)], env={"COLUMNS": "200"}).output
    assert "Missing option '--into'" in missing  # its own name first
