"""The prefix token a text is scored after (docs/probes.md, "Scorer rules"): the document
separator `<|endoftext|>` when the vocabulary has one, else BOS, else EOS. `</s>` was listed
before BOS as a "separator", so a Llama-2 or Mistral tokenizer (BOS `<s>`, EOS `</s>`) scored
every text after its end-of-text token instead of the start token its documents begin with."""

from __future__ import annotations

import types

import pytest

from poemetric.providers.model_source import LocalModelError
from poemetric.providers.transformers_engine import prefix_token_id


def tokenizer(vocab: dict[str, int], bos: int | None, eos: int | None) -> types.SimpleNamespace:
    return types.SimpleNamespace(get_vocab=lambda: vocab, bos_token_id=bos, eos_token_id=eos)


def test_a_sentencepiece_tokenizer_is_scored_after_its_bos_not_its_eos() -> None:
    llama = tokenizer({"<unk>": 0, "<s>": 1, "</s>": 2, "▁There": 3}, bos=1, eos=2)
    assert prefix_token_id(llama) == 1


def test_the_gpt2_separator_bos_eos_order_and_an_explicit_token() -> None:
    smol = tokenizer({"<|endoftext|>": 0, "<|im_start|>": 1, "<|im_end|>": 2}, bos=1, eos=2)
    assert prefix_token_id(smol) == 0  # SmolLM2: the document separator, as before
    opt = tokenizer({"<pad>": 1, "</s>": 2}, bos=2, eos=2)
    assert prefix_token_id(opt) == 2
    eos_only = tokenizer({"<|im_end|>": 5, "<s>": 7}, bos=None, eos=5)
    assert prefix_token_id(eos_only) == 5
    undeclared = tokenizer({"a": 0, "<s>": 7}, bos=None, eos=None)
    assert prefix_token_id(undeclared) == 7
    assert prefix_token_id(smol, "<|im_start|>") == 1
    with pytest.raises(LocalModelError, match="not in the vocabulary"):
        prefix_token_id(smol, "<nope>")
    with pytest.raises(LocalModelError, match="no BOS/EOS"):
        prefix_token_id(tokenizer({"a": 0}, bos=None, eos=None))
