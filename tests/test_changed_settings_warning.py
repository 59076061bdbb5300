"""A model file edited between two runs of one run directory (a temperature, a seed): the stored
answers are kept, and the run says that they were made in the other configuration, as it does for
another model id, and as `merge` does for two stores (`mixed: ...`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted

from poemetric.generation.stage import run_generation
from poemetric.store.models import recorded_models


def test_edited_settings_keep_the_answers_and_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=4)
    before = scripted_spec(settings={"temperature": 0.7, "seed": 3})
    run_generation(store, [before], options=dataclasses.replace(FAST, limit=2))
    capsys.readouterr()

    # The same settings written otherwise (1 for 1.0, keys reordered) are no change.
    same = scripted_spec(settings={"seed": 3, "temperature": 0.70})
    run_generation(store, [same], options=dataclasses.replace(FAST, limit=2))
    assert "warning" not in capsys.readouterr().err

    after = scripted_spec(settings={"temperature": 1.0, "seed": 3})
    report = run_generation(store, [after], options=FAST)
    said = " ".join(capsys.readouterr().err.split())
    assert said.startswith(
        "warning: scripted-model: this run's generate answers so far came from settings "
        "temperature=0.7; its file now names settings temperature=1.0. Stored answers are kept"
    ), said
    # Kept: only the two missing poems were asked, with the new settings.
    assert report.models[0].already_done == 2 and len(provider.calls) == 4
    assert [c.settings.temperature for c in provider.calls[2:]] == [1.0, 1.0]
    assert recorded_models(store)["generate"]["scripted-model"]["settings"]["temperature"] == 1.0


def test_a_changed_model_id_is_still_named_as_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_scripted()
    store = prepared_store(tmp_path, poems=2)
    run_generation(store, [scripted_spec(model="scripted-1")], options=FAST)
    capsys.readouterr()
    run_generation(store, [scripted_spec(model="scripted-2", settings={"seed": 1})], options=FAST)
    said = " ".join(capsys.readouterr().err.split())
    assert said.startswith(
        "warning: scripted-model: this run's generate answers so far came from model "
        "'scripted-1'; its file now names 'scripted-2'."
    ), said
    assert "warning" not in said[1:]  # one warning, of the model id: not of its seed too
    # The seed set for the second run and unset for the third is named as such.
    run_generation(store, [scripted_spec(model="scripted-2")], options=FAST)
    said = " ".join(capsys.readouterr().err.split())
    assert said.startswith(
        "warning: scripted-model: this run's generate answers so far came from settings seed=1; its "
        "file now names settings seed unset."
    ), said


def test_a_key_in_the_changed_settings_is_not_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_scripted()
    store = prepared_store(tmp_path, poems=2)
    key = "sk-proj-Users0wnRealLookingKey0123456789abcdefXYZ"
    run_generation(store, [scripted_spec(settings={"extra": {"api_key": key}})], options=FAST)
    capsys.readouterr()
    run_generation(store, [scripted_spec()], options=FAST)
    said = capsys.readouterr().err
    assert "settings extra=" in said and key not in said and key[:12] not in said


def test_the_warning_names_the_model_the_stored_answers_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that asked nothing (every answer stored) still recorded its file's model id, so the
    next run's warning named that model as the one the answers came from: it names the model id
    of the stored answers, and a file back to that model is no change."""
    use_scripted()
    store = prepared_store(tmp_path, poems=2)
    run_generation(store, [scripted_spec(model="scripted-1")], options=FAST)
    run_generation(store, [scripted_spec(model="scripted-2")], options=FAST)  # asks nothing
    capsys.readouterr()
    run_generation(store, [scripted_spec(model="scripted-3")], options=FAST)
    said = " ".join(capsys.readouterr().err.split())
    assert said.startswith(
        "warning: scripted-model: this run's generate answers so far came from model "
        "'scripted-1'; its file now names 'scripted-3'."
    ), said
    run_generation(store, [scripted_spec(model="scripted-1")], options=FAST)
    assert "warning" not in capsys.readouterr().err


def test_analysis_says_whose_answers_a_relabelled_model_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model file pointed at another model, run again when every answer was stored (nothing
    asked): tables, figures and the report labelled every answer with the new model's name, with
    no word that none came from it. The analysis says whose they are."""
    from poemetric.analysis import analyze_run

    use_scripted()
    store = prepared_store(tmp_path, poems=2)
    run_generation(store, [scripted_spec(model="scripted-1")], options=FAST)
    assert not [n for n in analyze_run(store).notes if "labelled as its file" in n]
    run_generation(store, [scripted_spec(model="scripted-2")], options=FAST)  # asks nothing
    run_generation(store, [scripted_spec(model="scripted-3")], options=FAST)  # nor this
    capsys.readouterr()
    said = [n for n in analyze_run(store).notes if "labelled as its file" in n]
    assert said == [
        "generate: scripted-model is labelled as its file names it now (model 'scripted-3'), "
        "but of its 2 stored answers 2 under model 'scripted-1' were made while its file named "
        "that model: to tell them apart, give each model its own file name or use a new --run"
    ]
    # Back to the model of every answer: nothing to say.
    run_generation(store, [scripted_spec(model="scripted-1")], options=FAST)
    assert not [n for n in analyze_run(store).notes if "labelled as its file" in n]


def test_the_relabelled_note_counts_one_answer_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One stored answer: "of its 1 stored answer 1 ... was made", not "1 stored answers"."""
    from poemetric.analysis import analyze_run

    use_scripted()
    store = prepared_store(tmp_path, poems=1)
    run_generation(store, [scripted_spec(model="scripted-1")], options=FAST)
    run_generation(store, [scripted_spec(model="scripted-2")], options=FAST)  # asks nothing
    capsys.readouterr()
    assert [n for n in analyze_run(store).notes if "labelled as its file" in n] == [
        "generate: scripted-model is labelled as its file names it now (model 'scripted-2'), "
        "but of its 1 stored answer 1 under model 'scripted-1' was made while its file named "
        "that model: to tell them apart, give each model its own file name or use a new --run"
    ]
