"""Poems the provider stopped at the token limit (finish reason `length`) are stored "ok" and
scored as written: the summary of `generate` said "ok 3" of them and nothing downstream named
them, although the form check and the judges then score an unfinished poem. The summary and the
analysis's run-data notes now count them per model and say what to change. A model run in a
process of its own (vLLM) gets that line once, as a judge's line on its cut answers now is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    IsolatedProvider,
    prepared_store,
    scripted_spec,
)
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.generation.stage import run_generation
from poemetric.providers.base import Completion, GenerationRequest, ModelSpec, ProviderError
from poemetric.providers.registry import register_provider
from poemetric.store import RunStore
from poemetric.store.cut_poems import CutPoems, cut_poems
from poemetric.testing.servers import (
    AnthropicServer,
    ChatCall,
    GeminiServer,
    LocalServer,
    OpenAIServer,
    Reply,
)

POEM = "The rain is on the roof tonight,\nthe lamps are low, the fire is bright,"


def replies() -> Callable[[ChatCall], Reply]:
    """A whole poem first, then cut ones (one call at a time: `max_concurrency: 1`)."""
    calls: list[ChatCall] = []

    def reply(call: ChatCall) -> Reply:
        calls.append(call)
        return Reply(text=POEM, finish_reason="stop" if len(calls) == 1 else "length")

    return reply


def model_file(base_url: str) -> str:
    return (
        f"name: cut-test\nprovider: openai-compatible\nmodel: cut-test\nbase_url: {base_url}\n"
        f"api_key_env: {TEST_KEY_ENV}\nsettings: {{max_tokens: 64}}\n"
        "limits: {max_concurrency: 1}\n"
    )


def test_poems_cut_at_the_token_limit_are_counted_under_the_summary_and_in_the_analysis(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    user_model: Callable[[str, str, str], Path],
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = tmp_path / "run"
    command = ["generate", "--run", str(run), "--models", "cut-test", "--limit", "3"]
    with OpenAIServer(replies(), api_key=TEST_KEY) as server:
        own_file = user_model("generators", "cut-test", model_file(server.base_url))
        result = CliRunner().invoke(app, command, env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        with RunStore(run) as store:
            rows = store.query("SELECT status FROM generations WHERE author = 'cut-test'")
        assert [row["status"] for row in rows] == ["ok"] * 3  # stored as before: only told
        said = (
            "cut-test: warning: 2 of 3 poems in the run were cut at the token limit "
            "(max_tokens 64): stored and scored as written, so the form check and the judges "
            "see unfinished poems. Raise settings.max_tokens in its model file "
            f"({own_file}) and generate into a new --run"  # its own, not generators/'s
        )
        assert said in " ".join(result.output.split())
        # a resume calls nothing and still says it: the poems are in the run
        again = CliRunner().invoke(app, command, env={"COLUMNS": "200"})
        assert said in " ".join(again.output.split())
        planned = CliRunner().invoke(app, [*command, "--dry-run"], env={"COLUMNS": "200"})
        assert "cut at the token limit" not in planned.output  # a plan counts nothing
    analyzed = CliRunner().invoke(app, ["analyze", "--run", str(run)], env={"COLUMNS": "400"})
    assert analyzed.exit_code == 0, analyzed.output
    note = (
        "2 generated poems were cut at the token limit (cut-test: 2 of 3, max_tokens 64) and are "
        "scored as written: the form check and the judges see an unfinished poem, which "
        "weighs on its model's scores; raise settings.max_tokens in the model file and "
        "generate into a new --run"
    )
    assert note in (run / "analysis" / "NOTES.txt").read_text(encoding="utf-8")
    assert note in " ".join(analyzed.output.split())


@pytest.mark.parametrize(
    ("server_class", "provider", "max_tokens", "finish", "limits"),
    [
        (OpenAIServer, "openai-compatible", None, "length", "max_tokens not set"),
        (AnthropicServer, "anthropic", 300, "max_tokens", "max_tokens 300"),
        (GeminiServer, "google", 1200, "MAX_TOKENS", "max_tokens 1,200"),
    ],
)
def test_each_providers_spelling_of_the_token_limit_is_counted(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server_class: type[LocalServer],
    provider: str,
    max_tokens: int | None,
    finish: str,
    limits: str,
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = prepared_store(tmp_path, poems=2)
    settings: dict[str, Any] = {} if max_tokens is None else {"max_tokens": max_tokens}
    with server_class(
        lambda call: Reply(text=POEM, finish_reason="length"), api_key=TEST_KEY
    ) as server:
        spec = ModelSpec.model_validate(
            {
                "name": "cut-test",
                "provider": provider,
                "model": "cut-test",
                "base_url": server.base_url,
                "api_key_env": TEST_KEY_ENV,
                "settings": settings,
                "limits": {"max_concurrency": 1},
            }
        )
        report = run_generation(store, [spec], options=FAST)
    (stored,) = {
        row[0]
        for row in store.query("SELECT finish_reason FROM generations WHERE author = 'cut-test'")
    }
    assert stored == finish  # the provider's own spelling, stored as it came
    (entry,) = cut_poems(store)  # the human poems (no finish reason) are not counted
    assert entry == CutPoems("cut-test", 2, 2, (max_tokens,))
    assert entry.limits().startswith(limits)
    (warning,) = report.models[0].warnings
    assert warning.startswith(f"2 of 2 poems in the run were cut at the token limit ({limits}")


class CutIsolatedProvider(IsolatedProvider):
    """A model run in a process of its own (as vLLM's) whose every answer is cut."""

    name = "isolated-cut"

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        return [Completion(text=POEM, finish_reason="length") for _ in requests]


def test_a_model_run_in_its_own_process_is_warned_of_once(tmp_path: Path) -> None:
    """The child process runs the stage for its model, warning of the cut poems, and the parent
    adds its own warnings to the report it gets back: the same line, not twice. The child names
    the model's own file too (what the roster noted of the spec goes with it)."""
    register_provider("isolated-cut", CutIsolatedProvider)
    store = prepared_store(tmp_path, poems=2)
    spec = scripted_spec(name="gpu-cut", provider="isolated-cut", settings={"max_tokens": 99})
    spec._model_file = "/home/me/models/gpu-cut.yaml"  # as the roster notes it
    report = run_generation(store, [spec], options=FAST)
    (model,) = report.models
    assert model.ok == 2 and model.mode == "offline-chunks"  # run in the child
    assert model.warnings == [
        "2 of 2 poems in the run were cut at the token limit (max_tokens 99): stored and "
        "scored as written, so the form check and the judges see unfinished poems. Raise "
        "settings.max_tokens in its model file (/home/me/models/gpu-cut.yaml) and generate into a "
        "new --run: a run never asks again for a poem it holds."
    ]


class CutIsolatedJudge(IsolatedProvider):
    """A judge run in a process of its own whose every answer is cut before it began."""

    name = "isolated-cut-judge"

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        return [Completion(text="", finish_reason="length") for _ in requests]


def test_a_judge_run_in_its_own_process_is_told_of_its_cut_answers_once(tmp_path: Path) -> None:
    """The same for the judge's line on answers cut before any answer: said twice."""
    from test_runner_support import use_scripted

    from poemetric.judge.stage import run_judging

    use_scripted()
    register_provider("isolated-cut-judge", CutIsolatedJudge)
    store = prepared_store(tmp_path, poems=1)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    judge = scripted_spec(
        name="gpu-judge", provider="isolated-cut-judge", settings={"max_tokens": 77}
    )
    report = run_judging(store, judge, options=FAST, authors=["machine"])
    (model,) = report.models
    assert model.mode == "offline-chunks" and model.errors == 1  # run in the child
    assert model.notes == [
        "1 answer in the run was cut at the token limit before any answer (max_tokens 77) and "
        "is not re-asked: raise settings.max_tokens in its judge file, and the next "
        "`poemetric judge` asks again."
    ]


def test_poems_the_demo_capped_are_not_blamed_on_the_model_file(tmp_path: Path) -> None:
    """`demo --local` asks SmolLM2 with max_tokens 160 whatever its file says; the run's note on
    cut poems (NOTES.txt, the report) advised raising the model file's max_tokens, which the
    demo does not read. The run records the demo's cap, and the note names it; another model's
    cut poems keep the advice on its file. The note named each model by key (`capped`) beside
    tables naming it by display name; the commands and model files keep the key."""
    from test_runner_support import use_scripted

    from poemetric.analysis.data import load_run_data
    from poemetric.providers.base import TokenUsage
    from poemetric.store.cut_poems import record_demo_cap

    use_scripted(
        lambda request, number: Completion(
            text=POEM, usage=TokenUsage(input_tokens=9, output_tokens=160), finish_reason="length"
        )
    )
    store = prepared_store(tmp_path, poems=1)
    record_demo_cap(store, "capped", 160, 256)
    capped = scripted_spec(name="capped", display_name="Capped LM", settings={"max_tokens": 160})
    run_generation(store, [capped], options=FAST)
    (note,) = [n for n in load_run_data(store).notes if "cut at the token limit" in n]
    assert note.endswith(
        "weighs on its model's scores; `demo --local` caps Capped LM at max_tokens 160 to stay "
        "short; its model file's max_tokens 256 applies to `poemetric generate --models "
        "capped` in a run of your own"
    ), note
    own = scripted_spec(name="own", display_name="Own LM", settings={"max_tokens": 64})
    run_generation(store, [own], options=FAST)
    (note,) = [n for n in load_run_data(store).notes if "cut at the token limit" in n]
    assert note.endswith(
        "weighs on its model's scores; raise settings.max_tokens in the model file of own and "
        "generate into a new --run; `demo --local` caps Capped LM at max_tokens 160 to stay short; "
        "its model file's max_tokens 256 applies to `poemetric generate --models capped` in a "
        "run of your own"
    ), note
    assert "cut at the token limit (Capped LM: 1 of 1, max_tokens 160; Own LM: 1 of 1" in note, note
    store.close()
