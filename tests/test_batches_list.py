"""`poemetric batches list` at 80 columns (a log, a pipe, a narrow terminal) keeps every batch
id whole: the table cut OpenAI's ids to `batch_68…`, and `batches abandon` needs the id.
The real openai SDK submits the batches to the local OpenAI server, which names them as the API
does (`batch_` and 32 hex digits)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from test_runner_batch_faults import BATCH, spec_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.runner.batch_table import batch_rows
from poemetric.testing.servers import OpenAIServer


class LongIdServer(OpenAIServer):
    """Batch ids as long as the API's (`batch_6820f0a3c1b48190a1b2c3d4e5f60718`)."""

    _serial = itertools.count(1)

    def new_id(self, prefix: str) -> str:
        if prefix != "batch_":
            return super().new_id(prefix)
        return f"batch_6820f0a3c1b48190a1b2c3d4{next(self._serial):08x}"


def test_batch_ids_stay_whole_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    with LongIdServer() as server, prepared_store(tmp_path, poems=2) as store:
        specs = [spec_for(server, "gpt-4o-mini-2024-07-18"), spec_for(server, "model-two")]
        run_generation(store, specs, options=BATCH)
        ids = [row.batch_id for row in batch_rows(store)]
    assert len(ids) == 2 and all(len(i) == 38 for i in ids)
    listed = CliRunner().invoke(
        app, ["batches", "list", "--run", str(tmp_path)], env={"COLUMNS": "80"}
    )
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert "…" not in listed.output and max(map(len, lines)) <= 80, listed.output
    assert set(ids) <= {line.strip() for line in lines}, listed.output
    assert "generations, model-two: collected, 2 jobs" in listed.output
    wide = CliRunner().invoke(
        app, ["batches", "list", "--run", str(tmp_path)], env={"COLUMNS": "200"}
    )
    assert all(f"│ {i} │" in wide.output for i in ids), wide.output
