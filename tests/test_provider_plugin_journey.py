"""What a plugin author met writing an adapter for an in-house API (docs/providers.md, "Writing
a provider"): an import that fails inside the plugin, a plain exception for the service's 500,
and an adapter that returns an empty text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from test_provider_plugins import Installer, cli, install, user_models

from poemetric.runner.adapter_bugs import RAISE_PROVIDER_ERROR
from poemetric.store import RunStore

__all__ = ["install", "user_models"]  # fixtures

#: A plugin reading its endpoint from the environment as it is imported (line 2).
IMPORT_FAILS = "import os\nBASE = os.environ['LAB_ENDPOINT_NOT_SET_0123']\n"

#: A plugin whose `generate` answers `TEXT` or raises a plain Exception for its service's 500.
LAB = """\
    from typing import ClassVar

    from poemetric.providers import Completion, Provider


    class Plugin(Provider):
        name: ClassVar[str] = "NAME"
        remote: ClassVar[bool] = False

        async def generate(self, request):
            if self.spec.options.get("fail"):
                raise Exception("lab API returned HTTP 500")
            return Completion(text=self.spec.options.get("text", ""))
"""


def test_an_import_error_in_a_plugin_says_the_file_and_line_that_raised(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """ "cannot be loaded: KeyError: 'LAB_ENDPOINT_NOT_SET_0123'" said neither where nor why."""
    module = install("lab", IMPORT_FAILS)
    user_models("generators", "mine", "name: mine\nprovider: lab\nmodel: x\n")
    code, out, err = cli("generate", "--run", str(tmp_path / "run"), "--models", "mine")
    source = tmp_path / "site" / module / f"{module}.py"
    assert code == 2, out + err
    assert (
        f"cannot be loaded: KeyError: 'LAB_ENDPOINT_NOT_SET_0123' (raised at {source}, line 2)"
    ) in err, err


def test_a_missing_module_in_a_plugin_names_the_plugin_line_not_the_import_machinery(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    module = install("lab", "import os\nimport lab_client_not_installed_0123\n")
    user_models("generators", "mine", "name: mine\nprovider: lab\nmodel: x\n")
    code, out, err = cli("generate", "--run", str(tmp_path / "run"), "--models", "mine")
    source = tmp_path / "site" / module / f"{module}.py"
    assert code == 2, out + err
    assert f"(raised at {source}, line 2)" in err and "importlib" not in err, err


def test_a_plain_exception_for_a_500_says_how_to_have_it_retried(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """The warning called it a bug and stopped there: the author did not learn that a
    `ProviderError(retryable=True)` is what the runner retries with backoff."""
    install("lab", LAB)
    user_models("generators", "mine", "name: mine\nprovider: lab\nmodel: x\noptions: {fail: 1}\n")
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--limit", "2",
                         "--no-progress")  # fmt: skip
    assert code == 1, out + err
    warning = next(line for line in out.splitlines() if line.startswith("mine: warning: "))
    assert "raised Exception in generate" in warning and RAISE_PROVIDER_ERROR in warning, out
    assert "ProviderError(message, retryable=True, status=...)" in RAISE_PROVIDER_ERROR


def test_answers_with_no_text_are_stored_and_warned_about(
    install: Installer, user_models: Callable[..., Path], tmp_path: Path
) -> None:
    """An adapter reading the wrong field of its service's answer returned "" every time: the
    summary said "ok" for each and the run held empty poems without a word."""
    install("lab", LAB)
    user_models("generators", "mine", "name: mine\nprovider: lab\nmodel: x\n")
    user_models("generators", "fine", "name: fine\nprovider: lab\nmodel: x\n"
                "options: {text: 'Two lines\\nof verse'}\n")  # fmt: skip
    run = tmp_path / "run"
    code, out, err = cli("generate", "--run", str(run), "--models", "mine,fine", "--limit", "3",
                         "--no-progress")  # fmt: skip
    assert code == 0, out + err
    warnings = [line for line in out.splitlines() if ": warning: " in line]
    assert len(warnings) == 1 and warnings[0].startswith(
        "mine: warning: 3 answers came back with no text (an empty Completion.text) and are "
        "stored as done"
    ), out
    with RunStore(run) as store:
        assert store.count("generations", "author = 'mine' AND status = 'ok'") == 3
    # A second run asks nothing again, so it has nothing new to warn about.
    code, out, err = cli("generate", "--run", str(run), "--models", "mine", "--limit", "3",
                         "--no-progress")  # fmt: skip
    assert code == 0 and ": warning: " not in out, out + err
