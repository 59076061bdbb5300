"""The batch API's interface (`batch_api`) and OpenAI's batch half (`openai_batches`) live in
modules of their own; the names third-party adapters and tests import from `base` and
`openai_provider` are the same objects (and the error helpers of `remote_errors` imported from
`remote_common`), whichever module a fresh interpreter imports first."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from types import ModuleType

import pytest

from poemetric.providers import (
    base,
    batch_api,
    openai_batches,
    openai_provider,
    remote_common,
    remote_errors,
)

MOVED = [
    (base, batch_api, ("BatchCapable", "BatchSearch", "BatchState", "BatchStatus",
                       "FindsBatches", "sends_batches")),
    (openai_provider, openai_batches, ("CHAT_ENDPOINT", "LIST_PAGE", "SUBMISSION_TAG_KEY",
                                       "refuses_metadata")),
    (remote_common, remote_errors, ("LOCAL_HOSTS", "RETRYABLE_STATUSES", "connection_refused",
                                    "is_local", "is_retryable_status", "malformed_error",
                                    "never_sent", "retry_after_seconds", "scrub", "scrub_raw",
                                    "status_error", "transport_error",
                                    "translate_stainless_error")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "names"), MOVED, ids=["base", "openai_provider", "remote_common"]
)
def test_the_old_import_paths_give_the_same_objects(
    old: ModuleType, new: ModuleType, names: tuple[str, ...]
) -> None:
    for name in names:
        assert getattr(old, name) is getattr(new, name), name


def test_openai_provider_is_still_both_batch_interfaces() -> None:
    provider = openai_provider.OpenAICompatibleProvider
    assert issubclass(provider, base.BatchCapable) and issubclass(provider, base.FindsBatches)
    assert base.sends_batches(provider)


@pytest.mark.parametrize(
    "first",
    ["poemetric.providers.batch_api", "poemetric.providers.openai_batches",
     "poemetric.providers.base", "poemetric.providers.openai_provider"],
)  # fmt: skip
def test_any_module_imports_first(first: str) -> None:
    """No import cycle breaks whichever module comes first (`base` imports `batch_api`, which
    names `base`'s types only for the type checker)."""
    code = (
        f"import {first}\n"
        "from poemetric.providers.base import FindsBatches, TagRefused\n"
        "from poemetric.providers.openai_provider import OpenAIProvider\n"
        "assert issubclass(OpenAIProvider, FindsBatches)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_entry_points_still_load() -> None:
    found = {e.name: e for e in entry_points(group="poemetric.providers")}
    assert found["openai"].load() is openai_provider.OpenAIProvider
    assert found["openai-compatible"].load() is openai_provider.OpenAICompatibleProvider
