"""Display names: recorded in the run when a model generates or judges, read back by figures,
tables and the report; older runs fall back to the model files, and a run whose model file is
gone still renders under the model's name."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted

from poemetric.analysis.labels import run_labels
from poemetric.generation.stage import run_generation
from poemetric.store.models import recorded_models


def test_display_names_are_recorded_when_a_model_generates(tmp_path: Path) -> None:
    use_scripted()
    store = prepared_store(tmp_path, poems=2)
    spec = scripted_spec(name="my-model", display_name="My Model 7B")
    run_generation(store, [spec], options=FAST)
    recorded = recorded_models(store)["generate"]["my-model"]
    assert recorded["display_name"] == "My Model 7B" and recorded["provider"] == "scripted"
    labels = run_labels(store)
    assert labels.author("my-model") == "My Model 7B" and labels.author("human") == "Human"
    # The run keeps the name it was made with, whatever the model files say later.
    run_generation(store, [scripted_spec(name="other", display_name="Other")], options=FAST)
    assert set(recorded_models(store)["generate"]) == {"my-model", "other"}
    assert run_labels(store).author("my-model") == "My Model 7B"


def test_runs_without_recorded_names_use_the_roster_then_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared = prepared_store(tmp_path / "run", poems=1)
    for author in ("gpt-4o", "gone-model"):
        prepared.conn.execute(
            "INSERT INTO generations (generation_id, prompt_id, poem_id, author, status, poem, "
            "created_at) SELECT ?, prompt_id, poem_id, ?, 'ok', 'x', 'now' FROM prompts",
            (f"g-{author}", author),
        )
    labels = run_labels(prepared)
    assert labels.author("gpt-4o") == "GPT-4o"  # from generators/gpt-4o.yaml
    assert labels.author("gone-model") == "gone-model"  # no file: the name itself
    # A broken model folder must not stop a report either.
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(tmp_path / "missing"))
    assert run_labels(prepared).author("gpt-4o") == "gpt-4o"
    prepared.close()
