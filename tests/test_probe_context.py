"""`probe run --scorer hf:` with texts longer than the model's context.

GPT-2 (the model of both papers, 1,024 positions) stopped with `IndexError: index out of range
in self` and a traceback on the project's own dataset (10 of its 163 poems are longer than
1,024 tokens); a masked LM did the same past its 512. The texts are measured first now, and a run
with any text that does not fit is refused (exit 2), naming the pairs and poems. Tiny randomly
initialised GPT-2 and BERT models with 16 positions stand in for the real ones (none installs
offline).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poemetric.probes.pairs import Pair, write_jsonl

WORDS = ["there", "was", "an", "old", "man", "with", "a", "beard", "who", "said", "it", "is",
         "just", "as", "i", "feared"]  # fmt: skip
SHORT = "there was an old man"
LONG = " ".join(WORDS + WORDS[:9])  # 25 words: past 16 positions


def _vocab() -> list[str]:
    return list(dict.fromkeys(["<|endoftext|>", *WORDS]))


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = tmp_path_factory.mktemp("tiny-gpt2")
    vocab = {piece: i for i, piece in enumerate(_vocab())}
    model = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<|endoftext|>"))
    model.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=model, eos_token="<|endoftext|>", bos_token="<|endoftext|>"
    )
    config = transformers.GPT2Config(
        vocab_size=len(vocab), n_positions=16, n_embd=32, n_layer=1, n_head=2,
        bos_token_id=0, eos_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.GPT2LMHeadModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    folder = tmp_path_factory.mktemp("tiny-bert-16")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (folder / "vocab.txt").write_text("\n".join(dict.fromkeys(vocab)) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(folder / "vocab.txt"))
    config = transformers.BertConfig(
        vocab_size=len(dict.fromkeys(vocab)), hidden_size=32, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=64, max_position_embeddings=16,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.BertForMaskedLM(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _pairs(folder: Path) -> Path:
    path = folder / "pairs.jsonl"
    fits = Pair(
        id="fits", poem_id="short", task="synonym", original=SHORT,
        corrupted=SHORT.replace("man", "beard"),
    )  # fmt: skip
    too_long = Pair(
        id="too-long", poem_id="ballad-1", task="synonym", original=LONG,
        corrupted=LONG.replace("beard", "man"),
    )  # fmt: skip
    write_jsonl([fits, too_long], path)
    return path


def _run(model: Path, pairs: Path, scores: Path, *extra: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from poemetric.cli import app

    args = ["probe", "run", str(pairs), "--scorer", f"hf:{model}", "--device", "cpu"]
    result = CliRunner().invoke(app, [*args, "--no-progress", "-o", str(scores), *extra])
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize("kind", ["causal", "masked"])
def test_a_text_past_the_models_context_is_refused_with_its_pair(
    kind: str, tiny_gpt2: Path, tiny_bert: Path, tmp_path: Path
) -> None:
    model = tiny_gpt2 if kind == "causal" else tiny_bert
    scores = tmp_path / "scores.jsonl"
    code, output = _run(model, _pairs(tmp_path), scores)
    assert code == 2, output
    assert "IndexError" not in output and "Traceback" not in output
    assert "longer than the 16 tokens the model takes (its context)" in output
    # 25 words: + the prefix token (causal) or [CLS] and [SEP] (masked)
    longest = 26 if kind == "causal" else 27
    assert (
        f"the longest has {longest} tokens (the original of pair 'too-long', poem 'ballad-1')"
        in output
    )
    assert "1 pair of 1 poem (ballad-1) cannot be scored" in output
    assert not scores.exists()


@pytest.mark.parametrize("kind", ["causal", "masked"])
def test_texts_that_fit_are_scored_as_before(
    kind: str, tiny_gpt2: Path, tiny_bert: Path, tmp_path: Path
) -> None:
    import json

    model = tiny_gpt2 if kind == "causal" else tiny_bert
    scores = tmp_path / "scores.jsonl"
    code, output = _run(model, _pairs(tmp_path), scores, "--tasks", "synonym", "--limit", "1")
    assert code == 0, output
    (record,) = [json.loads(line) for line in scores.read_text().splitlines()]
    assert record["pair_id"] == "fits" and record["original_tokens"] == 5


def test_the_context_is_the_smaller_of_the_positions_and_the_tokenizers_limit() -> None:
    from types import SimpleNamespace

    from poemetric.probes.scorers.context import model_context

    roberta = SimpleNamespace(max_position_embeddings=514)
    assert model_context(roberta, SimpleNamespace(model_max_length=512)) == 512
    gpt2 = SimpleNamespace(n_positions=1024, n_ctx=1024)
    assert model_context(gpt2, SimpleNamespace(model_max_length=int(1e30))) == 1024
    assert model_context(SimpleNamespace(), None) is None


def test_a_last_line_generator_refuses_a_poem_past_its_context(tiny_gpt2: Path) -> None:
    """`probe build -t last_line` with a local generator of 1,024 positions (GPT-2) stopped with
    the same IndexError on a long ballad; it is refused before anything is generated now."""
    from poemetric.probes.last_line import LineRequest, LocalLineGenerator
    from poemetric.providers.base import ModelSpec
    from poemetric.providers.model_source import LocalModelError

    spec = ModelSpec(name="tiny", provider="transformers", model=str(tiny_gpt2),
                     options={"device": "cpu"})  # fmt: skip
    generator = LocalLineGenerator(spec, search="beam", beams=2)
    short = LineRequest("limerick", "there was an old man\n", "i feared", ("beard",), 0)
    (lines,) = generator.candidates([short])  # 1 + 5 prompt tokens, 2 + 2 new: it fits
    assert len(lines) == 2
    long = LineRequest("ballad-1", LONG + "\n", "who said it is just as i feared", ("beard",), 0)
    with pytest.raises(LocalModelError) as refused:
        generator.candidates([short, long])
    message = str(refused.value)
    assert "1 poem (ballad-1) is too long for the 16 tokens tiny (beam) takes" in message
    assert "poem 'ballad-1' needs 36 with its new line" in message  # 1 + 25, then 8 + 2
