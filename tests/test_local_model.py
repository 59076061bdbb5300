"""A real language model in the pipeline: the packaged SmolLM2-135M-Instruct on the CPU.

Skips outside CI when the `local` extra is missing; under CI=true it must run. All tests share
one loaded model per worker (`smollm2` fixture); `make test` distributes tests by file
(`--dist loadfile`) and sends this module and the other SmolLM2 modules to one worker as one unit
(`SMOLLM2_MODULES` in tests/conftest.py), so the model loads once in the whole run (about 20 s).
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER, openai_spec
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.data import load_dataset
from poemetric.probes.builders import SourcePoem, build_pairs

pytestmark = pytest.mark.slow


def lear(limit: int) -> list[SourcePoem]:
    return [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems[:limit]
    ]


def test_scores_count_the_first_word_and_do_not_depend_on_batch_size(smollm2: Any) -> None:
    pairs = build_pairs(lear(2), ["delete_3_nonrhyming"], seed=0)
    texts = list(dict.fromkeys(t for p in pairs for t in (p.original, p.corrupted)))
    assert len(texts) == 4 and len({len(t) for t in texts}) > 1
    one = smollm2.score_texts(texts, batch_size=1)
    many = smollm2.score_texts(texts, batch_size=len(texts))
    for a, b, text in zip(one, many, texts, strict=True):
        assert abs(a.logprob_sum - b.logprob_sum) < 1e-4
        # every token of the text is scored, the first included (the prefix token is not)
        assert a.n_tokens == len(smollm2.encode([text])[0]) == len(a.token_logprobs)
        assert all(math.isfinite(v) and v <= 0 for v in a.token_logprobs)
    assert smollm2.model.dtype.is_floating_point and str(smollm2.model.dtype) == "torch.float32"
    assert smollm2.tokenizer.convert_ids_to_tokens(smollm2.prefix_token_id()) == "<|endoftext|>"


def test_real_model_end_to_end_generate_form_judge_analyze(smollm2: Any, tmp_path: Path) -> None:
    """Real model output, preambles and broken forms included, through every stage."""
    from poemetric.analysis import analyze_run
    from poemetric.form.stage import run_form_stage
    from poemetric.generation.stage import run_generation
    from poemetric.judge.stage import run_judging
    from poemetric.pipeline import prepare_run
    from poemetric.roster import load_roster
    from poemetric.store import RunStore
    from poemetric.testing.servers import OpenAIServer

    spec = load_roster("generators")["smollm2-135m"]
    spec = spec.model_copy(update={"settings": spec.settings.model_copy(update={"max_tokens": 60})})
    with RunStore(tmp_path / "run") as store:
        prepare_run(store, "lear-limericks", limit=2)
        report = run_generation(store, [spec], options=FAST)
        assert report.models[0].ok == 2 and report.models[0].mode == "offline-chunks"
        rows = store.query("SELECT * FROM generations WHERE author = 'smollm2-135m'")
        assert len(rows) == 2
        for row in rows:
            assert row["status"] == "ok" and row["response_text"].strip()
            assert row["output_tokens"] > 0 and row["input_tokens"] > 20  # chat template
            assert row["finish_reason"] in ("stop", "length")
            assert json.loads(row["raw_response"])["device"] == "cpu"
        # a second run answers from the store: nothing is generated again
        again = run_generation(store, [spec], options=FAST)
        assert again.models[0].already_done == 2 and again.models[0].called == 0

        form = run_form_stage(store, progress=False)
        assert form.total_by_author.get("smollm2-135m") == 2
        import os

        os.environ[TEST_KEY_ENV] = TEST_KEY
        with OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as server:
            judged = run_judging(store, openai_spec(server.base_url, name="judge"), options=FAST)
            assert judged.models[0].ok == 4  # 2 human + 2 SmolLM2 poems
        analysis = analyze_run(store)
        assert analysis.tables
        authors = {r["author"] for r in store.query("SELECT author FROM generations")}
        assert authors == {"human", "smollm2-135m"}


def test_probe_cli_builds_and_scores_with_ngram_and_the_packaged_model(
    smollm2: Any, tmp_path: Path
) -> None:
    runner = CliRunner()
    pairs = tmp_path / "pairs.jsonl"
    result = runner.invoke(
        app,
        [
            "probe",
            "build",
            "lear-limericks",
            "--limit",
            "2",
            "--seed",
            "1",
            "--output",
            str(pairs),
            "--tasks",
            "rhyme_line_swap,synonym,delete_1_rhyming,delete_2_nonrhyming",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "rhyme_line_swap" in result.output
    ngram = runner.invoke(
        app,
        ["probe", "run", str(pairs), "--scorer", "ngram", "--output", str(tmp_path / "n.jsonl")],
    )
    assert ngram.exit_code == 0, ngram.output
    assert "BPoMP 2021, Table 2" in ngram.output and "ngram:3 (by sum)" in ngram.output
    hf = runner.invoke(
        app,
        [
            "probe", "run", str(pairs), "--scorer", "hf:smollm2-135m", "--batch-size", "16",
            "--output", str(tmp_path / "h.jsonl"), "--tables", str(tmp_path / "tables"),
        ],
    )  # fmt: skip
    assert hf.exit_code == 0, hf.output
    assert "hf:smollm2-135m (by mean)" in hf.output and "Limericks 2022, Table 2" in hf.output
    lines = [json.loads(x) for x in (tmp_path / "h.jsonl").read_text().splitlines()]
    assert len(lines) == len(pairs.read_text().splitlines())
    assert all(r["verdict_sum"] in ("correct", "wrong", "tie") for r in lines)
    assert all(r["original_tokens"] > 20 for r in lines)
    assert (tmp_path / "tables" / "probe_deletion.tex").is_file()
    report = runner.invoke(
        app, ["probe", "report", str(tmp_path / "n.jsonl"), str(tmp_path / "h.jsonl")]
    )
    assert report.exit_code == 0 and "ngram:3" in report.output and "hf:smollm2" in report.output


def test_last_line_candidates_by_beam_and_delayed_beam_search(smollm2: Any) -> None:
    from poemetric.probes.last_line import LocalLineGenerator, accept, line_requests
    from poemetric.roster import load_roster

    spec = load_roster("generators")["smollm2-135m"]
    (item,) = line_requests(lear(1), seed=0, rhyme_source="auto")
    _poem, request = item
    assert request.partners == ("beard", "feared")
    assert request.context.endswith("Four Larks and a Wren,\n")
    beam = LocalLineGenerator(spec, search="beam", beams=2)
    (candidates,) = beam.candidates([request])
    assert len(candidates) == 2 and all(isinstance(c, str) for c in candidates)
    delayed = LocalLineGenerator(spec, search="delayed_beam", attempts=1)
    (later,) = delayed.candidates([request])
    assert len(later) == 5  # 3 sampled tokens, then 5 beams
    # the acceptance rule, on lines whose verdict is known
    assert accept("And a Hen and a Cow in his beard.", request) is None
    assert accept("And they sat on the top of his head.", request) == "does not rhyme"
    assert accept(request.original_line, request) == "identical to the original line"
    assert accept("And a Hen and a Cow in his beard", request) == "does not end a sentence"


def test_the_model_file_points_at_the_packaged_gguf() -> None:
    from conftest import local_extra_or_skip

    local_extra_or_skip()
    from poemetric.providers.model_source import resolve_source
    from poemetric.roster import load_roster

    spec = load_roster("generators")["smollm2-135m"]
    source = resolve_source(spec.model)
    assert source.gguf_file == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert (Path(source.location) / source.gguf_file).stat().st_size > 90_000_000
    same = resolve_source(str(Path(source.location) / source.gguf_file))
    assert same == dataclasses.replace(source)


def test_ctrl_c_stops_a_local_generation_after_the_grace_not_after_the_batch(
    smollm2: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local model generates in a worker thread that cancelling the stage cannot stop: after
    Ctrl-C and the grace, the command waited for the whole batch (minutes on a CPU, the
    "waiting up to 20 s" notwithstanding) and then dropped it. Now the generation ends at the
    next token once the grace is over, and nothing half-written is stored."""
    import os
    import signal
    import threading
    import time

    from poemetric.generation.stage import run_generation
    from poemetric.pipeline import prepare_run
    from poemetric.roster import load_roster
    from poemetric.runner import stopping
    from poemetric.store import RunStore

    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.SIG_IGN:  # a test run started with `&`: take Ctrl-C as a terminal
        signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(stopping, "_state", stopping._State())
    monkeypatch.setenv("POEMETRIC_STOP_GRACE", "1")
    previous_term = signal.getsignal(signal.SIGTERM)
    stopping.install()
    spec = load_roster("generators")["smollm2-135m"]
    long = {"max_tokens": 3000, "extra": {"min_new_tokens": 3000}}  # minutes of work on a CPU
    spec = spec.model_copy(update={"settings": spec.settings.model_copy(update=long)})
    signalled: list[float] = []

    def ctrl_c() -> None:
        signalled.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(4, ctrl_c)  # the model is loaded (fixture): it is generating then
    try:
        with RunStore(tmp_path / "run") as store:
            prepare_run(store, "lear-limericks", limit=2)
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                run_generation(store, [spec], options=FAST)
            stopped_after = time.monotonic() - signalled[0]
            assert store.count("generations", "author = 'smollm2-135m'") == 0
    finally:
        timer.cancel()
        signal.signal(signal.SIGTERM, previous_term)
        signal.signal(signal.SIGINT, previous_int)
    assert stopped_after < 15, f"stopped {stopped_after:.0f} s after Ctrl-C (grace: 1 s)"
    assert not stopping.abandoned()  # the next stage of the process generates again


