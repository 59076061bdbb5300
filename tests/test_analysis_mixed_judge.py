"""`analyze` says when one judge's judgments came from more than one configuration.

A judge file edited between two `poemetric judge` commands on one run (another temperature,
another model behind the same name) keeps the stored answers and asks the missing ones with the
new configuration. The judge stage warned once, on stderr; every table afterwards pooled both
under one judge name and `analyze` (NOTES.txt, the report) said nothing.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    openai_spec,
    prepared_store,
    scripted_spec,
    use_scripted,
)
from typer.testing import CliRunner

from poemetric.analysis.judge_configs import mixed_judges
from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.providers.base import ModelSpec
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

runner = CliRunner()


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def _judged_twice(tmp_path: Path, change: dict[str, object] | None) -> Path:
    """6 poems (3 human, 3 machine): the first poem's 2 judged by judge 'tj', the other 4 by
    'tj' after `change` to its file (None: no change)."""
    use_scripted()
    store = prepared_store(tmp_path / "run", poems=3)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server:
        # Named in the notes as the tables name it (`Test judge`), not by its key `tj`.
        judge = openai_spec(server.base_url, name="tj").model_copy(
            update={"display_name": "Test judge"}
        )
        run_judging(store, judge, options=dataclasses.replace(FAST, limit=1))
        later: ModelSpec = judge.model_copy(update=change or {})
        run_judging(store, later, options=FAST)
    assert store.count("judgments", "status = 'ok'") == 6
    store.close()
    return tmp_path / "run"


def _notes(run: Path) -> str:
    result = runner.invoke(app, ["analyze", "--run", str(run)])
    assert result.exit_code == 0, result.output
    return " ".join((run / "analysis" / "NOTES.txt").read_text(encoding="utf-8").split())


def test_a_changed_temperature_is_named_with_its_judgments(tmp_path: Path) -> None:
    settings = openai_spec("http://unused", name="tj").settings.model_copy(
        update={"temperature": 0.7}
    )
    notes = _notes(_judged_twice(tmp_path, {"settings": settings}))
    assert (
        "judge 'Test judge' answered under 2 configurations (temperature=0.7: 4 judgments; "
        "temperature unset: 2 judgments), pooled in its tables"
    ) in notes
    # the file to copy, by the key `--judge` takes (the display name names no file)
    assert "its judge file `tj` (or the model behind its name) changed" in notes


def test_another_model_behind_the_name_is_named(tmp_path: Path) -> None:
    notes = _notes(_judged_twice(tmp_path, {"model": "other-model"}))
    assert (
        "judge 'Test judge' answered under 2 configurations (model 'other-model-served': 4 judgments; "
        "model 'test-model-served': 2 judgments)"
    ) in notes


def test_one_configuration_gets_no_note(tmp_path: Path) -> None:
    assert "configurations" not in _notes(_judged_twice(tmp_path, None))


def test_settings_are_compared_as_values_and_provider_fields_are_not_shown(
    tmp_path: Path,
) -> None:
    """A temperature of 1 is one of 1.0; an `extra` that differs is named, its values (which
    may hold what a key file holds) are not."""
    run = _judged_twice(tmp_path, None)
    with RunStore(run, create=False) as store, store.transaction() as conn:
        ids = [r[0] for r in store.query("SELECT judgment_id FROM judgments ORDER BY 1")]
        settings = ['{"temperature": 1}', '{"temperature": 1.0}']
        for index, judgment in enumerate(ids):
            value = settings[index % 2]
            conn.execute(
                "UPDATE judgments SET settings = ? WHERE judgment_id = ?", (value, judgment)
            )
        assert mixed_judges(store).notes == []
        secret = '{"temperature": 1, "extra": {"x_api_token": "sk-live-123"}}'
        conn.execute("UPDATE judgments SET settings = ? WHERE judgment_id = ?", (secret, ids[0]))
        (note,) = mixed_judges(store).notes
    assert (
        "(provider fields (extra) unset: 5 judgments; provider fields (extra) set: 1 judgment)"
        in note
    )
    assert "sk-live" not in note and "x_api_token" not in note


def test_a_judge_that_changed_model_gets_one_note_not_two(tmp_path: Path) -> None:
    """The judge's judgments came from two models: the note naming both with their counts is
    the one note; the run's note on a model file now naming another model said it again."""
    notes = _notes(_judged_twice(tmp_path, {"model": "other-model"}))
    assert notes.count("'Test judge'") == 1 and "'tj'" not in notes, notes
    assert "labelled as its file names it now" not in notes
    assert "judge 'Test judge' answered under 2 configurations (model 'other-model-served'" in notes


def test_a_judge_whose_every_judgment_came_from_its_earlier_model_keeps_its_note(
    tmp_path: Path,
) -> None:
    """Every judgment stored before its file named another model, which asked nothing: the
    judgments name one model, so the note that the label is the file's new model stays."""
    run = _judged_twice(tmp_path, None)
    use_scripted()
    with (
        RunStore(run, create=False) as store,
        OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server,
    ):
        later = openai_spec(server.base_url, name="tj").model_copy(update={"model": "other-model"})
        run_judging(store, later, options=FAST)  # every judgment stored: asks nothing
    notes = _notes(run)
    assert "configurations" not in notes
    assert (
        "judge: tj is labelled as its file names it now (model 'other-model'), but of its 6 "
        "stored answers 6 under model 'test-model' were made while its file named that model"
    ) in notes


def test_the_relabelled_judge_note_follows_the_judges_chosen(tmp_path: Path) -> None:
    """`analyze --judge tk` on a run whose judge 'tj' is relabelled: the note on 'tj' stays out,
    as every other note on the judges left out does; without --judge it is there."""
    run = _judged_twice(tmp_path, None)
    use_scripted()
    with (
        RunStore(run, create=False) as store,
        OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server,
    ):
        tj = openai_spec(server.base_url, name="tj").model_copy(update={"model": "other-model"})
        run_judging(store, tj, options=FAST)  # every judgment stored: asks nothing
        run_judging(store, openai_spec(server.base_url, name="tk"), options=FAST)
    result = runner.invoke(app, ["analyze", "--run", str(run), "--judge", "tk"])
    assert result.exit_code == 0, result.output
    notes = " ".join((run / "analysis" / "NOTES.txt").read_text(encoding="utf-8").split())
    assert "tj is labelled" not in notes
    assert "tj is labelled as its file names it now" in _notes(run)
