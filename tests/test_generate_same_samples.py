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
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.generation.stage import run_generation
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


def warnings_of(tmp_path: Path, responder: Callable[[ChatCall], Reply], samples: int) -> list[str]:
    options = replace(FAST, samples=samples)
    server = OpenAIServer(responder, api_key=TEST_KEY)
    with server, prepared_store(tmp_path / "run", poems=3) as store:
        report = run_generation(store, [openai_spec(server.base_url)], options=options)
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