def test_ctrl_c_in_a_local_last_line_build_says_that_no_pairs_file_was_written(
    smollm2: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`probe build --tasks last_line` with a local model exited 130 without a word, where
    `probe run --scorer hf:` says that nothing was written and how to start again."""

    def ctrl_c(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C in the middle of the beam search's forward pass

    monkeypatch.setattr(type(smollm2.model), "forward", ctrl_c)
    pairs = tmp_path / "ll.jsonl"
    args = ["probe", "build", "lear-limericks", "-t", "last_line", "--beams", "2", "-n", "1"]
    result = CliRunner().invoke(app, [*args, "-o", str(pairs)])
    assert result.exit_code == 130, result.output
    text = " ".join(result.output.split())
    assert f"Interrupted. Nothing was written: {pairs} is written once every pair is built" in text
    assert "Run it again with: poemetric" in text and not pairs.exists()


def test_a_local_last_line_build_that_keeps_no_line_writes_no_file(
    smollm2: Any, tmp_path: Path
) -> None:
    """A last_line build with the local model that made no pair wrote an empty pairs file and
    exited 0; it now says why (here: no last line rhymes, so nothing is generated) and writes
    nothing (exit 1)."""
    poems = tmp_path / "unrhymed.jsonl"
    text = "The rain falls on the field\nA crow walks in the mud\nThe evening comes too soon"
    record = {"form": "ballad", "title": "T", "author": "A", "content": text}
    record |= {"meter_pattern": "", "rhyme_pattern": "", "theme": ""}
    poems.write_text(json.dumps(record) + "\n", encoding="utf-8")
    pairs = tmp_path / "ll.jsonl"
    args = ["probe", "build", str(poems), "-t", "last_line", "--beams", "1", "-o", str(pairs)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and not pairs.exists(), result.output
    assert result.stderr == (
        "error: no pairs from 1 poem of unrhymed; no pairs file written\n"
        "last_line: the last line of the poem rhymes with no other line (a new last line must "
        "rhyme with one)\n"
    )


def test_hf_scoring_shows_its_progress(smollm2: Any, tmp_path: Path) -> None:
    """`probe run --scorer hf:` said nothing until the end (an hour on a CPU for a full set):
    it now has the progress of the other stages, a bar on a terminal and, as here in a log, a
    line every POEMETRIC_PROGRESS_EVERY seconds, on stderr. Scored batch by batch (to count them), every
    text keeps the score one call over all the texts gives it."""
    import re

    pairs = tmp_path / "pairs.jsonl"
    tasks = "rhyme_line_swap,delete_1_rhyming"
    build = ["probe", "build", "lear-limericks", "-n", "1", "-t", tasks]
    assert CliRunner().invoke(app, [*build, "-o", str(pairs)]).exit_code == 0
    built = {p["id"]: p for p in map(json.loads, pairs.read_text(encoding="utf-8").splitlines())}
    texts = list(dict.fromkeys(p[k] for p in built.values() for k in ("original", "corrupted")))
    scores = tmp_path / "scores.jsonl"
    score = ["probe", "run", str(pairs), "--scorer", "hf:smollm2-135m", "--batch-size", "2"]
    env = {"POEMETRIC_PROGRESS_EVERY": "0.01"}
    result = CliRunner().invoke(app, [*score, "-o", str(scores)], env=env, terminal_width=200)
    assert result.exit_code == 0, result.output
    line = rf"^\[\d\d:\d\d:\d\d\] hf:smollm2-135m: \d+/{len(texts)} \(\d+%\), \d:\d\d:\d\d elapsed"
    # On stderr: stdout is the tables (`probe run ... > results.md` mixed the lines into them).
    assert re.search(line, result.stderr, re.MULTILINE), result.output
    assert "elapsed" not in result.stdout, result.stdout
    quiet_run = [*score, "-o", str(tmp_path / "quiet.jsonl"), "--no-progress", "--limit", "1"]
    quiet = CliRunner().invoke(app, quiet_run, env=env)
    assert quiet.exit_code == 0 and "elapsed" not in quiet.output, quiet.output
    expected = dict(zip(texts, smollm2.score_texts(texts, batch_size=2), strict=True))
    for record in map(json.loads, scores.read_text(encoding="utf-8").splitlines()):
        pair = built[record["pair_id"]]
        assert record["original_logprob"] == expected[pair["original"]].logprob_sum
        assert record["corrupted_logprob"] == expected[pair["corrupted"]].logprob_sum


def test_sigterm_while_the_local_model_loads_stops_at_once(tmp_path: Path) -> None:
    """SIGTERM (or Ctrl-C) while a local model was still loading (15-20 s for SmolLM2 on two
    cores, minutes for a big model) counted the load as a request in flight: "waiting up to
    20 s for the 1 in flight", then the rest of the load. The load now runs in the background
    and the command stops at once, with the usual message and status; nothing is stored for
    the model, so the resume generates all of it. A real `poemetric generate` process: the
    load has begun once it maps the model's GGUF file (the tokenizer is read from it)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import local_extra_or_skip

    from poemetric.store import RunStore

    local_extra_or_skip()
    if not Path(f"/proc/{os.getpid()}/maps").exists():
        pytest.skip("needs /proc to see when the model starts loading")
    args = ["generate", "--run", "run", "--models", "smollm2-135m"]
    args += ["--dataset", "lear-limericks", "--limit", "2"]
    log = tmp_path / "job.log"
    # an empty cache dir: a first load, from the GGUF itself (later ones read the cached copy)
    environment = {**os.environ, "POEMETRIC_CACHE_DIR": str(tmp_path / "cache")}
    with log.open("w") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "poemetric", *args],
            cwd=tmp_path,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        maps = Path(f"/proc/{process.pid}/maps")
        while ".gguf" not in maps.read_text():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the model did not start loading"
            time.sleep(0.05)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=120)
        took = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
    output = log.read_text()
    assert process.returncode == 143, output
    text = " ".join(output.split())
    assert "Interrupted by SIGTERM. Every answer received so far is saved in run" in text
    assert f"Resume with: poemetric {' '.join(args)}" in text
    assert took < 10, f"exited {took:.1f} s after SIGTERM (the grace is 20 s)"
    assert "in flight" not in text and "Traceback" not in text
    with RunStore(tmp_path / "run") as store:
        assert store.count("generations", "author = 'smollm2-135m'") == 0
        assert store.count("generations", "status = 'ok'") == 2  # the human poems, intact


