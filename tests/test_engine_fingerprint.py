"""The digest of a model's provider and engine options that a run records with it, so that
`merge` names a model run with other options in another store (`mixed`)."""

from __future__ import annotations

from pathlib import Path

from poemetric.roster.model_file import load_model_file
from poemetric.store.models import engine_fingerprint

ROOT = Path(__file__).resolve().parents[1]


def _spec(tmp_path: Path, bundled: str, old: str = "", new: str = "") -> str | None:
    text = (ROOT / "generators" / bundled).read_text(encoding="utf-8").replace(old, new)
    (tmp_path / bundled).write_text(text, encoding="utf-8")
    return engine_fingerprint(load_model_file(tmp_path / bundled))


def test_options_that_change_the_answers_change_the_digest(tmp_path: Path) -> None:
    markov = _spec(tmp_path, "markov.yaml")
    assert markov is not None
    assert _spec(tmp_path, "markov.yaml", "order: 2 ", "order: 3 ") != markov
    vllm = _spec(tmp_path, "qwen2.5-7b-instruct.yaml")
    half = "tensor_parallel_size: 1\n  dtype: float16"
    assert _spec(tmp_path, "qwen2.5-7b-instruct.yaml", "tensor_parallel_size: 1", half) != vllm
    assert _spec(tmp_path, "gpt-4o.yaml") is None  # nothing besides the model id and settings


def test_where_a_vllm_model_runs_is_not_another_configuration(tmp_path: Path) -> None:
    """Twice the GPUs on one node (docs/scaling.md: double the TP sizes on 40 GB GPUs)."""
    name = "qwen2.5-72b-instruct.yaml"
    text = (ROOT / "generators" / name).read_text(encoding="utf-8")
    assert "tensor_parallel_size: 4" in text
    assert _spec(tmp_path, name, "tensor_parallel_size: 4", "tensor_parallel_size: 8") == _spec(
        tmp_path, name
    )
