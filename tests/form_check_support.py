"""`poemetric form check` of one raw model answer, as the extraction tests read it back; a run
of one limerick prompt for the form stage's tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.store import RunStore


def checked_answer(tmp_path: Path, answer: str, form: str) -> dict[str, Any]:
    """The output record of `form check` on a JSONL file holding `answer` for `form`."""
    source = tmp_path / "answers.jsonl"
    source.write_text(json.dumps({"text": answer, "form": form}) + "\n", encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    result = CliRunner().invoke(app, ["form", "check", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return record


def limerick_run(
    run_dir: Path, content: str, meter: str | None, answers: dict[str, tuple[str, str]]
) -> RunStore:
    """A run of one limerick prompt (`content`, annotated with `meter` and AABBA) and its
    answers, generation id -> (author, poem); open: close it, or use it in `with`."""
    store = RunStore(run_dir)
    store.add_poems(
        [{"poem_id": "p1", "dataset": "t", "position": 0, "form": "Limerick",
          "content": content, "meter": meter, "rhyme": "AABBA", "record": "{}"}]
    )  # fmt: skip
    template = store.add_template("t", "Write a {form}")
    store.add_prompts(
        [{"prompt_id": "q1", "poem_id": "p1", "template_hash": template, "text": "a limerick"}]
    )
    for gid, (author, text) in answers.items():
        store.save_generation(
            {"generation_id": gid, "prompt_id": "q1", "poem_id": "p1", "author": author,
             "status": "ok", "poem": text}
        )  # fmt: skip
    return store
