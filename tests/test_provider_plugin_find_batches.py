"""A third-party provider with the optional `FindsBatches` (docs/providers.md): its submission's
answer lost, the next run finds the batch by its tag and collects it; a `find_batches` with a
bug leaves the model stopped as before, its traceback in the call log. The plugin installed
through a real entry point, run through the real `poemetric generate`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_provider_plugins import Installer, cli, install, user_models

from poemetric.store import RunStore

__all__ = ["install", "user_models"]  # fixtures


#: The first submission creates its batch, then loses the answer (a ProviderError with a 500);
#: TOY_FIND_BUG makes `find_batches` raise, TOY_FIND_TWICE return each batch twice. BATCHES is its "service": {id: (tag, keys)}.
PLUGIN = """\
    import os
    from typing import ClassVar

    from poemetric.providers import Completion, Provider, ProviderError, TokenUsage
    from poemetric.providers.base import BatchCapable, BatchSearch, BatchStatus, FindsBatches

    BATCHES = {}
    ANSWER = "A line of batch verse\\nAnother line of it"


    class Plugin(Provider, BatchCapable, FindsBatches):
        name: ClassVar[str] = "NAME"

        async def generate(self, request):
            return Completion(text=ANSWER)

        async def submit_batch(self, items):
            raise AssertionError("the runner submits through submit_tagged_batch")

        async def submit_tagged_batch(self, items, tag):
            batch_id = f"toy-batch-{len(BATCHES)}"
            BATCHES[batch_id] = (tag, [key for key, _ in items])
            if len(BATCHES) == 1:
                raise ProviderError("toy: HTTP 500: gateway", retryable=True, status=500)
            return batch_id

        async def find_batches(self, tag, *, since):
            if os.environ.get("TOY_FIND_BUG"):
                raise KeyError("no 'data' in the list")
            found = tuple(b for b, (t, _) in BATCHES.items() if t == tag)
            if os.environ.get("TOY_FIND_TWICE"):  # a list read twice over (a cursor ignored)
                found += found
            return BatchSearch(found, len(BATCHES))

        async def batch_status(self, batch_id):
            n = len(BATCHES[batch_id][1])
            return BatchStatus(batch_id=batch_id, state="completed", total=n, completed=n)

        async def batch_results(self, batch_id):
            usage = TokenUsage(input_tokens=3, output_tokens=5)
            return {key: Completion(text=ANSWER, usage=usage) for key in BATCHES[batch_id][1]}
