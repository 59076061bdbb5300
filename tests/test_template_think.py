"""A reasoning block the chat template opened (DeepSeek-R1 distills, QwQ: the prompt ends with
"<think>\\n"): a local adapter puts the tag back in front of the answer (`template_think`), so
that an answer cut at the token limit before its `</think>` is reasoning with no poem, not its
whole reasoning stored, form-checked and judged as the poem."""

from __future__ import annotations

from poemetric.extraction import extract_poem
from poemetric.providers.template_think import (
    opening_of_prompt,
    template_opening,
    with_template_opening,
)

R1_PROMPT = "<｜begin▁of▁sentence｜><｜User｜>Write a limerick.<｜Assistant｜><think>\n"
QWQ_PROMPT = "<|im_start|>user\nWrite a limerick.<|im_end|>\n<|im_start|>assistant\n<think>\n"
#: Qwen3 with enable_thinking false: the template closes the empty block itself.
CLOSED_PROMPT = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
REASONING = (
    "Okay, the user wants a limerick. AABBA, anapestic.\n"
    "There once was a man from Peru\n"
    "who dreamed he was eating his shoe"
)
POEM = (
    "A sailor who sailed from Bombay\n"
    "Would sing to the fish every day;\n"
    "They swam up to hear\n"
    "His shanties so clear,\n"
    "Then carried his dinner away."
)


def test_the_opening_tag_a_template_ends_the_prompt_with_is_found() -> None:
    assert template_opening(R1_PROMPT) == "<think>\n"
    assert template_opening(QWQ_PROMPT) == "<think>\n"
    assert template_opening("<|im_start|>assistant\n") is None
    assert template_opening(CLOSED_PROMPT) is None
    # a tag the user wrote earlier in the prompt does not open the answer
    assert template_opening("<|User|>Use <think> tags.<|Assistant|>") is None


def test_a_prompt_given_as_token_ids_is_read_from_its_decoded_tail() -> None:
    def decode(ids: list[int]) -> str:
        return "".join(chr(i) for i in ids)

    ids = [ord(c) for c in R1_PROMPT]
    assert opening_of_prompt(ids, decode) == "<think>\n"
    assert opening_of_prompt([ord(c) for c in "<|Assistant|>"], decode) is None

    def broken(ids: list[int]) -> str:
        raise TypeError("cannot decode")

    assert opening_of_prompt(ids, broken) is None


def test_an_answer_cut_before_its_closing_tag_is_reasoning_with_no_poem() -> None:
    cut = with_template_opening(REASONING, template_opening(R1_PROMPT), "length")
    assert cut.startswith("<think>\n")
    extracted = extract_poem(cut)
    assert extracted.poem == ""
    assert extracted.reasoning == REASONING
    assert any("unclosed <think> block" in note for note in extracted.notes)
    # without the tag, the whole reasoning was the poem
    assert "Peru" in extract_poem(REASONING).poem


def test_a_finished_answer_extracts_as_before() -> None:
    answer = f"{REASONING}\n</think>\n\n{POEM}"
    before = extract_poem(answer)
    after = extract_poem(with_template_opening(answer, template_opening(QWQ_PROMPT), "stop"))
    assert after.poem == before.poem == POEM
    assert after.reasoning == before.reasoning == REASONING


def test_no_tag_is_added_where_the_template_opened_none_or_the_answer_opens_one() -> None:
    assert with_template_opening(POEM, template_opening(CLOSED_PROMPT), "length") == POEM
    own = "<think>\nhmm</think>\n" + POEM
    assert with_template_opening(own, "<think>\n", "stop") == own


def test_an_answer_the_model_ended_without_a_closing_tag_is_left_as_it_was() -> None:
    """A tokenizer that drops `</think>` as a special token, or a model that wrote the poem
    straight away: the whole answer would otherwise be read as reasoning."""
    assert with_template_opening(POEM, "<think>\n", "stop") == POEM
    assert with_template_opening(POEM, "<think>\n", "max_tokens") == "<think>\n" + POEM
