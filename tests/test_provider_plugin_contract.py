"""A third-party provider breaking the adapter contract at the runner's boundary (docs/providers.md,
"Failures"): a `chunk_limit` that raises, a `generate_batch` returning the wrong thing, a
`BatchStatus` with an unknown state, a `ProviderError` whose status is not an int. The plugin is
installed through a real entry point and run through the real `poemetric generate`; the other
model of the command (`markov`) is unaffected."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_provider_plugin_batch import BATCH_PLUGIN
from test_provider_plugins import Installer, cli, install, user_models

from poemetric.store import RunStore

__all__ = ["install", "user_models"]  # fixtures

SECRET = "toy-secret-value-0123"
ARGS = ("--models", "mine,markov", "--limit", "3", "--no-progress")

#: An offline engine (`prefers_batches`) whose `chunk_limit` and `generate_batch` misbehave as
#: TOY_BUG says.
OFFLINE = """\
    import os
    from typing import ClassVar

    from poemetric.providers import Completion, Provider
    from poemetric.providers.remote_common import resolve_api_key


    class Plugin(Provider):
        name: ClassVar[str] = "NAME"
        default_key_envs: ClassVar[tuple[str, ...]] = ("TOY_SERVICE_KEY",)
        prefers_batches: ClassVar[bool] = True

        def chunk_limit(self):
            if os.environ.get("TOY_BUG") == "limit":
                key = resolve_api_key(self.spec, self.default_key_envs)
                raise KeyError(f"no batch_size in the config of {key}")
            return None

        async def generate(self, request):
            return Completion(text="A line\\nAnother line")

        async def generate_batch(self, requests):
            bug = os.environ.get("TOY_BUG")
            if bug == "none":
                return None
            if bug == "short":
                return [Completion(text="A line")] * (len(requests) - 1)
            return [Completion(text="A line\\nAnother line") for _ in requests]
"""


def _run(
    install: Installer,
    user_models: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    run: Path,
    *extra: str,
) -> tuple[int, str, str, str]:
    """Install `source` as provider `toy`, run `generate` for `mine` (toy) and markov; returns
    the exit status, stdout, stderr and the plugin's module name."""
    module = install("toy", source)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    monkeypatch.setenv("TOY_SERVICE_KEY", SECRET)
    code, out, err = cli("generate", "--run", str(run), *ARGS, *extra)
    assert "Traceback" not in out + err and SECRET not in out + err, out + err
    return code, out, err, module


def _adapter_errors(run: Path) -> list[str]:
    with RunStore(run) as store:
        rows = store.query("SELECT detail FROM calls WHERE outcome = 'adapter-error'")
    return [row["detail"] for row in rows]


def _stopped_line(out: str) -> str:
    (line,) = [line for line in out.splitlines() if line.startswith("mine: ")]
    return line


