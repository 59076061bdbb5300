"""`--batch` with a third-party provider (docs/providers.md, "Writing a provider") whose batch
methods have a bug: the plugin installed through a real entry point, run through the real
`poemetric generate`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_provider_plugins import Installer, cli, install, user_models

from poemetric.store import RunStore

__all__ = ["install", "user_models"]  # fixtures


#: A plugin with a batch API whose methods have a bug when TOY_BATCH_BUG names them: a KeyError
#: quoting the key (or, for "junk", a batch id that is not a str). SUBMITTED is its "service".
BATCH_PLUGIN = """\
    import os
    from typing import ClassVar

    from poemetric.providers import Completion, Provider, TokenUsage
    from poemetric.providers.base import BatchCapable, BatchStatus
    from poemetric.providers.remote_common import resolve_api_key

    SUBMITTED = {}
    ANSWER = "A line of batch verse\\nAnother line of it"


    class Plugin(Provider, BatchCapable):
        name: ClassVar[str] = "NAME"
        default_key_envs: ClassVar[tuple[str, ...]] = ("TOY_SERVICE_KEY",)

        async def generate(self, request):
            return Completion(text=ANSWER)

        def bug(self, step):
            if os.environ.get("TOY_BATCH_BUG") == step:
                key = resolve_api_key(self.spec, self.default_key_envs)
                raise KeyError(f"no 'id' in the answer for {key}")

        max_batch_bytes: ClassVar[int | None] = 1_000_000

        def batch_item_bytes(self, custom_id, request):
            self.bug("size")
            return 100

        async def submit_batch(self, items):
            self.bug("submit")
            batch_id = f"toy-batch-{len(SUBMITTED)}"
            SUBMITTED[batch_id] = [key for key, _ in items]
            if os.environ.get("TOY_BATCH_BUG") == "junk":
                return {"id": batch_id}
            return batch_id

        async def batch_status(self, batch_id):
            self.bug("poll")
            n = len(SUBMITTED[batch_id])
            return BatchStatus(batch_id=batch_id, state="completed", total=n, completed=n)

        async def batch_results(self, batch_id):
            self.bug("collect")
            usage = TokenUsage(input_tokens=3, output_tokens=5)
            return {key: Completion(text=ANSWER, usage=usage) for key in SUBMITTED[batch_id]}
