"""Scorers: the n-gram model, masked-LM pseudo-likelihoods (a tiny randomly initialised BERT —
no masked LM installs offline), vLLM's prompt_logprobs (a double of its documented interface; vLLM
cannot be installed here), forced choice against the local OpenAI server, and the tables."""

from __future__ import annotations

import math
import re
import sys
import threading
import types
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec

from poemetric.probes.pairs import Pair
from poemetric.probes.results import (
    PUBLISHED_BPOMP,
    markdown_summary,
    probe_table_rows,
    probe_tables,
    write_probe_tables,
)
from poemetric.probes.scorers.base import ScoreRecord, compare
from poemetric.probes.scorers.ngram import KneserNey, NgramScorer, tokenize
from poemetric.providers.transformers_engine import SequenceScore
from poemetric.testing.servers import ChatCall, OpenAIServer

POEM = "There was an Old Man with a beard,\nWho said, 'It is just as I feared!'"


def pair(number: int, original: str = POEM, corrupted: str | None = None, task: str = "t") -> Pair:
    return Pair(
        id=f"p{number}",
        poem_id=f"poem{number % 3}",
        task=task,
        original=original,
        corrupted=corrupted or original.replace("beard", "hair"),
    )


# -- verdicts and tables ---------------------------------------------------------------------------
def test_comparison_is_strict_and_ties_are_reported() -> None:
    assert compare(-1.0, -2.0) == "correct" and compare(-2.0, -1.0) == "wrong"
    assert compare(-1.5, -1.5) == "tie" and compare(None, -1.0) == "unanswered"
    assert compare(math.nan, -1.0) == "unanswered"


def test_tables_count_ties_as_failures_and_show_the_papers_numbers(tmp_path: Path) -> None:
    def record(n: int, verdict: str, task: str = "synonym") -> ScoreRecord:
        return ScoreRecord(
            pair_id=f"p{n}", poem_id="x", task=task, scorer="s", verdict_sum=verdict,
            verdict_mean="correct",
        )  # fmt: skip

    records = [record(0, "correct"), record(1, "tie"), record(2, "wrong"), record(3, "correct")]
    tables = probe_tables([*records, record(4, "unanswered", "rhyme_line_swap")])
    row = tables["accuracy"].set_index("task").loc["synonym"]
    assert row["acc_sum"] == 0.5 and row["ties_sum"] == 1 and row["acc_mean"] == 1.0
    assert 0 < row["ci_sum_low"] < 0.5 < row["ci_sum_high"] < 1
    bpomp = tables["bpomp"].set_index("model")
    assert bpomp.loc["s (by sum)", "synonym"] == 0.5
    assert bpomp.loc["GPT-2", "synonym"] == PUBLISHED_BPOMP["GPT-2"][2]
    assert bpomp.loc["Human", "rhyme_line_swap"] == 0.95
    written = write_probe_tables(tables, tmp_path)
    assert {p.suffix for p in written} == {".csv", ".tex", ".md"}
    assert "0.703" in (tmp_path / "probe_bpomp.md").read_text()


def test_printed_tables_are_the_data_frames_tables() -> None:
    """`probe run` prints its tables from plain rows, without pandas: each prints as the data
    frame the table files and the report use (numbers right-aligned, a name with Markdown in
    it escaped, `n` beside the published rows left-aligned as the object column it is)."""
    from poemetric.tables.write import to_markdown

    tasks = ["synonym", "rhyme_word_swap", "delete_1_rhyming", "delete_3_nonrhyming",
             "last_line", "last_line_dbs", "t"]  # fmt: skip
    verdicts = ["correct", "wrong", "tie", "unanswered"]

    def record(n: int, task: str, scorer: str) -> ScoreRecord:
        both = {"verdict_sum": verdicts[n % 4], "verdict_mean": verdicts[n * 3 % 4]}
        return ScoreRecord(pair_id=f"p{n}", poem_id="x", task=task, scorer=scorer, **both)

    records = [
        record(n, task, scorer)
        for scorer in ("hf:a_b|c*", "ngram:3")
        for n, task in enumerate(tasks * 3)
        if not (scorer == "ngram:3" and task.startswith("last"))
    ]
    plain, frames = probe_table_rows(records), probe_tables(records)
    assert set(plain) == set(frames) == {"accuracy", "bpomp", "deletion", "last_line"}
    for name, table in plain.items():
        assert table.markdown(digits=3) == to_markdown(frames[name], digits=3), name
    assert markdown_summary(plain) == markdown_summary(frames) != ""
    assert "| hf:a_b\\|c\\* (by sum) | ours |" in plain["bpomp"].markdown()


