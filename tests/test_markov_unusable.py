"""The Markov baseline refuses what it cannot use instead of storing nonsense as ok poems.

`candidates: 0` in a model file sampled no line and stored every line of every poem as "..."
with status ok; `order: two` failed every job with a bare `ValueError: invalid literal for
int()`. A dataset of one poem (the prompt's own, which the baseline leaves out) failed with
"cannot train a Markov model on an empty corpus", as if the dataset held no poems."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_roster_options import _user_folder
from test_roster_unusable import _invoke

from poemetric.providers.base import GenerationSettings, ModelSpec, ProviderError, RunCorpus
from poemetric.providers.offline import MarkovProvider
from poemetric.roster import load_catalog
from poemetric.runner.jobs import user_request

FILE = "name: NAME\nprovider: markov\nmodel: markov-ngram\noptions:\n  order: 2\n  {option}\n"
BAD = {
    "mk-none": ("candidates: 0", "candidates", "0"),
    "mk-negative": ("candidates: -3", "candidates", "-3"),
    "mk-word": ("order: two", "order", "'two'"),
    "mk-fraction": ("order: 1.5", "order", "1.5"),
    "mk-empty": ("order:", "order", "None"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_an_unusable_option_value_makes_the_model_file_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    option, key, shown = BAD[name]
    text = FILE.format(option=option).replace("  order: 2\n  order", "  order")
    folder = _user_folder(tmp_path, monkeypatch, {name: text})
    line = text.splitlines().index(f"  {option}") + 1
    reason = f"options.{key}: must be a whole number of at least 1, not {shown}"
    run = tmp_path / "run"
    code, out, err = _invoke(
        "generate", "--run", str(run), "--dataset", "demo", "--models", name, "--no-progress"
    )
    assert (code, out) == (2, ""), err
    assert err.splitlines() == [
        f"error: {folder / f'{name}.yaml'}:{line}: model {name!r} cannot be used: {reason}; "
        f"details: `poemetric models show {name}`"
    ]
    assert not run.exists()  # no poem of "..." lines stored as ok
    assert load_catalog().unusable[name].reason == reason


def test_the_shipped_markov_file_and_whole_numbers_are_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user_folder(tmp_path, monkeypatch, {"mk-ok": FILE.format(option="candidates: 1")})
    catalog = load_catalog()
    assert "mk-ok" in catalog.entries and "markov" in catalog.entries
    assert not catalog.unusable


def test_a_spec_built_in_code_with_an_unusable_option_is_refused_before_any_job() -> None:
    spec = ModelSpec(name="mk", provider="markov", model="m", options={"candidates": 0})
    with pytest.raises(ProviderError, match=r"options\.candidates: must be a whole number"):
        MarkovProvider(spec).preflight()
    MarkovProvider(ModelSpec(name="mk", provider="markov", model="m")).preflight()


def test_a_one_poem_dataset_says_that_only_the_prompts_own_poem_was_there() -> None:
    corpus = RunCorpus("one-poem", (("only", "A single line of verse\nAnd one more line"),))
    context = {"poem_id": "only", "form": "limerick", "corpus": corpus}
    provider = MarkovProvider(ModelSpec(name="markov", provider="markov", model="markov"))
    request = user_request("p", GenerationSettings(), 0, context)
    with pytest.raises(ProviderError) as raised:
        asyncio.run(provider.generate(request))
    message = str(raised.value)
    assert "empty corpus" not in message
    assert "no lines but those of this prompt's own poem (only)" in message
    assert "at least two poems" in message
    assert not raised.value.retryable