"""


@pytest.mark.parametrize(
    ("bug", "twice"),
    [(False, False), (False, True), (True, False)],
    ids=["found", "found-twice", "find-bug"],
)
def test_a_plugin_that_finds_batches_gets_its_lost_batch_collected(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    bug: bool,
    twice: bool,
) -> None:
    """`found-twice`: an adapter naming one batch twice has found one batch, not several."""
    module = install("toy", PLUGIN)
    # max_retries 0: no search in the run that lost the answer (`test_batch_retry_search`)
    user_models(
        "generators", "mine", "name: mine\nprovider: toy\nmodel: x\nlimits:\n  max_retries: 0\n"
    )
    run = tmp_path / "run"
    args = ["generate", "--run", str(run), "--models", "mine", "--limit", "3", "--batch",
            "--no-progress"]  # fmt: skip
    code, out, err = cli(*args)
    assert code == 1, out + err
    with RunStore(run) as store:
        (marker,) = [r["batch_id"] for r in store.query("SELECT batch_id FROM batches")]
    service = sys.modules[module].BATCHES
    assert service == {"toy-batch-0": (marker, service["toy-batch-0"][1])}
    said = " ".join(out.split())
    assert (
        f"the next run with --batch looks for it in the provider's batch list (it carries {marker})"
        in said
    )

    if bug:
        monkeypatch.setenv("TOY_FIND_BUG", "1")
    if twice:
        monkeypatch.setenv("TOY_FIND_TWICE", "1")
    code, out, err = cli(*args)
    said = " ".join(out.split())
    assert len(service) == 1  # nothing submitted again
    with RunStore(run) as store:
        ok = store.count("generations", "author = 'mine' AND status = 'ok'")
        rows = [(r["batch_id"], r["status"]) for r in store.query("SELECT * FROM batches")]
        traces = store.query("SELECT cache_key, detail FROM calls WHERE outcome = 'adapter-error'")
    if not bug:
        assert code == 0, out + err
        assert "found batch toy-batch-0 in the provider's batch list (1 batch searched)" in said
        assert ok == 3 and rows == [("toy-batch-0", "collected")] and traces == []
        return
    assert code == 1 and ok == 0 and rows == [(marker, "submitting")], out + err
    assert (
        "the provider's batch list could not be searched for it: find_batches raised KeyError: "
        "\"no 'data' in the list\" (a bug in the adapter, its traceback in the run's call log)"
        in said
    )
    assert f"batches abandon {marker} --run {run} --force" in said
    ((cache_key, trace),) = [(t["cache_key"], t["detail"]) for t in traces]
    assert cache_key == marker and trace.startswith("find_batches: Traceback")


#: A plugin whose batch API refuses the tag with `TagRefused` (docs/providers.md) worded by
#: the service's empty error text; its untagged `submit_batch` is accepted. A second tagged
#: submission raises what is no ProviderError, so that a runner sending the refused tag again
#: stops (an adapter bug) instead of asking on.
REFUSES_TAGS = """\
    from typing import ClassVar

    from poemetric.providers import Completion, Provider, TokenUsage
    from poemetric.providers.base import BatchCapable, BatchSearch, BatchStatus, FindsBatches
    from poemetric.providers.base import TagRefused

    BATCHES = {}
    TAGGED = []
    ANSWER = "A line of batch verse\\nAnother line of it"


    class Plugin(Provider, BatchCapable, FindsBatches):
        name: ClassVar[str] = "NAME"

        async def generate(self, request):
            return Completion(text=ANSWER)

        async def submit_tagged_batch(self, items, tag):
            TAGGED.append(tag)
            if len(TAGGED) > 1:
                raise RuntimeError("the refused tag was sent again")
            raise TagRefused("", status=400)  # the service said no more than its status

        async def submit_batch(self, items):
            batch_id = f"toy-batch-{len(BATCHES)}"
            BATCHES[batch_id] = [key for key, _ in items]
            return batch_id

        async def find_batches(self, tag, *, since):
            return BatchSearch((), len(BATCHES))

        async def batch_status(self, batch_id):
            n = len(BATCHES[batch_id])
            return BatchStatus(batch_id=batch_id, state="completed", total=n, completed=n)

        async def batch_results(self, batch_id):
            usage = TokenUsage(input_tokens=3, output_tokens=5)
            return {key: Completion(text=ANSWER, usage=usage) for key in BATCHES[batch_id]}
"""


def test_a_tag_refused_with_an_empty_message_is_asked_once(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """The refusal's text was the flag that the model's batches go untagged: an adapter's
    `TagRefused("")` left it empty, so the same batch was submitted tagged again, refused
    again, without end."""
    module = install("toy", REFUSES_TAGS)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--limit", "3",
                         "--batch", "--no-progress")  # fmt: skip
    assert code == 0, out + err
    plugin = sys.modules[module]
    assert len(plugin.TAGGED) == 1 and list(plugin.BATCHES) == ["toy-batch-0"]
    with RunStore(run) as store:
        assert store.count("generations", "author = 'mine' AND status = 'ok'") == 3
        assert [r["batch_id"] for r in store.query("SELECT batch_id FROM batches")] == [
            "toy-batch-0"
        ]
    said = " ".join(out.split())
    assert said.count("its batch API refused the tag sent with each batch submission") == 1
