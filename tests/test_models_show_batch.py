"""`models show` and `pricing.batch_discount`: it printed the default 0.5 for every model, also
for providers without a batch API (plugins, local engines), whose calls never get it. The
plugins are installed through real entry points and run through the real `poemetric`."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from test_provider_plugin_batch import BATCH_PLUGIN
from test_provider_plugins import GOOD, Installer, cli, install, user_models

from poemetric.store import RunStore

__all__ = ["install", "user_models"]  # fixtures

#: $1 per token: 3 + 5 tokens a call cost $8, $4 at a batch discount of 0.5.
PRICED = "pricing: {input_per_mtok: 1000000, output_per_mtok: 1000000}\n"


def pricing(output: str) -> tuple[dict[str, float], list[str]]:
    """The `pricing:` mapping of `models show` (still YAML) and its comment lines."""
    block = output.split("pricing:\n", 1)[1].split("\nlimits:", 1)[0].splitlines()
    return yaml.safe_load(output)["pricing"], [line.strip() for line in block if "#" in line]


def test_models_show_claims_no_discount_without_a_batch_api(
    install: Installer, user_models: Callable[..., Path]
) -> None:
    install("plain", GOOD)
    install("batched", BATCH_PLUGIN)
    user_models("generators", "plain-model", "name: plain-model\nprovider: plain\nmodel: x\n")
    user_models("generators", "batched-model", "name: batched-model\nprovider: batched\nmodel: x\n")
    for name in ("plain-model", "markov"):
        code, out, err = cli("models", "show", name)
        assert code == 0, out + err
        shown, notes = pricing(out)
        assert "batch_discount" not in shown
        provider = "plain" if name == "plain-model" else "markov"
        assert notes == [
            f"# no batch_discount: provider {provider!r} has no batch API (--batch does not "
            "change its price)"
        ]
    for name in ("batched-model", "gpt-4o"):
        code, out, err = cli("models", "show", name)
        shown, notes = pricing(out)
        assert (code, shown["batch_discount"], notes) == (0, 0.5, []), out + err


def test_an_openai_compatible_discount_is_said_to_need_a_batch_api(
    user_models: Callable[..., Path],
) -> None:
    user_models("generators", "served", "name: served\nprovider: openai-compatible\nmodel: x\n"
                "base_url: http://127.0.0.1:9/v1\napi_key_env: SERVED_KEY\n")  # fmt: skip
    code, out, err = cli("models", "show", "served")
    shown, notes = pricing(out)
    assert (code, shown["batch_discount"]) == (0, 0.5), out + err
    assert notes == ["# batch_discount: only where the server has an OpenAI batch API (/batches)"]


@pytest.mark.parametrize(("source", "cost"), [(GOOD, 8.0), (BATCH_PLUGIN, 4.0)],
                         ids=["no-batch-api", "batch-api"])  # fmt: skip
def test_the_discount_is_paid_only_through_a_batch_api(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    cost: float,
) -> None:
    """With --batch, a provider without a batch API is called one request at a time at the full
    price (its rows record no batch); only calls sent through a batch API get the discount."""
    install("toy", source.replace("return Completion(text=ANSWER)", "raise AssertionError"))
    monkeypatch.setenv("TOY_SERVICE_KEY", "toy-secret-value-0123")
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n" + PRICED)
    run = str(tmp_path / "run")
    code, out, err = cli("generate", "--run", run, "--models", "mine", "--limit", "2", "--batch",
                         "--no-progress")  # fmt: skip
    assert code == 0, out + err
    with RunStore(run) as store:
        rows = store.query("SELECT cost_usd, batch_id FROM generations WHERE author = 'mine'")
    assert [row["cost_usd"] for row in rows] == [pytest.approx(cost)] * 2
    assert all((row["batch_id"] is not None) == (source is BATCH_PLUGIN) for row in rows)


#: A provider with a batch API that is served in-process chunks: `--batch` never sends it one.
IN_PROCESS_WITH_BATCH_API = """\
    from typing import ClassVar

    from poemetric.providers import Completion, TokenUsage
    from poemetric.providers.base import BatchCapable
    from poemetric.providers.batched import InProcessBatchProvider


    class Plugin(InProcessBatchProvider, BatchCapable):
        name: ClassVar[str] = "NAME"

        def run_batch(self, requests):
            usage = TokenUsage(input_tokens=3, output_tokens=5)
            return [Completion(text="A line of verse\\nAnother line", usage=usage)] * len(requests)

        async def submit_batch(self, items):
            raise AssertionError("never sent a batch")

        async def batch_status(self, batch_id):
            raise AssertionError("never sent a batch")

        async def batch_results(self, batch_id):
            raise AssertionError("never sent a batch")
"""


def test_a_plan_counts_no_discount_for_calls_served_in_process(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """The plan (`--dry-run --batch`) of such a provider counted the batch discount: half the
    cost its calls were then charged."""
    install("toy", IN_PROCESS_WITH_BATCH_API)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n" + PRICED)
    run = str(tmp_path / "run")
    base = ["generate", "--run", run, "--models", "mine", "--limit", "2", "--no-progress"]
    plans = [cli(*base, "--dry-run", *extra) for extra in ([], ["--batch"])]
    estimates = [re.findall(r"\$([0-9.]+) \(input from", out) for _, out, _ in plans]
    assert estimates[0] and estimates[1] == estimates[0], plans
    code, out, err = cli(*base, "--batch")
    assert code == 0, out + err
    with RunStore(run) as store:
        rows = store.query("SELECT cost_usd FROM generations WHERE author = 'mine'")
    assert [row["cost_usd"] for row in rows] == [pytest.approx(8.0)] * 2
