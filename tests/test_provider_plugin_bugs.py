"""A third-party provider (docs/providers.md, "Writing a provider") with a bug outside the batch
methods: `generate` raising something other than `ProviderError`, `aclose` raising. The plugin
is installed through a real entry point and run through the real `poemetric generate`."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from test_provider_plugin_batch import BATCH_PLUGIN
from test_provider_plugins import Installer, cli, install, user_models

from poemetric.runner.adapter_bugs import RAISE_PROVIDER_ERROR
from poemetric.store import RunStore

__all__ = ["install", "user_models"]  # fixtures

SECRET = "toy-secret-value-0123"

#: `generate` has two bugs quoting the key it read: a KeyError for most poems, a ValueError at
#: another line for sonnet 29.
BUGGY_GENERATE = """\
    from typing import ClassVar

    from poemetric.providers import Provider
    from poemetric.providers.remote_common import resolve_api_key


    class Plugin(Provider):
        name: ClassVar[str] = "NAME"
        default_key_envs: ClassVar[tuple[str, ...]] = ("TOY_SERVICE_KEY",)
        prefers_batches: ClassVar[bool] = False

        async def generate(self, request):
            key = resolve_api_key(self.spec, self.default_key_envs)
            if "sonnet-29" in request.context["poem_id"]:
                raise ValueError(f"no choices in the answer for {key}")
            raise KeyError(f"no 'text' in the answer for {key}")
"""


@pytest.mark.parametrize("chunks", [False, True], ids=["concurrent", "offline-chunks"])
def test_a_bug_in_generate_fails_its_jobs_and_logs_each_traceback_once(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    chunks: bool,
) -> None:
    """Each job was an error row "KeyError: ...", as it still is, but the traceback was kept
    nowhere: the plugin's author could not tell where it came from."""
    source = BUGGY_GENERATE
    if chunks:  # the default generate_batch calls generate: the first bug fails the chunk
        source = source.replace("prefers_batches: ClassVar[bool] = False",
                                "prefers_batches: ClassVar[bool] = True")  # fmt: skip
    module = install("toy", source)
    for name in ("mine", "also-mine"):
        user_models("generators", name, f"name: {name}\nprovider: toy\nmodel: x\n")
    monkeypatch.setenv("TOY_SERVICE_KEY", SECRET)
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine,also-mine,markov",
                         "--limit", "3", "--no-progress")  # fmt: skip
    assert code == 1, out + err  # jobs ended in error
    assert "Traceback" not in out + err and SECRET not in out + err
    with RunStore(run) as store:
        rows = store.query("SELECT author, status, error FROM generations WHERE author != "
                           "'human' ORDER BY author, error")  # fmt: skip
        logged = store.query("SELECT model, cache_key, detail FROM calls WHERE outcome = ? "
                             "ORDER BY rowid", ("adapter-error",))  # fmt: skip
        errors = store.count("calls", "outcome = 'error'")
    # The jobs' rows are as they were: one error per job, retried by the next run.
    key_error = "KeyError: \"no 'text' in the answer for ***\""
    value_error = "ValueError: no choices in the answer for ***"
    mine = [key_error] * 3 if chunks else [key_error, key_error, value_error]
    assert [(r["author"], r["status"], r["error"]) for r in rows] == [
        *[("also-mine", "error", e) for e in mine],
        *[("markov", "ok", None)] * 3,
        *[("mine", "error", e) for e in mine],
    ]
    assert errors == 6  # each job's attempt, as before
    # One traceback per model and place that raised, not one per job.
    sites = 1 if chunks else 2
    method = "generate_batch" if chunks else "generate"
    assert len(logged) == 2 * sites, logged
    for entry in logged:
        trace = entry["detail"]
        assert trace.startswith(f"{method}: Traceback (most recent call last):"), trace
        assert f"{module}.py" in trace and "***" in trace and SECRET not in trace
    assert sorted(e["detail"].splitlines()[-1] for e in logged) == sorted(
        ([] if chunks else [value_error] * 2) + [key_error] * 2
    )
    warnings = [line for line in out.splitlines() if ": warning: " in line]
    assert len(warnings) == 2 * sites, out
    line = (
        textwrap.dedent(BUGGY_GENERATE)
        .splitlines()
        .index("        raise KeyError(f\"no 'text' in the answer for {key}\")")
    )
    assert (
        f"mine: warning: provider 'toy' (entry point 'toy = {module}:Plugin' of package "
        f"{module} 0.1) raised KeyError in {method} ({module}.py, line {line + 1}), a bug in the "
        "adapter: the jobs it failed are stored as errors (retried by the next run); "
        f"{RAISE_PROVIDER_ERROR}; its traceback is in the run's call log (`poemetric export calls --run {run}`, outcome "
        "adapter-error)"
    ) in warnings, warnings


