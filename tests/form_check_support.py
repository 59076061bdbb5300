"""`poemetric form check` of one raw model answer, as the extraction tests read it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from poemetric.cli.app import app


def checked_answer(tmp_path: Path, answer: str, form: str) -> dict[str, Any]:
    """The output record of `form check` on a JSONL file holding `answer` for `form`."""
    source = tmp_path / "answers.jsonl"
    source.write_text(json.dumps({"text": answer, "form": form}) + "\n", encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    result = CliRunner().invoke(app, ["form", "check", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return record
