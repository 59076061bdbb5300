"""A device that cannot run the local model (`--device`, a model file's `device:`) is one
`error:` line before anything loads, not PyTorch's traceback from deep inside the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import local_extra_or_skip
from typer.testing import CliRunner

from poemetric.cli import app


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    local_extra_or_skip()
    path = tmp_path / "pairs.jsonl"
    built = CliRunner().invoke(
        app,
        ["probe", "build", "lear-limericks", "-n", "1", "-t", "rhyme_line_swap", "-o", str(path)],
    )
    assert built.exit_code == 0, built.output
    return path


def score(pairs: Path, device: str) -> tuple[int, str]:
    out = pairs.with_name("scores.jsonl")
    args = ["probe", "run", str(pairs), "--scorer", "hf:smollm2-135m", "--device", device]
    result = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert not out.exists()
    return result.exit_code, result.output


def test_a_device_name_pytorch_does_not_know_is_one_error_line(pairs: Path) -> None:
    status, output = score(pairs, "gpu")
    assert status == 2, output
    assert output.strip().splitlines() == [
        "error: hf:smollm2-135m: device 'gpu' is not a device name PyTorch knows; "
        "use auto, cpu, cuda, cuda:N or mps"
    ]


def test_cuda_without_a_gpu_is_one_error_line(pairs: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible: --device cuda is usable here")
    status, output = score(pairs, "cuda")
    assert status == 2, output
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1
    assert output.startswith("error: hf:smollm2-135m: device 'cuda': ")
    assert "use cpu (or auto" in output


def test_a_gpu_index_past_the_last_gpu_is_one_error_line(pairs: Path) -> None:
    import torch

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    status, output = score(pairs, f"cuda:{count}")
    assert status == 2, output
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1


def test_a_model_file_with_an_unusable_device_cannot_run_and_stores_no_error_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`generate` says the model cannot run (its jobs stay pending) instead of storing an
    error row per poem from a model that never loaded."""
    local_extra_or_skip()
    from poemetric.store import RunStore

    models = tmp_path / "models"
    models.mkdir()
    text = (Path(__file__).parents[1] / "generators" / "smollm2-135m.yaml").read_text(
        encoding="utf-8"
    )
    text = text.replace("name: smollm2-135m", "name: smol-gpu").replace(
        "device: auto", "device: cuda:99"
    )
    (models / "smol-gpu.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(models))
    run = tmp_path / "run"
    args = ["generate", "--run", str(run), "--models", "smol-gpu", "-n", "1", "--no-progress"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "smol-gpu cannot run" in result.output and "device 'cuda:99'" in result.output
    with RunStore(run) as store:
        assert store.count("generations", "author = 'smol-gpu'") == 0
