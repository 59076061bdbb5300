"""Display names: recorded in the run when a model generates or judges, read back by figures,
tables and the report; older runs fall back to the model files, and a run whose model file is
gone still renders under the model's name."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted

from poemetric.analysis.labels import Labels, run_labels, shorten, shortened_names
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


SMALL = "mistralai/Mistral-Small-3.1-24B-Instruct-2503"
LARGE = "mistralai/Mistral-Large-2.1-123B-Instruct-2503"


def test_two_long_names_are_never_cut_to_the_same_name() -> None:
    """Both Mistral names were cut to 'mistralai/Mistra…nstruct-2503': two authors with one
    name in every figure."""
    assert shorten(SMALL, 29) == shorten(LARGE, 29)  # the usual cut makes them alike
    cut = shortened_names([SMALL, LARGE, "GPT-4o"], 29)
    assert cut[SMALL] != cut[LARGE] and cut["GPT-4o"] == "GPT-4o"
    assert all(len(short) <= 29 and "…" in short for short in (cut[SMALL], cut[LARGE]))
    assert cut[SMALL].startswith("mistralai/Mistral-") and cut[LARGE].startswith("mistralai/")
    # Names alike everywhere a cut can show (they differ only deep in the middle) get a number.
    twins = [f"{'a' * 30}{middle}{'b' * 30}" for middle in "xy"]
    numbered = shortened_names(twins, 29)
    assert sorted(numbered.values()) == [shorten(twins[0], 25) + " (1)",
                                         shorten(twins[0], 25) + " (2)"]  # fmt: skip
    # A name that fits keeps its form even when it reads like another's cut.
    fits = shorten(SMALL, 29)
    assert shortened_names([SMALL, fits], 29)[fits] == fits
    assert shortened_names([SMALL, fits], 29)[SMALL] != fits
    labels = Labels(authors={"small": SMALL, "large": LARGE}).shortened(29)
    assert labels.author("small") == cut[SMALL] and labels.author("large") == cut[LARGE]