def test_a_local_model_that_cannot_load_is_tried_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that failed to load was loaded again for every request of the chunk (minutes
    each for a big model that runs out of memory at the end); it is tried once, and every
    request reports it."""
    from conftest import local_extra_or_skip

    local_extra_or_skip()
    import transformers

    from poemetric.providers.base import (
        ChatMessage,
        GenerationRequest,
        GenerationSettings,
        ModelSpec,
        ProviderError,
    )
    from poemetric.providers.transformers_provider import TransformersProvider

    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(64))
    attempts: list[str] = []
    original = transformers.AutoTokenizer.from_pretrained

    def counted(location: str, *args: Any, **kwargs: Any) -> Any:
        attempts.append(location)
        return original(location, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", counted)
    spec = ModelSpec(name="broken", provider="transformers", model=str(broken))
    provider = TransformersProvider(spec)
    provider.load()  # as the runner does before the first chunk: the failure waits
    requests = [
        GenerationRequest((ChatMessage(role="user", content=f"topic {i}"),), GenerationSettings())
        for i in range(3)
    ]
    results = provider.run_batch(requests)
    assert len(attempts) == 1
    for result in results:
        assert isinstance(result, ProviderError) and not result.retryable
        assert f"transformers: could not load '{tmp_path}/broken.gguf'" in str(result)


def test_generating_leaves_the_models_list_of_end_tokens_as_it_was(smollm2: Any) -> None:
    """A generation config whose eos_token_id is a list (Llama 3's three end tokens): each
    batch's search for the end of its answers appended the tokenizer's end token to the model's
    own list, which grew by one a batch for as long as the process ran."""
    config = smollm2.model.generation_config
    saved = config.eos_token_id
    try:
        config.eos_token_id = [smollm2.tokenizer.eos_token_id]
        prompt = smollm2.chat_ids([{"role": "user", "content": "Say hi."}], None)
        for _ in range(2):
            smollm2.generate([prompt], {"max_new_tokens": 2, "do_sample": False})
        assert config.eos_token_id == [smollm2.tokenizer.eos_token_id]
    finally:
        config.eos_token_id = saved


def test_the_smollm2_fixture_is_the_model_the_loader_returns_after_a_release(
    request: pytest.FixtureRequest,
) -> None:
    """A test that loaded another model (the broken file above, a tiny BERT) released SmolLM2
    from the loader's one-model cache, and the next provider or in-process `probe run` of
    smollm2-135m loaded it again (about 20 s of CPU) beside the fixture's. The `smollm2` fixture
    puts the worker's model back: the provider's loader is not called."""
    from poemetric.providers.transformers_engine import release_models
    from poemetric.providers.transformers_provider import TransformersProvider, local_model_for
    from poemetric.roster import load_roster

    request.getfixturevalue("_smollm2_loaded")  # loaded before this test, as on a worker
    release_models()  # what loading any other model does first
    model = request.getfixturevalue("smollm2")

    def must_not_load(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("SmolLM2 was loaded again")

    for kind in ("generators", "judges"):
        spec = load_roster(kind)["smollm2-135m"]
        assert local_model_for(spec, loader=must_not_load) is model
        assert TransformersProvider(spec).model is model


def test_top_k_alone_samples_as_it_says(smollm2: Any) -> None:
    """A model file setting `top_k` and no temperature or top_p (vLLM and the APIs then sample
    with top_k at their default temperature): with a generation config that samples not
    (SmolLM2's), the provider dropped top_k and decoded greedily, while each row's settings
    said top_k. It samples, with that top_k, and the seed decides the answer."""
    from poemetric.providers.base import (
        ChatMessage,
        Completion,
        GenerationRequest,
        GenerationSettings,
    )
    from poemetric.providers.registry import create_provider
    from poemetric.roster import load_roster

    provider: Any = create_provider(load_roster("generators")["smollm2-135m"])
    assert provider.model is smollm2
    sampling = provider.sampling(GenerationSettings(top_k=40, max_tokens=16))
    assert sampling["do_sample"] is True and sampling["top_k"] == 40
    assert provider.sampling(GenerationSettings(max_tokens=16))["do_sample"] is False  # greedy
    assert provider.sampling(GenerationSettings(top_k=40, temperature=0))["do_sample"] is False

    def answer(**settings: Any) -> str:
        message = ChatMessage(role="user", content="Write one line about the sea.")
        request = GenerationRequest((message,), GenerationSettings(max_tokens=16, **settings))
        (completion,) = provider.run_batch([request])
        assert isinstance(completion, Completion), completion
        return str(completion.text)

    seeded = {seed: answer(top_k=40, seed=seed) for seed in (1, 2, 3)}
    assert answer(top_k=40, seed=1) == seeded[1]  # reproducible
    assert len(set(seeded.values())) > 1  # greedy: three copies of one answer


def test_a_prompt_and_budget_beyond_the_context_is_an_error_row_not_a_generation(
    smollm2: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The provider never compared the prompt's tokens plus the new tokens with the model's
    context (`max_position_embeddings`): `generate()` ran on past the positions the model was
    trained on and stored what came out as a poem. Such a request is now its job's error
    (non-retryable, naming the numbers and the setting to lower), as vLLM's adapter refuses a
    prompt that fills its context; the other requests of the batch are generated."""
    from poemetric.providers.base import (
        ChatMessage,
        Completion,
        GenerationRequest,
        GenerationSettings,
        ProviderError,
    )
    from poemetric.providers.registry import create_provider
    from poemetric.roster import load_roster

    provider: Any = create_provider(load_roster("generators")["smollm2-135m"])
    assert provider.model is smollm2
    message = ChatMessage(role="user", content="Write one line about the sea.")
    prompt = len(smollm2.chat_ids([{"role": "user", "content": message.content}], None))

    def request(text: ChatMessage = message, **settings: Any) -> GenerationRequest:
        return GenerationRequest((text,), GenerationSettings(**settings))

    # A model with a short context (SmolLM2's own is 8,192 tokens): one request fits, one not.
    monkeypatch.setattr(smollm2.model.config, "max_position_embeddings", prompt + 8)
    fits, over, unset = provider.run_batch(
        [request(max_tokens=8), request(max_tokens=9), request()]
    )
    assert isinstance(fits, Completion) and fits.usage.output_tokens <= 8, fits
    where = (
        f"the context of 'smollm2-135m' ({prompt + 8} tokens, its config's max_position_embeddings)"
    )
    assert isinstance(over, ProviderError) and not over.retryable
    assert str(over) == (
        f"transformers: the prompt ({prompt} tokens after the chat template) plus "
        f"settings.max_tokens 9 exceed {where}: lower it to at most 8, or shorten the prompt"
    )
    assert isinstance(unset, ProviderError)  # no max_tokens: the option's default, named
    assert "plus options.default_max_tokens 512 exceed" in str(unset)
    monkeypatch.undo()

    (whole,) = provider.run_batch([request(max_tokens=8192)])  # the real context
    assert isinstance(whole, ProviderError), whole
    assert "(8,192 tokens, its config's max_position_embeddings)" in str(whole)
    assert f"lower it to at most {8192 - prompt:,}" in str(whole)
    (filled,) = provider.run_batch([request(ChatMessage(role="user", content="sea " * 9000))])
    assert isinstance(filled, ProviderError) and not filled.retryable
    assert "fills the context of 'smollm2-135m' (8,192 tokens" in str(filled)
    assert "a lower max_tokens will not help" in str(filled)


def test_an_answer_cut_inside_a_think_block_the_template_opened_is_stored_as_reasoning(
    smollm2: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat template that opens the `<think>` block itself (DeepSeek-R1 distills, QwQ): the
    real engine's answer, cut at the token limit before any `</think>`, held no tag, and its
    whole reasoning was stored as the poem, form-checked and judged. The adapter sees the
    rendered prompt: the stored answer starts with the tag, the poem is empty, the reasoning
    kept apart; with SmolLM2's own template nothing changes."""
    import json as json_module

    from poemetric.generation.stage import run_generation
    from poemetric.pipeline import prepare_run
    from poemetric.roster import load_roster
    from poemetric.store import RunStore

    spec = load_roster("generators")["smollm2-135m"]
    spec = spec.model_copy(update={"settings": spec.settings.model_copy(update={"max_tokens": 12})})
    one = dataclasses.replace(FAST, limit=1)
    template = smollm2.tokenizer.chat_template
    opening = "{{ '<|im_start|>assistant\n' }}"  # a newline inside the Jinja string
    assert opening in template
    monkeypatch.setattr(
        smollm2.tokenizer,
        "chat_template",
        template.replace(opening, "{{ '<|im_start|>assistant\n<think>\n' }}"),
    )
    with RunStore(tmp_path / "run") as store:
        prepare_run(store, "lear-limericks", limit=1)
        run_generation(store, [spec], options=one)
        (row,) = store.query("SELECT * FROM generations WHERE author = ?", (spec.name,))
    assert row["status"] == "ok" and row["finish_reason"] == "length"
    assert row["response_text"].startswith("<think>\n")
    assert json_module.loads(row["raw_response"])["template_opened"] == "<think>\n"
    assert row["poem"] == ""
    assert row["reasoning"] == row["response_text"].removeprefix("<think>\n").strip() != ""
    assert any("unclosed <think>" in note for note in json_module.loads(row["extraction_notes"]))

    monkeypatch.setattr(smollm2.tokenizer, "chat_template", template)
    with RunStore(tmp_path / "plain") as store:
        prepare_run(store, "lear-limericks", limit=1)
        run_generation(store, [spec], options=one)
        (row,) = store.query("SELECT * FROM generations WHERE author = ?", (spec.name,))
    assert "<think>" not in row["response_text"] and row["poem"] and row["reasoning"] is None
    assert "template_opened" not in json_module.loads(row["raw_response"])
