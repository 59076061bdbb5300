"""`generate --samples N` of a model that decodes deterministically (SmolLM2 through
transformers: greedy, as its generation config says) stored N copies of each poem, which the
form check, the judges and the analysis count as N poems, and its summary said only "ok". It now
says so under the summary, naming the file to change; a model whose samples differ is not
named, nor one whose only alike samples are empty (a model that thought until the token
limit)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.roster.model_file import load_model_file
from poemetric.testing.servers import ChatCall, OpenAIServer, Reply

LINES = ("The kettle hums a tune of steam,", "the window fogs, the lamplight leans,")


def same_poem(call: ChatCall) -> Reply:
    return Reply(text="\n".join(LINES))


def new_poem_each_call() -> Callable[[ChatCall], Reply]:
    calls = itertools.count()

    def reply(call: ChatCall) -> Reply:
        return Reply(text=f"{LINES[0]}\nand {next(calls)} small birds come home to dream.")

    return reply


def thought_to_the_limit(call: ChatCall) -> Reply:
    return Reply(text="<think>Let me plan the rhyme", finish_reason="length")


def warnings_of(
    tmp_path: Path, responder: Callable[[ChatCall], Reply], samples: int, *, from_file: bool = False
) -> list[str]:
    """The warnings of the model `remote` (`from_file`: read from its own model file, in
    tmp_path/mine, as a $POEMETRIC_GENERATORS_DIR model is)."""
    options = replace(FAST, samples=samples)
    server = OpenAIServer(responder, api_key=TEST_KEY)
    with server, prepared_store(tmp_path / "run", poems=3) as store:
        spec = openai_spec(server.base_url)
        if from_file:
            (tmp_path / "mine").mkdir()
            path = tmp_path / "mine" / "remote.yaml"
            fields = spec.model_dump(mode="json", exclude_defaults=True)
            path.write_text(yaml.safe_dump(fields), encoding="utf-8")
            spec = load_model_file(path, kind="generators")
        report = run_generation(store, [spec], options=options)
    (model,) = report.models
    return model.warnings


def test_samples_that_are_one_poem_are_named_under_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    (warning,) = warnings_of(tmp_path, same_poem, samples=3)
    assert warning.startswith(
        "3 prompts with several samples have one poem in all of them (up to 3 a prompt), "
        "copies that the form check, the judges and the analysis count as different poems"
    )
    assert "set settings.temperature" in warning and "(generators/remote.yaml)" in warning


def test_the_warning_names_the_models_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model read from a file outside generators/ ($POEMETRIC_GENERATORS_DIR, a user's model
    folder) was sent to `generators/remote.yaml`, a file that does not exist: it is named."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    (warning,) = warnings_of(tmp_path, same_poem, samples=2, from_file=True)
    assert f"in its model file ({tmp_path / 'mine' / 'remote.yaml'}) and generate" in warning


@pytest.mark.parametrize(
    ("responder", "samples"),
    [(new_poem_each_call(), 2), (same_poem, 1), (thought_to_the_limit, 2)],
    ids=["samples differ", "one sample", "empty poems"],
)
def test_no_such_warning_otherwise(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    responder: Callable[[ChatCall], Reply],
    samples: int,
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    said = warnings_of(tmp_path, responder, samples)
    assert not any("one poem in all of them" in warning for warning in said), said