# -- n-gram --------------------------------------------------------------------------------------
def test_kneser_ney_is_a_distribution_and_leaves_the_scored_poem_out() -> None:
    texts = ["the cat sat on the mat.\nthe dog sat too.", "a cat ran.\nthe mat sat!"]
    model = KneserNey(texts, order=3)
    for context in [("the", "cat"), ("zebra", "unseen"), ("<s>", "<s>")]:
        total = sum(model.prob(word, context) for word in model.vocab)
        assert total == pytest.approx(1.0, abs=1e-9)
    pairs = [pair(0, "the cat sat", "the sat"), pair(1, "a dog ran", "a ran")]
    records = NgramScorer(3).score(pairs)
    assert {r.details["training_poems"] for r in records} == {1}
    first = records[0]
    assert first.original_tokens == len(tokenize("the cat sat")) == 4
    assert first.original_mean == pytest.approx(first.original_logprob / 4)


# -- masked LM pseudo-log-likelihood ---------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    folder = tmp_path_factory.mktemp("tiny-bert")
    words = [
        "there",
        "was",
        "an",
        "old",
        "man",
        "with",
        "a",
        "beard",
        "who",
        "said",
        "it",
        "is",
        "just",
        "as",
        "i",
        "feared",
    ]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", "!", "'", *words, "bear", "##d"]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab={piece: i for i, piece in enumerate(vocab)})
    config = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.BertForMaskedLM(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_pseudo_log_likelihood_masks_each_token_in_turn(tiny_bert: Path) -> None:
    import torch

    from poemetric.probes.scorers.hf import HFScorer, MaskedLM
    from poemetric.providers.model_source import resolve_source

    model = MaskedLM.load(resolve_source(str(tiny_bert)), device="cpu")
    text = "there was an old man with a beardd"  # "beardd" -> beard ##d
    (score,) = model.pll([text], chunk_size=3)
    ids = model.tokenizer(text)["input_ids"]
    expected = []
    for position in range(1, len(ids) - 1):  # [CLS] and [SEP] are not scored
        masked = list(ids)
        masked[position] = model.tokenizer.mask_token_id
        with torch.inference_mode():
            logits = model.model(input_ids=torch.tensor([masked])).logits[0, position]
        expected.append(float(torch.log_softmax(logits, -1)[ids[position]]))
    assert score.n_tokens == len(ids) - 2
    assert score.logprob_sum == pytest.approx(math.fsum(expected), abs=1e-4)
    # chunking the masked copies never changes a score
    (one,) = model.pll([text], chunk_size=1)
    assert abs(one.logprob_sum - score.logprob_sum) < 1e-4

    # within-word left-to-right: a word's first piece is scored with its later pieces masked too
    (l2r,) = model.pll([text], variant="word_l2r", chunk_size=64)
    pieces = model.tokenizer.convert_ids_to_tokens(ids)
    split = [i for i, piece in enumerate(pieces) if piece.startswith("##")]
    assert split, pieces
    same = [i for i in range(len(score.token_logprobs)) if i + 1 < split[0] - 1]
    assert all(abs(score.token_logprobs[i] - l2r.token_logprobs[i]) < 1e-6 for i in same)
    assert l2r.token_logprobs[split[0] - 2] != score.token_logprobs[split[0] - 2]
    assert l2r.token_logprobs[-1] == pytest.approx(score.token_logprobs[-1], abs=1e-6)

    scorer = HFScorer(str(tiny_bert), pll="word_l2r", device="cpu")
    assert scorer.masked and scorer.name.endswith("/pll-word_l2r")
    (record,) = scorer.score([pair(0, "there was an old man", "there was an man")])
    assert record.original_tokens == 5 and record.corrupted_tokens == 4


# -- vLLM prompt_logprobs (a double of the documented interface) -----------------------------------
@dataclass
class Logprob:
    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


class DoubleTokenizer:
    bos_token_id, eos_token_id = 1, 2

    def get_vocab(self) -> dict[str, int]:
        return {"<|endoftext|>": 0, "<s>": 1, "</s>": 2}

    def __call__(self, text: str, add_special_tokens: bool = True) -> Any:
        ids = [10 + len(word) for word in text.split()]
        return types.SimpleNamespace(input_ids=([1] if add_special_tokens else []) + ids)


class DoubleLLM:
    instances: ClassVar[list[DoubleLLM]] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.calls: list[tuple[list[Any], Any]] = []
        DoubleLLM.instances.append(self)

    def get_tokenizer(self) -> DoubleTokenizer:
        return DoubleTokenizer()

    def generate(self, prompts: list[Any], params: Any, use_tqdm: bool = True) -> list[Any]:
        self.calls.append((prompts, params))
        outputs = []
        for prompt in prompts:
            ids = prompt["prompt_token_ids"]
            # vLLM: None for the first position, then {actual id: Logprob, plus top-k others}
            entries: list[dict[int, Logprob] | None] = [None]
            for position, token in enumerate(ids[1:], start=1):
                entries.append(
                    {token: Logprob(-0.01 * token * position), 99: Logprob(-0.001, rank=1)}
                )
            outputs.append(types.SimpleNamespace(prompt_logprobs=entries, outputs=[]))
        return outputs


def test_vllm_scorer_reads_prompt_logprobs_of_the_actual_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = types.ModuleType("vllm")
    module.LLM = DoubleLLM  # type: ignore[attr-defined]
    module.SamplingParams = lambda **kw: types.SimpleNamespace(**kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    from poemetric.probes.scorers.vllm_scorer import VLLMScorer

    scorer = VLLMScorer("/models/tiny")
    (record,) = scorer.score([pair(0, "an old man", "an man")])
    (engine,) = DoubleLLM.instances[-1:]
    assert engine.kwargs["enable_prefix_caching"] is False
    assert engine.kwargs["dtype"] == "float32"
    prompts, params = engine.calls[0]
    assert params.prompt_logprobs == 0 and params.max_tokens == 1
    assert prompts[0]["prompt_token_ids"] == [0, 12, 13, 13]  # prefix <|endoftext|>, then words
    expected = -0.01 * (12 * 1 + 13 * 2 + 13 * 3)
    assert record.original_logprob == pytest.approx(expected)
    assert record.original_tokens == 3 and record.corrupted_tokens == 2


# -- chat forced choice through the runner ---------------------------------------------------------
def test_chat_forced_choice_is_fair_strict_and_resumable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from poemetric.probes.scorers.chat import ChatScorer, original_positions, parse_choice

    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    assert parse_choice("2") == 2 and parse_choice("Poem 1.") == 1 and parse_choice(" 1\n") == 1
    assert parse_choice("I think 1") is None and parse_choice("1 or 2") is None
    pairs = [pair(n, f"{POEM} {n}") for n in range(10)]
    positions = original_positions(pairs, seed=0)
    assert original_positions(pairs[3:5], seed=0) == {p.id: positions[p.id] for p in pairs[3:5]}
    many = original_positions([pair(n) for n in range(1000)], seed=0).values()
    assert 450 < sum(1 for p in many if p == 1) < 550  # a fair coin per pair
    originals = {p.original for p in pairs}
    lock = threading.Lock()
    garbled = {"left": 1}

    def answer(call: ChatCall) -> str:
        first = re.search(r"Poem 1:\n(.*?)\n\nPoem 2:", call.prompt, re.S)
        assert first is not None
        with lock:
            if garbled["left"]:
                garbled["left"] -= 1
                return "Hard to say, maybe the first one."
        return "Poem 1." if first.group(1) in originals else "2"

    with OpenAIServer(answer, api_key=TEST_KEY) as server:
        spec = openai_spec(server.base_url, name="chat-test")
        scorer = ChatScorer(spec, tmp_path / "run", options=replace(FAST, progress=False))
        records = scorer.score(pairs)
        verdicts = [r.verdict_sum for r in records]
        assert verdicts.count("correct") == 9 and verdicts.count("unanswered") == 1
        assert all(r.original_logprob is None for r in records)
        calls = len(server.generation_requests)
        assert calls == 10
        again = ChatScorer(spec, tmp_path / "run", options=replace(FAST, progress=False))
        second = again.score(pairs)
        # ok rows are not asked again; the garbled answer is re-parsed from the cache (no call)
        assert len(server.generation_requests) == calls
        assert [r.verdict_sum for r in second] == verdicts


def test_text_scores_are_computed_once_per_distinct_text() -> None:
    from poemetric.probes.scorers.base import score_by_texts

    seen: list[str] = []

    def fake(texts: list[str]) -> list[SequenceScore]:  # type: ignore[type-arg]
        seen.extend(texts)
        return [SequenceScore(-float(len(t)), len(t.split())) for t in texts]

    pairs = [pair(0), pair(1, corrupted=POEM.replace("feared", "dreaded"))]
    records = score_by_texts(pairs, "fake", fake)  # type: ignore[arg-type]
    assert len(seen) == 3 and len(set(seen)) == 3
    assert records[0].verdict_sum == "wrong"  # "hair" is shorter, so "more probable" here


def test_probe_cli_rejects_bad_input_with_file_and_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from poemetric.cli import app
    from poemetric.probes.pairs import write_jsonl

    pairs = tmp_path / "pairs.jsonl"
    write_jsonl([pair(0), pair(1)], pairs)
    pairs.write_text(pairs.read_text() + "{not json\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["probe", "run", str(pairs), "-o", str(tmp_path / "s.jsonl")])
    assert result.exit_code == 2 and "pairs.jsonl:3: not valid JSON" in result.output
    write_jsonl([pair(0), pair(1)], pairs)
    result = runner.invoke(
        app, ["probe", "run", str(pairs), "--scorer", "nope", "-o", str(tmp_path / "s.jsonl")]
    )
    assert result.exit_code == 2 and "unknown scorer 'nope'" in result.output
    result = runner.invoke(app, ["probe", "build", "demo", "--tasks", "rhyme_swap", "-o", "x"])
    assert result.exit_code == 2 and "unknown task" in result.output
    assert not (tmp_path / "s.jsonl").exists()


def test_last_line_through_a_chat_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from poemetric.data import load_dataset
    from poemetric.probes.builders import SourcePoem
    from poemetric.probes.chat_lines import ChatLineGenerator
    from poemetric.probes.last_line import build_last_line_pairs

    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    poems = [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems[:2]
    ]
    answers = iter(["Sure! Here it is:\n", "\u201cAnd they all flew away from his beard.\u201d"])

    def answer(call: ChatCall) -> str:
        assert "It must rhyme with" in call.prompt and "Write the missing last line" in call.prompt
        return next(answers, "A line that does not rhyme at all")

    with OpenAIServer(answer, api_key=TEST_KEY) as server:
        # One call at a time: the answers go to the samples in order.
        spec = openai_spec(server.base_url, name="liner", max_concurrency=1)
        generator = ChatLineGenerator(spec, tmp_path / "run", attempts=2, options=FAST)
        pairs = build_last_line_pairs(poems, generator, seed=0, task="last_line_chat")
        assert len(server.generation_requests) == 4
    (pair,) = pairs  # only the first poem got a rhyming line; preambles and quotes are stripped
    assert pair.task == "last_line_chat" and pair.details["generated"] == (
        "And they all flew away from his beard."
    )
    assert [c["verdict"] for c in pair.details["candidates"]] == ["does not rhyme", "ok"]


def test_last_lines_of_another_model_are_its_own_and_not_warned_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line's id covers its model and settings: a generator file pointed at another model is
    asked its own lines, none of the earlier model's is used, so the warning that stored
    answers are kept and relabelled (true of generate and judge) was false here, and pointing
    it back, which asks nothing, warned too. The lines stored count as the models' answers."""
    from poemetric.data import load_dataset
    from poemetric.probes.builders import SourcePoem
    from poemetric.probes.chat_lines import ChatLineGenerator
    from poemetric.probes.last_line import build_last_line_pairs
    from poemetric.store import RunStore
    from poemetric.store.models import answered_by

    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    poems = [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems[:2]
    ]
    asked = []
    with OpenAIServer(lambda call: "And they all flew away from his beard.", api_key=TEST_KEY) as s:
        for model in ("model-a", "model-b", "model-a"):
            spec = openai_spec(s.base_url, name="liner").model_copy(update={"model": model})
            generator = ChatLineGenerator(spec, tmp_path / "run", attempts=2, options=FAST)
            build_last_line_pairs(poems, generator, seed=0, task="last_line_chat")
            asked.append(len(s.generation_requests))
    assert asked == [4, 8, 8]  # model-b asked its own; model-a again asked nothing
    assert "warning" not in capsys.readouterr().err
    with RunStore(tmp_path / "run", create=False) as store:
        assert answered_by(store, "probe-lines", "liner") == {
            "model-a-served": 4,
            "model-b-served": 4,
        }


def test_the_run_report_shows_probe_scores_kept_in_the_run(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from poemetric.analysis.synthetic import build_synthetic_run
    from poemetric.cli import app
    from poemetric.report import build_report
    from poemetric.store import RunStore

    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    (run / "probes").mkdir()
    pairs = run / "probes" / "pairs.jsonl"  # a pairs file beside the scores is skipped, named
    runner = CliRunner()
    built = runner.invoke(app, ["probe", "build", "lear-limericks", "--seed", "0",
                                "--tasks", "rhyme_word_swap,delete_1_rhyming", "-o", str(pairs)])  # fmt: skip
    assert built.exit_code == 0, built.output
    scored = runner.invoke(
        app,
        ["probe", "run", str(pairs), "--scorer", "ngram", "-o", str(run / "probes" / "n.jsonl")],
    )
    assert scored.exit_code == 0, scored.output
    # A copy of the scores (kept under another name) is skipped, named: it counted every pair
    # twice (n 76 for 38 pairs, narrower intervals).
    (run / "probes" / "n-copy.jsonl").write_bytes((run / "probes" / "n.jsonl").read_bytes())
    with RunStore(run, create=False) as store:
        html = build_report(store, tmp_path / "report.html").read_text(encoding="utf-8")
    probes = html[html.index('id="probes"') :]
    probes = probes[: probes.index("</section>")]
    assert "rhyme_word_swap" in probes and "delete_1_rhyming" in probes
    assert "BPoMP 2021, Table 2" in probes and "Limericks 2022, Table 2" in probes
    assert "pairs.jsonl: not a score file" in probes
    assert "n.jsonl: " in probes and "was scored by ngram:3 already at " in probes
    assert ">38<" in probes and ">76<" not in probes  # delete_1_rhyming: one per limerick
    # The tables come from the first of the two copies alone: the skipped files (the pairs, the
    # other copy) are not named as their source.
    assert "From n-copy.jsonl in RUN/probes/" in probes


def test_probe_run_hf_stopped_says_that_nothing_was_written(
    tiny_bert: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during `probe run --scorer hf:` exited 130 with no word of the scores (chat: says
    where its answers are and how to resume)."""
    import transformers
    from typer.testing import CliRunner

    from poemetric.cli import app
    from poemetric.probes.pairs import write_jsonl

    def ctrl_c(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C in the middle of a forward pass

    monkeypatch.setattr(transformers.BertForMaskedLM, "forward", ctrl_c)
    pairs, scores = tmp_path / "pairs.jsonl", tmp_path / "scores.jsonl"
    write_jsonl([pair(0), pair(1)], pairs)
    args = ["probe", "run", str(pairs), "--scorer", f"hf:{tiny_bert}", "--device", "cpu"]
    result = CliRunner().invoke(app, [*args, "-o", str(scores)])
    assert result.exit_code == 130, result.output
    text = " ".join(result.output.split())
    assert f"Interrupted. Nothing was written: {scores} is written once every pair" in text
    assert "Run it again with: poemetric" in text and not scores.exists()


def test_probe_run_hf_progress_goes_to_stderr(tiny_bert: Path, tmp_path: Path) -> None:
    """`probe run --scorer hf:` wrote its progress lines to stdout, so `probe run ... >
    results.md` mixed them into the tables; they go to stderr now, as `form check`'s do, and
    stdout holds only the summary line and the tables."""
    from typer.testing import CliRunner

    from poemetric.cli import app
    from poemetric.probes.pairs import write_jsonl

    pairs, scores = tmp_path / "pairs.jsonl", tmp_path / "scores.jsonl"
    words = POEM.split()
    write_jsonl([pair(k, " ".join(words[k:] + words[:k])) for k in range(len(words))], pairs)
    args = ["probe", "run", str(pairs), "--scorer", f"hf:{tiny_bert}", "--device", "cpu"]
    env = {"POEMETRIC_PROGRESS_EVERY": "0.001"}  # stderr is no terminal here: lines, no bar
    result = CliRunner().invoke(app, [*args, "--batch-size", "1", "-o", str(scores)], env=env)
    assert result.exit_code == 0, result.output
    line = re.compile(r"^\[\d\d:\d\d:\d\d\] hf:\S+: \d+/\d+ ", re.M)
    assert line.search(result.stderr), result.stderr
    assert not line.search(result.stdout) and "elapsed" not in result.stdout, result.stdout
    assert result.stdout.startswith(f"{len(words)} pairs scored by hf:"), result.stdout