"""


@pytest.mark.parametrize(
    ("step", "method", "error"),
    [
        ("submit", "submit_batch", "KeyError: \"no 'id' in the answer for ***\""),
        ("junk", "submit_batch", "TypeError: it returned dict, not a batch id (str): {'id': "),
        ("size", "batch_item_bytes", "KeyError: \"no 'id' in the answer for ***\""),
        ("poll", "batch_status", "KeyError: \"no 'id' in the answer for ***\""),
        ("collect", "batch_results", "KeyError: \"no 'id' in the answer for ***\""),
    ],
)
def test_a_bug_in_a_batch_adapter_stops_its_model_alone(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    step: str,
    method: str,
    error: str,
) -> None:
    """A KeyError (any exception but ProviderError) from a plugin's submit_batch, batch_status,
    batch_results or batch_item_bytes (which sizes the batches) was a traceback that ended the
    whole command, other models included."""
    module = install("toy", BATCH_PLUGIN)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    secret = "toy-secret-value-0123"
    monkeypatch.setenv("TOY_SERVICE_KEY", secret)
    monkeypatch.setenv("TOY_BATCH_BUG", step)
    run = tmp_path / "run"
    args = ["generate", "--run", str(run), "--models", "mine,markov", "--limit", "3", "--batch",
            "--no-progress"]  # fmt: skip
    code, out, err = cli(*args)
    assert code == 1, out + err
    batch = "" if step in ("submit", "junk", "size") else " for batch toy-batch-0"
    stopped = [line for line in out.splitlines() if line.startswith("mine: ")]
    assert len(stopped) == 1, out
    assert stopped[0].startswith(
        f"mine: provider 'toy' (entry point 'toy = {module}:Plugin' of package {module} 0.1) "
        f"failed in {method}{batch} with {error}"
    ), stopped[0]
    assert "a bug in the adapter" in stopped[0]
    assert stopped[0].endswith("; 3 jobs left for the next run")
    assert "Traceback" not in out + err and secret not in out + err
    with RunStore(run) as store:
        assert store.count("generations", "author = 'markov' AND status = 'ok'") == 3
        assert store.count("generations", "author = 'mine'") == 0  # pending: neither ok nor error
        (logged,) = store.query("SELECT cache_key, detail FROM calls WHERE outcome = ?",
                                ("adapter-error",))  # fmt: skip
        batches = store.query("SELECT batch_id, status FROM batches")
    assert logged["cache_key"] == ("-" if not batch else "toy-batch-0")
    trace = logged["detail"]
    if step == "junk":  # nothing raised: the wrong value is the whole story
        assert trace == f"{method}: {error}'toy-batch-0'}}\n"
    else:
        assert trace.startswith(f"{method}{batch}: Traceback (most recent call last):")
        assert f"{module}.py" in trace and "***" in trace and secret not in trace
    # A batch the adapter submitted (and recorded) stays for the next run to poll, not resubmit.
    assert all(b["status"] != "collected" for b in batches)
    monkeypatch.delenv("TOY_BATCH_BUG")
    if step in ("submit", "junk"):
        # The adapter may have created the batch before it failed (the junk step did): its row
        # `unconfirmed-...` stays, and the next run does not submit those jobs again, which
        # could pay twice, until the batch is given up by hand.
        (marker,) = [b["batch_id"] for b in batches]
        assert marker.startswith("unconfirmed-")
        assert "the provider may have accepted the batch all the same" in stopped[0]
        assert f"batches abandon {marker} --run {run} --force" in stopped[0]
        code, out, err = cli(*args)
        assert code == 1 and "lost the provider's answer" in " ".join(out.split()), out + err
        assert len(sys.modules[module].SUBMITTED) == (0 if step == "submit" else 1)
        code, out, err = cli("batches", "abandon", marker, "--run", str(run), "--force")
        assert code == 0, out + err
    else:  # sized before any submission: none was made
        assert [b["batch_id"] for b in batches] == ([] if step == "size" else ["toy-batch-0"])
    code, out, err = cli(*args)
    assert code == 0, out + err
    with RunStore(run) as store:
        assert store.count("generations", "author = 'mine' AND status = 'ok'") == 3
    paid = sys.modules[module].SUBMITTED
    assert len(paid) == (1 if step in ("submit", "poll", "collect", "size") else 2), paid


def test_a_malformed_completion_in_batch_results_fails_that_job_alone(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A batch result whose token count is None (a service's missing field) ended the whole
    command at the cost sum, the batch's other answers unstored."""
    source = BATCH_PLUGIN.replace(
        "            return {key: Completion(text=ANSWER, usage=usage) for key in SUBMITTED[batch_id]}",
        "            results = {key: Completion(text=ANSWER, usage=usage) for key in SUBMITTED[batch_id]}\n"
        "            first = SUBMITTED[batch_id][0]\n"
        "            results[first] = Completion(text=ANSWER, usage=TokenUsage(output_tokens=None))\n"
        "            return results",
    )
    assert source != BATCH_PLUGIN
    install("toy", source)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    monkeypatch.setenv("TOY_SERVICE_KEY", "toy-secret-value-0123")
    run = tmp_path / "run"
    args = ["generate", "--run", str(run), "--models", "mine", "--limit", "3", "--batch",
            "--no-progress"]  # fmt: skip
    code, out, err = cli(*args)
    assert code == 1, out + err  # one job ended in error
    said = "returned a Completion whose usage.output_tokens is None, not an int"
    assert said in " ".join(out.split()), out
    with RunStore(run) as store:
        assert store.count("generations", "author = 'mine' AND status = 'ok'") == 2
        assert store.count("generations", "author = 'mine' AND status = 'error'") == 1


def test_a_setting_refused_at_submission_leaves_no_batch_row_that_stops_the_next_run(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plugin that refuses a request's setting as it builds its batch (`refuse_settings`,
    the adapters' helper, raises before anything is sent): its error did not say so
    (`not_sent`), so the submission's row was kept as "the provider may have accepted the batch
    all the same", and the next run stopped the model until it was abandoned by hand."""
    source = BATCH_PLUGIN.replace(
        '            self.bug("submit")\n',
        '            self.bug("submit")\n'
        '            if os.environ.get("TOY_REFUSE"):\n'
        "                from poemetric.providers.base import refuse_settings\n"
        '                refuse_settings(self.name, {"top_k": "the toy service has no top_k"})\n',
    )
    assert source != BATCH_PLUGIN
    module = install("toy", source)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    monkeypatch.setenv("TOY_SERVICE_KEY", "toy-secret-value-0123")
    monkeypatch.setenv("TOY_REFUSE", "1")
    run = tmp_path / "run"
    args = ["generate", "--run", str(run), "--models", "mine", "--limit", "3", "--batch",
            "--no-progress"]  # fmt: skip
    code, out, err = cli(*args)
    assert code == 1, out + err
    said = " ".join(out.split())
    assert "top_k: the toy service has no top_k" in said, said
    assert "may have accepted the batch" not in said, said
    with RunStore(run) as store:
        assert store.count("batches") == 0
        assert store.count("generations", "author = 'mine'") == 0  # pending, not errors
    monkeypatch.delenv("TOY_REFUSE")
    code, out, err = cli(*args)
    assert code == 0, out + err
    with RunStore(run) as store:
        assert store.count("generations", "author = 'mine' AND status = 'ok'") == 3
    assert len(sys.modules[module].SUBMITTED) == 1