#: BATCH_PLUGIN with an `aclose` that raises, quoting the key, for a model whose options say
#: so; `options.delay` slows its calls down.
DELAY = "            await asyncio.sleep(self.spec.options.get('delay', 0))\n"
CLOSING = (
    BATCH_PLUGIN.replace("    import os\n", "    import asyncio\n    import os\n")
    .replace('            self.bug("submit")\n', '            self.bug("submit")\n' + DELAY)
    .replace(
        "        async def generate(self, request):\n",
        "        async def aclose(self):\n"
        "            if self.spec.options.get('close_bug'):\n"
        "                key = resolve_api_key(self.spec, self.default_key_envs)\n"
        "                raise KeyError(f'cannot close the client of {key}')\n"
        "\n"
        "        async def generate(self, request):\n" + DELAY,
    )
)


@pytest.mark.parametrize("mode", ["concurrent", "batch", "dry-run"])
def test_an_aclose_that_raises_is_a_warning(
    install: Installer,
    user_models: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    """It ended the whole command with a traceback, and the model still running (`slow`) was
    cancelled: its results were lost, though every one of the first model's was stored."""
    module = install("toy", CLOSING)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n"
                "options: {close_bug: true}\n")  # fmt: skip
    user_models("generators", "slow", "name: slow\nprovider: toy\nmodel: y\n"
                "options: {delay: 0.3}\n")  # fmt: skip
    monkeypatch.setenv("TOY_SERVICE_KEY", SECRET)
    run = tmp_path / "run"
    extra = {"concurrent": ["--no-progress"], "batch": ["--batch", "--no-progress"],
             "dry-run": ["--dry-run"]}[mode]  # fmt: skip
    code, out, err = cli("generate", "--run", str(run), "--models", "mine,slow,markov",
                         "--limit", "3", *extra)  # fmt: skip
    assert code == 0, out + err  # every result is stored: the exit status says so
    assert "Traceback" not in out + err and SECRET not in out + err
    (warning,) = [line for line in out.splitlines() if ": warning: " in line]
    assert warning.startswith(
        f"mine: warning: provider 'toy' (entry point 'toy = {module}:Plugin' of package "
        f"{module} 0.1) failed in aclose with KeyError: 'cannot close the client of ***'. This "
        "is a bug in the adapter: the results are stored"
    ), warning
    if mode == "dry-run":
        assert "call log" not in warning
        return
    assert warning.endswith(f"(`poemetric export calls --run {run}`, outcome adapter-error)")
    with RunStore(run) as store:
        for author in ("mine", "slow", "markov"):
            assert store.count("generations", f"author = '{author}' AND status = 'ok'") == 3
        (logged,) = store.query("SELECT model, cache_key, detail FROM calls WHERE outcome = ?",
                                ("adapter-error",))  # fmt: skip
    assert (logged["model"], logged["cache_key"]) == ("x", "-")
    trace = logged["detail"]
    assert trace.startswith("aclose: Traceback (most recent call last):"), trace
    assert f"{module}.py" in trace and "***" in trace and SECRET not in trace


#: `preflight` has a bug (a KeyError reading its own options) on the line marked BUG.
BUGGY_PREFLIGHT = """\
    from typing import ClassVar

    from poemetric.providers import Completion, Provider


    class Plugin(Provider):
        name: ClassVar[str] = "NAME"

        def preflight(self):
            self.scale = self.spec.options["scale"]  # BUG

        async def generate(self, request):
            return Completion(text="A line\\nAnother line")
"""


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_an_adapter_failing_as_it_starts_names_the_entry_point_and_line(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path, dry_run: bool
) -> None:
    """A constructor or `preflight` raising something other than `ProviderError` said only
    "mine cannot run (2 jobs left pending): KeyError: 'scale'": not which provider, package or
    line, and its traceback was kept nowhere, unlike a bug in `generate`."""
    module = install("toy", BUGGY_PREFLIGHT)
    user_models("generators", "mine", "name: mine\nprovider: toy\nmodel: x\n")
    run = tmp_path / "run"
    args = ["--dry-run"] if dry_run else ["--no-progress"]
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--limit", "2", *args)
    source = textwrap.dedent(BUGGY_PREFLIGHT).splitlines()
    line = next(number for number, text in enumerate(source, 1) if text.endswith("# BUG"))
    assert (
        "mine cannot run (2 jobs left pending): KeyError: 'scale' (in preflight of provider "
        f"'toy' (entry point 'toy = {module}:Plugin' of package {module} 0.1), {module}.py "
        f"line {line}"
    ) in out, out + err
    if dry_run:
        return
    assert code == 1 and "outcome adapter-error" in out
    with RunStore(run) as store:
        logged = store.query("SELECT outcome, detail FROM calls")
    assert [row["outcome"] for row in logged] == ["adapter-error"]
    detail = logged[0]["detail"]
    assert detail.startswith("preflight: Traceback") and "KeyError: 'scale'" in detail
