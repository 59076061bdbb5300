"""The packaged SmolLM2-135M-Instruct as a judge: constrained decoding of the judge's JSON answer
(`structured: auto` with the `transformers` provider), on the CPU, offline.

Skips outside CI when the `local` extra is missing. The model is loaded once (`smollm2` fixture,
shared by the provider: same file, device and dtype).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from typer.testing import CliRunner

from poemetric.providers.base import (
    ChatMessage,
    GenerationRequest,
    GenerationSettings,
    ProviderError,
    ResponseSchema,
)

pytestmark = pytest.mark.slow

TWO_SLOTS = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "enum": [7, 10, 12], "description": "a score"},
        "why": {"type": "string"},
    },
    "required": ["score", "why"],
    "additionalProperties": False,
}


RATE = 'Rate this line from 7 to 12 and say why: "The cat sat on the mat."'


def _chat(model: Any, text: str) -> list[int]:
    return list(model.chat_ids([{"role": "user", "content": text}], None))


class Greedy(NamedTuple):
    prompt: list[int]
    answer: Any  # a StructuredGeneration


@pytest.fixture(scope="module")
def greedy_answer(_smollm2_loaded: Any) -> Greedy:
    """The model's greedy constrained answer to RATE (decoded once; several tests compare with
    it). `_smollm2_loaded` is the object the `smollm2` fixture and the provider decode with."""
    from poemetric.providers.transformers_decoding import generate_structured

    prompt = _chat(_smollm2_loaded, RATE)
    return Greedy(
        prompt, generate_structured(_smollm2_loaded, prompt, TWO_SLOTS, {"do_sample": False})
    )


def test_constrained_decoding_fills_in_the_skeleton(smollm2: Any, greedy_answer: Greedy) -> None:
    """Keys in order, an integer of the enum (10 and 12 take two tokens, 1 then 0 or 2), a
    string without a quote of its own, capped at MAX_STRING_TOKENS."""
    from poemetric.providers.transformers_decoding import generate_structured
    from poemetric.providers.transformers_structured import MAX_STRING_TOKENS

    prompt, greedy = greedy_answer  # generate_structured(smollm2, prompt, TWO_SLOTS, greedy)
    assert greedy is not None and greedy.finish_reason == "stop"
    assert greedy.text.startswith('{"score": ') and greedy.text.endswith('"}')
    answer = json.loads(greedy.text)
    assert list(answer) == ["score", "why"] and answer["score"] in (7, 10, 12)
    assert isinstance(answer["why"], str) and len(smollm2.encode([answer["why"]])[0]) <= 60
    assert greedy.prompt_tokens == len(prompt)
    assert greedy.completion_tokens >= len(smollm2.encode(['{"score": 7, "why": ""}'])[0]) - 1
    # sampling (kept within the enum and the string's tokens) repeats with the same seed
    sampling = {"do_sample": True, "temperature": 1.5, "top_p": 0.95, "top_k": 40}
    first = generate_structured(smollm2, prompt, TWO_SLOTS, sampling, seed=3)
    second = generate_structured(smollm2, prompt, TWO_SLOTS, sampling, seed=3)
    assert first is not None and first == second and json.loads(first.text)["score"] in (7, 10, 12)
    assert MAX_STRING_TOKENS == 60


def test_constrained_decoding_keeps_within_max_tokens(smollm2: Any, greedy_answer: Greedy) -> None:
    """The request's max_tokens bounds the object as it bounds a free-text answer: it was
    ignored (each string took up to MAX_STRING_TOKENS whatever the budget). A string is closed
    where going on would leave too few tokens for the rest, with finish reason "length"; a
    budget the model's own answer fits keeps it whole ("stop"); one too small for the keys and
    scores alone is refused, by the provider too, naming the least that fits."""
    from poemetric.providers.registry import create_provider
    from poemetric.providers.transformers_decoding import generate_structured
    from poemetric.providers.transformers_structured import StructuredBudgetError
    from poemetric.roster import load_roster

    prompt, free = greedy_answer  # generate_structured(smollm2, prompt, TWO_SLOTS, greedy)
    assert free is not None and free.finish_reason == "stop"
    whole = json.loads(free.text)["why"]
    assert len(smollm2.encode([whole])[0]) >= 4, free.text  # room to cut it
    fits = generate_structured(
        smollm2, prompt, TWO_SLOTS, {"do_sample": False, "max_new_tokens": free.completion_tokens}
    )
    assert fits == free
    budget = free.completion_tokens - 3
    cut = generate_structured(
        smollm2, prompt, TWO_SLOTS, {"do_sample": False, "max_new_tokens": budget}
    )
    assert cut is not None and cut.finish_reason == "length"
    assert cut.completion_tokens <= budget
    answer = json.loads(cut.text)
    assert answer["score"] == json.loads(free.text)["score"]
    assert whole.startswith(answer["why"]) and len(answer["why"]) < len(whole)
    with pytest.raises(StructuredBudgetError, match="max_tokens 5 is too few") as refused:
        generate_structured(smollm2, prompt, TWO_SLOTS, {"do_sample": False, "max_new_tokens": 5})
    least = int(str(refused.value).split("at least ")[1].split(";")[0])
    assert (
        generate_structured(
            smollm2, prompt, TWO_SLOTS, {"do_sample": False, "max_new_tokens": least}
        )
        is not None
    )

    provider = create_provider(load_roster("judges")["smollm2-135m"])
    messages = (ChatMessage(role="user", content=RATE),)
    schema = ResponseSchema("two", TWO_SLOTS)
    small, tiny = (
        GenerationRequest(messages, GenerationSettings(max_tokens=n), response_schema=schema)
        for n in (budget, least - 1)
    )
    done, error = provider.run_batch([small, tiny])
    assert not isinstance(done, ProviderError) and done.finish_reason == "length", done
    assert done.usage.output_tokens <= budget and done.text == cut.text
    assert isinstance(error, ProviderError) and not error.retryable
    assert f"max_tokens {least - 1} is too few" in str(error)
    assert f"settings.max_tokens in the model file to at least {least}" in str(error)


@pytest.mark.parametrize(
    "configured", [{"top_k": 1}, {"top_p": 1e-6}, {"temperature": 1e-4}], ids=str
)
def test_a_sampled_answer_draws_as_the_models_generation_config_says(
    smollm2: Any, greedy_answer: Greedy, configured: dict[str, Any]
) -> None:
    """The paper's model-default rule: a judge file that sets no sampling samples as the model's
    own generation config says, as `generate()` does for a free-text answer. Constrained
    decoding read only the request's settings: a config sampling with top_k 1 (or a tiny top_p
    or temperature, each all but greedy) was drawn at temperature 1 from every allowed token,
    and the comment came out other than the greedy one."""
    from poemetric.providers.registry import create_provider
    from poemetric.roster import load_roster

    provider = create_provider(load_roster("judges")["smollm2-135m"])
    model = provider.model  # the cached model the provider decodes with
    assert model is smollm2  # whose greedy answer (the model's generation config unchanged) is
    greedy = greedy_answer.answer  # generate_structured(model, prompt, TWO_SLOTS, greedy)
    assert greedy is not None and len(model.encode([json.loads(greedy.text)["why"]])[0]) >= 4
    config = model.model.generation_config
    saved = {name: getattr(config, name) for name in ("do_sample", *configured)}
    try:
        for name, value in {"do_sample": True, **configured}.items():
            setattr(config, name, value)
        request = GenerationRequest(
            (ChatMessage(role="user", content=RATE),),
            GenerationSettings(),
            response_schema=ResponseSchema("two", TWO_SLOTS),
        )
        answers = provider.run_batch([request] * 3)  # decoded together, unseeded
    finally:
        for name, value in saved.items():
            setattr(config, name, value)
    for answer in answers:  # at temperature 1, each one of them came out greedy at times
        assert not isinstance(answer, ProviderError), answer
        assert answer.text == greedy.text


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "array"}, "has type 'array'"),
        ({**TWO_SLOTS, "required": ["score"]}, "does not require 'why'"),
        ({**TWO_SLOTS, "additionalProperties": True}, "allows additional properties"),
        (
            {**TWO_SLOTS, "properties": {"score": {"type": "number"}, "why": {"type": "string"}}},
            "gives property 'score' the type 'number'",
        ),
        (
            {**TWO_SLOTS, "properties": {"score": {"type": "integer"}, "why": {"type": "string"}}},
            "without a list of integers as its enum",
        ),
        (
            {
                **TWO_SLOTS,
                "properties": {
                    "score": {"type": "integer", "enum": [1]},
                    "why": {"type": "object"},
                },
            },
            "gives property 'why' the type 'object'",
        ),
        (
            {
                **TWO_SLOTS,
                "properties": {
                    "score": {"type": "integer", "enum": [1]},
                    "why": {"type": "string", "maxLength": 5},
                },
            },
            "constrains property 'why' with maxLength",
        ),
    ],
)
def test_an_unsupported_schema_is_refused_naming_what_is_supported(
    smollm2: Any, schema: dict[str, Any], problem: str
) -> None:
    from poemetric.providers.registry import create_provider
    from poemetric.roster import load_roster

    provider = create_provider(load_roster("judges")["smollm2-135m"])
    request = GenerationRequest(
        (ChatMessage(role="user", content="Rate it."),),
        GenerationSettings(),
        response_schema=ResponseSchema("odd", schema),
    )
    [result] = provider.run_batch([request])
    assert isinstance(result, ProviderError) and not result.retryable
    message = str(result)
    assert problem in message, message
    assert "supports only a flat object whose properties are all required" in message
    assert "structured: off" in message


class LocalDemo(NamedTuple):
    run: Path
    output: str  # whitespace collapsed


@pytest.fixture(scope="module")
def local_demo(tmp_path_factory: pytest.TempPathFactory, _smollm2_loaded: Any) -> LocalDemo:
    """`demo --local --local-poems 1 --limit 1`, run once for the tests that read it: SmolLM2
    writes a poem for the first prompt and judges that prompt's three poems."""
    from conftest import smollm2_in_the_loader

    from poemetric.cli import app

    smollm2_in_the_loader(_smollm2_loaded)
    run = tmp_path_factory.mktemp("local-demo") / "demo"
    args = ["demo", "--run", str(run), "--local", "--local-poems", "1", "--limit", "1"]
    result = CliRunner().invoke(app, [*args, "--no-progress"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return LocalDemo(run, " ".join(result.output.split()))


def test_judging_poems_with_the_real_model(local_demo: LocalDemo) -> None:
    """judges/smollm2-135m.yaml (the demo's judge) judges with constrained decoding: every
    answer parses, every score is on its scale, and the judgment records how it was obtained."""
    from poemetric.questionnaire import DIMENSIONS
    from poemetric.roster import load_roster
    from poemetric.store import RunStore

    judge = load_roster("judges")["smollm2-135m"]
    assert judge.structured == "auto" and judge.provider == "transformers"
    assert "4/5 judge 1 model: 3 new ok, 0 errors" in local_demo.output
    with RunStore(local_demo.run) as store:
        rows = store.query("SELECT * FROM judgments WHERE judge = 'smollm2-135m'")
    assert len(rows) == 3
    for row in rows:
        assert row["status"] == "ok" and row["structured"] == "constrained_decoding"
        assert list(json.loads(row["response_text"])) == [str(q) for q in range(1, 14)]
        for dimension in DIMENSIONS:
            low = 0 if dimension.allows_na else 1
            assert low <= row[dimension.key] <= 5, (dimension.key, row[dimension.key])
        assert row["output_tokens"] > 13 and row["input_tokens"] > 500  # the whole questionnaire


def test_the_local_demo_judges_the_local_models_prompts_with_smollm2(local_demo: LocalDemo) -> None:
    """`demo --local` without --judge ran no judge (every file in judges/ is remote): it now runs
    the packaged SmolLM2 judge on the poems of the prompts the local model wrote for."""
    from poemetric.store import RunStore

    with RunStore(local_demo.run) as store:
        rows = store.query(
            "SELECT g.author, j.status, j.structured FROM judgments j "
            "JOIN generations g ON g.generation_id = j.generation_id WHERE j.judge = 'smollm2-135m'"
        )
    assert sorted(r["author"] for r in rows) == ["human", "markov", "smollm2-135m"]
    assert {(r["status"], r["structured"]) for r in rows} == {("ok", "constrained_decoding")}
    output = local_demo.output
    assert "4/5 judge 1 model: 3 new ok" in output
    assert (
        "judge smollm2-135m: a 135M model on the CPU, only the poems of the first prompt" in output
    )
    assert "Judge stage skipped" not in output
    assert "smollm2-135m judged 3 poems to show the judge stage working offline" in output
    assert "For real LLM-as-a-judge scores, either" in output and "gemini-2.5-pro" in output


def test_the_local_demo_says_its_cap_cut_the_local_models_poem(local_demo: LocalDemo) -> None:
    """The demo caps SmolLM2 at 160 tokens, which cuts its poems; the run's note on cut poems
    advises raising the model file's max_tokens, which the demo does not read. The demo says
    how many its cap cut and that the file's own limit applies outside it."""
    from poemetric.store import RunStore

    with RunStore(local_demo.run) as store:
        [cut] = store.query(
            "SELECT COUNT(*) FROM generations WHERE author = 'smollm2-135m' "
            "AND finish_reason = 'length'"
        )[0]
    assert cut == 1  # the first prompt's poem runs past 160 tokens
    assert (
        "1 of 1 poem of smollm2-135m was cut at the token limit (max_tokens 160): the demo caps "
        "it at 160 tokens to stay short; its model file's max_tokens 256 applies to `poemetric "
        "generate --models smollm2-135m` in a run of your own"
    ) in local_demo.output
    # The run's note (NOTES.txt, the report) named the model file's max_tokens as the fix; it
    # names the model as the tables do, the command by its key.
    notes = " ".join((local_demo.run / "analysis" / "NOTES.txt").read_text("utf-8").split())
    assert (
        "`demo --local` caps SmolLM2-135M-Instruct at max_tokens 160 to stay short; its model "
        "file's max_tokens 256 applies to `poemetric generate --models smollm2-135m`"
    ) in notes, notes
    assert "raise settings.max_tokens" not in notes