def test_a_chunk_limit_that_raises_stops_its_model_alone(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`chunk_limit` raising ended the whole command with a traceback, markov's poems unwritten."""
    monkeypatch.setenv("TOY_BUG", "limit")
    run = tmp_path / "run"
    code, out, _, module = _run(install, user_models, monkeypatch, OFFLINE, run)
    assert code == 1, out
    line = _stopped_line(out)
    assert line.startswith(
        f"mine: provider 'toy' (entry point 'toy = {module}:Plugin' of package {module} 0.1) "
        "failed in chunk_limit with KeyError: 'no batch_size in the config of ***'. This is a "
        "bug in the adapter"
    ), line
    assert line.endswith("; 3 jobs left for the next run"), line
    with RunStore(run) as store:
        assert store.count("generations", "author = 'markov' AND status = 'ok'") == 3
        assert store.count("generations", "author = 'mine'") == 0  # pending
    (trace,) = _adapter_errors(run)
    assert trace.startswith("chunk_limit: Traceback (most recent call last):"), trace
    assert f"{module}.py" in trace and "***" in trace and SECRET not in trace


@pytest.mark.parametrize(
    ("bug", "returned"),
    [("none", "NoneType, not a sequence of 3 results"), ("short", "2 results for 3 requests")],
)
def test_a_generate_batch_returning_the_wrong_thing_fails_its_chunk(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    bug: str,
    returned: str,
) -> None:
    """`generate_batch` returning None ended the whole command with a TypeError (len(None)); a
    list of the wrong length failed the jobs with nothing saying whose bug it was."""
    monkeypatch.setenv("TOY_BUG", bug)
    run = tmp_path / "run"
    code, out, _, module = _run(install, user_models, monkeypatch, OFFLINE, run)
    assert code == 1, out
    error = f"TypeError: generate_batch returned {returned}, one per request"
    with RunStore(run) as store:
        assert store.count("generations", "author = 'markov' AND status = 'ok'") == 3
        rows = store.query("SELECT status, error FROM generations WHERE author = 'mine'")
    assert [(r["status"], r["error"]) for r in rows] == [("error", error)] * 3
    assert _adapter_errors(run) == [f"generate_batch: {error}\n"]
    (warning,) = [line for line in out.splitlines() if ": warning: " in line]
    assert warning.startswith(
        f"mine: warning: provider 'toy' (entry point 'toy = {module}:Plugin' of package "
        f"{module} 0.1) broke the contract of generate_batch (generate_batch returned "
        f"{returned}, one per request), a bug in the adapter: the jobs it failed are stored as "
        "errors (retried by the next run)"
    ), warning

    monkeypatch.delenv("TOY_BUG")  # the fixed adapter: the next run does those jobs
    code, out, err = cli("generate", "--run", str(run), *ARGS)
    assert code == 0, out + err


#: BATCH_PLUGIN whose `batch_status` says a state that is none of BatchStatus's, quoting the key.
ODD_STATE = BATCH_PLUGIN.replace(
    'state="completed"',
    'state=f"done-for-{resolve_api_key(self.spec, self.default_key_envs)}"',
)


def test_a_batch_status_with_an_unknown_state_stops_its_model_alone(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Any state but "in_progress" counted as done, and was stored in the `batches` table as it
    came, the key in it."""
    assert ODD_STATE != BATCH_PLUGIN
    run = tmp_path / "run"
    code, out, _, module = _run(install, user_models, monkeypatch, ODD_STATE, run, "--batch")
    assert code == 1, out
    line = _stopped_line(out)
    assert line.startswith(
        f"mine: provider 'toy' (entry point 'toy = {module}:Plugin' of package {module} 0.1) "
        "failed in batch_status for batch toy-batch-0 with ValueError: it returned a "
        "BatchStatus with state 'done-for-***', not one of cancelled, completed, expired, "
        "failed, in_progress. This is a bug in the adapter"
    ), line
    assert line.endswith("; 3 jobs left for the next run"), line
    with RunStore(run) as store:
        assert store.count("generations", "author = 'markov' AND status = 'ok'") == 3
        assert store.count("generations", "author = 'mine'") == 0  # pending: polled again
        batches = store.query("SELECT batch_id, status, detail FROM batches")
    assert [b["batch_id"] for b in batches] == ["toy-batch-0"]
    assert all(b["status"] != "collected" and SECRET not in str(b["detail"]) for b in batches)
    assert SECRET not in "".join(str(b["status"]) for b in batches)
    (trace,) = _adapter_errors(run)
    assert trace.startswith("batch_status for batch toy-batch-0: ValueError: it returned"), trace
    assert SECRET not in trace


#: A `generate` that fails with a ProviderError whose status is a str quoting the key.
ODD_STATUS = """\
    from typing import ClassVar

    from poemetric.providers import Provider, ProviderError
    from poemetric.providers.remote_common import resolve_api_key


    class Plugin(Provider):
        name: ClassVar[str] = "NAME"
        default_key_envs: ClassVar[tuple[str, ...]] = ("TOY_SERVICE_KEY",)

        async def generate(self, request):
            key = resolve_api_key(self.spec, self.default_key_envs)
            raise ProviderError("the service is overloaded", retryable=False,
                                status=f"overloaded ({key})")
"""


def test_a_provider_error_whose_status_is_not_an_int_loses_it(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The status was stored in the call log's `http_status` as it came, and quoted unredacted
    ("HTTP overloaded (<key>): ...") in each job's error row."""
    run = tmp_path / "run"
    code, out, _, module = _run(install, user_models, monkeypatch, ODD_STATUS, run)
    assert code == 1, out  # the jobs failed, as the error says
    with RunStore(run) as store:
        assert store.count("generations", "author = 'markov' AND status = 'ok'") == 3
        rows = store.query("SELECT status, error FROM generations WHERE author = 'mine'")
        statuses = store.query("SELECT DISTINCT http_status FROM calls WHERE outcome = 'error'")
    assert [(r["status"], r["error"]) for r in rows] == [("error", "the service is overloaded")] * 3
    assert [s["http_status"] for s in statuses] == [None]
    (trace,) = _adapter_errors(run)
    assert trace.startswith("generate: status 'overloaded (***)': Traceback"), trace
    assert f"{module}.py" in trace and SECRET not in trace
    (warning,) = [line for line in out.splitlines() if ": warning: " in line]
    assert (
        f"mine: warning: provider 'toy' (entry point 'toy = {module}:Plugin' of package "
        f"{module} 0.1) raised a ProviderError whose status is not an int (str) in generate "
        f"({module}.py, line "
    ) in warning, warning
    assert "the status was dropped, the error otherwise handled as it says" in warning
