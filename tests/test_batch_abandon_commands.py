"""Every `batches abandon` command that poemetric prints works when pasted as printed: the
run directory shell-quoted (a space in it split the command), the program as the user started it
(`poemetric`, or make's `.venv/bin/poemetric`: `batches list` wrote a bare `poemetric`), and
`--force` exactly when the command asks for it (a finished batch whose download failed was told
to use --force, which only a batch that may still be answered needs). Each command is split
with shlex and run through the real CLI."""

from __future__ import annotations

import dataclasses
import re
import shlex
import sys
from pathlib import Path

import pytest
from test_runner_batch_faults import BATCH, spec_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store
from typer.testing import CliRunner, Result

from poemetric.cli import app
from poemetric.cli.interrupt import _giving_up
from poemetric.generation.stage import run_generation
from poemetric.hints import MAKE_ENV
from poemetric.runner.batch_intent import (
    keep_submission,
    lost_advice,
    note_submission,
    unconfirmed_reason,
)
from poemetric.runner.batch_table import batch_rows, record_batch, update_batch
from poemetric.runner.batch_unknown import mark_not_found, unknown_batch_advice
from poemetric.store.db import RunStore
from poemetric.testing.servers import Fault, OpenAIServer

#: The program as make runs it: a path, with a space, to the venv's `poemetric`.
MADE = "/opt/my tools/.venv/bin/poemetric"
WHERE = ("openai-compatible", "remote", "generations")


def abandon_commands(text: str, program: str) -> list[str]:
    """The `batches abandon` commands in `text`, as printed (in backticks or on lines)."""
    return re.findall(re.escape(f"{shlex.quote(program)} batches abandon ") + r"[^`\n]*", text)


def run_as_printed(command: str, program: str) -> Result:
    words = shlex.split(command)
    assert words[0] == program, command
    return CliRunner().invoke(app, words[1:], env={"COLUMNS": "400"})


def status(store: RunStore, batch_id: str) -> str:
    (row,) = store.query("SELECT status FROM batches WHERE batch_id = ?", (batch_id,))
    return str(row["status"])


def test_every_printed_abandon_command_works_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAKE_ENV, "1")
    monkeypatch.setattr(sys, "argv", [MADE, "batches", "list"])
    run = tmp_path / "my runs" / "paper run"
    store = prepared_store(run, poems=1)
    marker = note_submission(store, WHERE, {"k1": "c1", "k2": "c2"}, {})
    keep_submission(store, marker, "read timeout")  # the answer lost: the row stays
    record_batch(store, "batch_gone", WHERE, {"k3": "c3"}, {})
    mark_not_found(store, "batch_gone", 404, "No batch found with id 'batch_gone'")
    record_batch(store, "batch_done", WHERE, {"k4": "c4"}, {})
    update_batch(store, "batch_done", "completed", {"state": "completed", "collect_error": "500"})
    rows = {row.batch_id: row for row in batch_rows(store)}

    listed = CliRunner().invoke(app, ["batches", "list", "--run", str(run)], env={"COLUMNS": "400"})
    assert listed.exit_code == 0, listed.output
    texts = {
        "batches list": listed.output,
        "lost answer": lost_advice(store, marker),  # an untagged row: by hand
        "killed submission": unconfirmed_reason(store, "generations", [(marker, 2)]),
        "unknown batch": unknown_batch_advice(
            openai_spec("http://127.0.0.1:9"), ("batch_gone", 404), run
        ),
        "interrupt, not found": _giving_up([rows["batch_gone"]], run),
        "interrupt, ended": _giving_up([rows["batch_done"]], run),
    }
    found = {name: abandon_commands(text, MADE) for name, text in texts.items()}
    assert all(found.values()), found
    for name, text in texts.items():  # none printed with a bare `poemetric`
        assert len(re.findall(r"batches abandon [^`\n]* --run ", text)) == len(found[name]), text
    commands = {command for listed_here in found.values() for command in listed_here}
    where = f"--run {shlex.quote(str(run))}"
    assert commands == {
        f"{shlex.quote(MADE)} batches abandon {marker} {where} --force",
        f"{shlex.quote(MADE)} batches abandon batch_gone {where} --force",
        f"{shlex.quote(MADE)} batches abandon batch_done {where}",  # ended: no --force needed
    }, found

    for command in sorted(commands):
        if command.endswith(" --force"):  # needed: without it the command refuses
            refused = run_as_printed(command.removesuffix(" --force"), MADE)
            assert refused.exit_code != 0 and "with --force" in refused.output, refused.output
        given_up = run_as_printed(command, MADE)
        assert given_up.exit_code == 0, (command, given_up.output)
        assert "abandoned" in given_up.output, given_up.output
    assert {batch_id: status(store, batch_id) for batch_id in rows} == dict.fromkeys(
        rows, "abandoned"
    )
    store.close()


def test_the_open_batch_hint_of_a_run_without_batch_works_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint of a run (and a plan) without --batch that leaves jobs to an open batch."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    monkeypatch.delenv(MAKE_ENV, raising=False)
    run = tmp_path / "my runs" / "paper run"
    store = prepared_store(run, poems=2)
    faults = [None, *[Fault.server_error(502)] * 3]  # submitted; then 3 polls fail
    with OpenAIServer(api_key=TEST_KEY, batch_faults=faults) as server:
        spec = spec_for(server, "remote", max_retries=2)
        assert run_generation(store, [spec], options=BATCH).models[0].left_pending == 2
        (batch_id,) = [row.batch_id for row in batch_rows(store)]
        direct = dataclasses.replace(BATCH, batch=False)
        warnings = [
            warning
            for options in (dataclasses.replace(direct, dry_run=True), direct)
            for warning in run_generation(store, [spec], options=options).models[0].warnings
        ]
    commands = {command for text in warnings for command in abandon_commands(text, "poemetric")}
    assert commands == {
        f"poemetric batches abandon {batch_id} --run {shlex.quote(str(run))} --force"
    }, warnings
    (command,) = commands
    given_up = run_as_printed(command, "poemetric")
    assert given_up.exit_code == 0, given_up.output
    assert status(store, batch_id) == "abandoned"
    store.close()
